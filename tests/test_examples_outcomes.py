"""Every example with an outcome table does what its README says (`kubesched simulate`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from example_tables import EXAMPLES, check_outcome, readme_outcome

from kubesched.cli._main import main

WITH_TABLES = sorted(p.parent for p in EXAMPLES.glob("*/README.md") if readme_outcome(p.parent))


def test_the_feature_examples_exist() -> None:
    names = {p.name for p in WITH_TABLES}
    assert {"basic", "taints", "node-affinity", "topology-spread", "anti-affinity",
            "preemption"} <= names  # fmt: skip


@pytest.mark.parametrize("example", WITH_TABLES, ids=lambda p: p.name)
def test_example_matches_its_readme(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", str(example), "--output", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    check_outcome({p["name"]: p for p in data["pods"]}, readme_outcome(example))


def test_topology_spread_example_is_even() -> None:
    from kubesched.simulate import simulate

    result = simulate([EXAMPLES / "topology-spread"])
    web = [p.node for p in result.pods if p.name.startswith(("web-", "existing-web"))]
    zones = [n[0] for n in web if n]
    assert sorted(zones) == ["a", "a", "b", "b", "c", "c"]
    assert len(set(web)) == 6


def test_preemption_example_deletes_only_the_victim() -> None:
    from kubesched.simulate import simulate

    result = simulate([EXAMPLES / "preemption"])
    names = {p.name for p in result.pods}
    assert "batch-3" not in names
    assert {"batch-1", "batch-2", "batch-4"} <= names
    assert result.pod("urgent").attempts == 2
