"""The layers written in kubesched/__init__.py hold: nothing imports upward."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import kubesched

ROOT = Path(kubesched.__file__).parent

# lower numbers are lower layers; a module may import its own layer and those below
LAYERS = {
    "_errors": 0,
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
    "scheduler": 3,
    "simulate": 4,
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
