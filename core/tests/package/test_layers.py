"""The layers written in kubesched/__init__.py hold: nothing imports upward; and the plugin
distributions import only the plugin API (`kubesched.testing.PLUGIN_API_MODULES`)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import kubesched
from kubesched.testing import PLUGIN_API_MODULES, plugin_api_violations

ROOT = Path(kubesched.__file__).parent

# lower numbers are lower layers; a module may import its own layer and those below
LAYERS = {
    "_errors": 0,
    "_documents": 0,
    "_install": 0,
    "api": 0,
    "clock": 0,
    "features": 0,
    "framework": 1,
    "cluster": 1,
    "hookspecs": 1,
    "cluster.memory": 2,
    "cluster.kube": 2,
    "runtime": 2,
    "config": 2,
    "queue": 2,
    "cache": 2,
    "workloads": 2,
    "scheduler": 3,
    "simulate": 4,
    "report": 4,
    "compare": 4,
    "sweep": 4,
    "run": 4,
    "testing": 4,
    "cli": 5,
}


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "kubesched" or len(parts) < 2:
        return None
    return LAYERS.get(".".join(parts[1:3]), LAYERS.get(parts[1]))


def _modules() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if p.name != "__main__.py")


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_upward_imports(path: Path) -> None:
    rel = path.relative_to(ROOT)
    top = rel.parts[0].removesuffix(".py")
    if top == "__init__":
        return  # the facade re-exports from every layer
    own = LAYERS.get("/".join(rel.parts[:2]).replace("/", "."), LAYERS[top])
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            layer = _layer(name)
            assert layer is None or layer <= own, f"{rel} (layer {own}) imports {name} ({layer})"


def test_every_package_has_a_layer() -> None:
    tops = {p.relative_to(ROOT).parts[0].removesuffix(".py") for p in _modules()}
    assert tops - {"__init__", "py.typed"} <= set(LAYERS)


# -- the plugin API boundary --------------------------------------------------------------

REPO = ROOT.parents[2]
PLUGIN_SOURCES = sorted(REPO.glob("plugins-*/src"))
"""Our plugin distributions' packages (none when kubesched is not run from a checkout);
the template's generated package is checked by template/tests."""


@pytest.mark.parametrize("src", PLUGIN_SOURCES, ids=lambda p: p.parent.name)
def test_plugin_distributions_import_only_the_plugin_api(src: Path) -> None:
    assert plugin_api_violations(src) == []


def test_the_plugin_api_is_public_modules_below_the_scheduler() -> None:
    for name in PLUGIN_API_MODULES:
        importlib.import_module(name)
        assert not any(part.startswith("_") for part in name.split(".")), name
        layer = _layer(name)
        assert layer is None or layer <= LAYERS["framework"], name


def test_imports_outside_the_plugin_api_are_found(tmp_path: Path) -> None:
    pkg = tmp_path / "kubesched_example"
    pkg.mkdir()
    (pkg / "plugin.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "import kubesched.runtime\n"
        "from kubesched import NotFoundError, hookspecs, scheduler\n"
        "from kubesched.api import Pod\n"
        "from kubesched.api._pod import PodSpec\n"
        "from kubesched.framework.preemption import Evaluator\n"
        "from kubesched_other import thing\n"
        "if TYPE_CHECKING:\n"
        "    from kubesched.simulate import SimulationResult\n"
    )
    assert plugin_api_violations(tmp_path) == [
        "kubesched_example/plugin.py:2: imports kubesched.runtime",
        "kubesched_example/plugin.py:3: imports kubesched.scheduler",
        "kubesched_example/plugin.py:5: imports kubesched.api._pod",
        "kubesched_example/plugin.py:9: imports kubesched.simulate",
    ]
