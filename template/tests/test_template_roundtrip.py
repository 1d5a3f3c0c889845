"""The round trip a plugin author makes, outside this checkout: kubesched installed from
its built wheels (no index holds kubesched), `kubesched new-plugin` from that install, pip
install of the package, its tests (the conformance kit among them) and its own tox in a
fresh environment, `kubesched plugins` listing it, `kubesched conformance` passing it and
`kubesched simulate` using it. One fresh virtual environment is shared by every set of
answers.

Slow (it builds the distributions and installs kubesched's dependencies from the package
index): marked `roundtrip`, so `pytest template/tests -m roundtrip` runs it alone.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from template_helpers import ALL_POINTS, Venv

pytestmark = pytest.mark.roundtrip

pytest.importorskip("copier")

CASES = [
    pytest.param({}, id="defaults"),
    pytest.param(
        {
            "plugin_name": "ZonePick",
            "package_name": "acme-zonepick",
            "extension_points": ALL_POINTS,
            "author_name": "Acme Scheduling",
        },
        id="all-points",
    ),
    pytest.param(
        {"plugin_name": "Quota", "extension_points": ["PreFilter", "Reserve", "Permit"]},
        id="no-filter-or-score",
    ),
]


OPTIONS = {"plugin_name": "--name", "package_name": "--package", "author_name": "--author"}


def new_plugin(venv: Venv, dest: Path, cache: Path, answers: dict[str, Any]) -> Path:
    """`kubesched new-plugin DEST -y` with the answers as its options, from the venv."""
    args = [venv.bin("kubesched"), "new-plugin", str(dest), "-y"]
    for key, value in answers.items():
        if key == "extension_points":
            args += [arg for point in value for arg in ("--point", point)]
        else:
            args += [OPTIONS[key], value]
    made = venv.run(args, env={**os.environ, "KUBESCHED_CACHE_DIR": str(cache)})
    assert made.returncode == 0, made.stdout + made.stderr
    return dest


@pytest.mark.parametrize("answers", CASES)
def test_generated_package_round_trip(
    plugin_venv: Venv, tmp_path: Path, answers: dict[str, Any]
) -> None:
    cache = tmp_path / "cache"
    project = new_plugin(plugin_venv, tmp_path / "plugin", cache, answers)
    plugin = answers.get("plugin_name", "NodePool")
    package = answers.get("package_name", f"kubesched-{plugin.lower()}")
    points = answers.get("extension_points", ["Filter", "Score"])
    # kubesched came from wheel files, so the package points pip at a wheelhouse of them
    wheelhouse = cache / "wheels"
    assert sorted(p.name.split("-")[0] for p in wheelhouse.glob("*.whl")) == [
        "kubesched",
        "kubesched_builtin",
    ]
    assert f"--find-links {wheelhouse}" in (project / "README.md").read_text()

    plugin_venv.pip_install("--find-links", str(wheelhouse), f"{project}[test]")

    tests = plugin_venv.run(
        [
            str(plugin_venv.python),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--kubesched-examples=10",
        ],
        cwd=project,
    )
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert " failed" not in tests.stdout.splitlines()[-1]

    listed = plugin_venv.run([plugin_venv.bin("kubesched"), "plugins", "--json"])
    assert listed.returncode == 0, listed.stderr
    entry = {e["name"]: e for e in json.loads(listed.stdout)}[plugin]
    assert entry["status"] == "ok" and entry["distribution"] == package
    assert entry["extensionPoints"] == [p for p in ALL_POINTS if p in points]

    kit = plugin_venv.run(
        [plugin_venv.bin("kubesched"), "conformance", plugin, "--examples", "5"],
        cwd=project,
    )
    assert kit.returncode == 0, kit.stdout + kit.stderr
    assert " 0 failed, " in kit.stdout

    simulated = plugin_venv.run(
        [
            plugin_venv.bin("kubesched"),
            "simulate",
            "examples/cluster.yaml",
            "--config",
            "examples/config.yaml",
            "--output",
            "json",
            "--no-progress",
        ],
        cwd=project,
    )
    assert simulated.returncode == 0, simulated.stdout + simulated.stderr
    pods = {p["name"]: p for p in json.loads(simulated.stdout)["pods"]}
    assert pods["anywhere"]["status"] == "Bound"
    if {"PreFilter", "Filter", "Score"} & set(points):
        assert pods["wants-b"]["node"] == "node-b"  # only the plugin prefers node-b
    if "PreEnqueue" in points:
        assert pods["wants-z"]["status"] == "Pending"
        assert "is not one of the allowed values [a b]" in pods["wants-z"]["message"]


def test_generated_package_passes_its_own_tox(plugin_venv: Venv, tmp_path: Path) -> None:
    """The package's tox builds it and installs kubesched in an environment of its own,
    where no index holds kubesched: the wheelhouse recorded by new-plugin must serve."""
    cache = tmp_path / "cache"
    project = new_plugin(plugin_venv, tmp_path / "plugin", cache, {})
    plugin_venv.pip_install("tox>=4,<5")
    env = {key: value for key, value in os.environ.items() if not key.startswith("TOX")}
    done = plugin_venv.run(
        [
            plugin_venv.bin("tox"),
            "-q",
            "--",
            "-q",
            "-p",
            "no:cacheprovider",
            "--kubesched-examples=5",
        ],
        cwd=project,
        env=env,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "congratulations" in done.stdout
