"""The round trip a plugin author makes: generate a package, pip install it, run its
tests (the conformance kit among them), see `kubesched plugins` list it, `kubesched
conformance` pass it and `kubesched simulate` use it. One fresh virtual environment is
shared by every set of answers.

Slow (it installs kubesched and its dependencies from the package index once): marked
`roundtrip`, so `pytest template/tests -m roundtrip` runs it alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from template_helpers import ALL_POINTS, Venv, generate

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


@pytest.mark.parametrize("answers", CASES)
def test_generated_package_round_trip(
    template_repo: Path, plugin_venv: Venv, tmp_path: Path, answers: dict[str, Any]
) -> None:
    project = generate(template_repo, tmp_path / "plugin", **answers)
    plugin = answers.get("plugin_name", "NodePool")
    package = answers.get("package_name", f"kubesched-{plugin.lower()}")
    points = answers.get("extension_points", ["Filter", "Score"])

    plugin_venv.pip_install(f"{project}[test]")

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
