"""`kubesched compare` on examples/bin-packing: LeastAllocated spreads the pods over every
node, MostAllocated packs them onto half the nodes and leaves whole nodes free (issue 17).
The figures are the ones examples/bin-packing/README.md shows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from kubesched.cli._main import main
from kubesched.compare import ComparisonReport, compare, comparison_schema
from kubesched.report import published_schema, schema_text

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "bin-packing"
LEAST = str(EXAMPLE / "least-allocated.config.yaml")
MOST = str(EXAMPLE / "most-allocated.config.yaml")
CLUSTER = str(EXAMPLE / "manifests")


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return compare([CLUSTER], [LEAST, MOST], seeds=[0, 7])


def run(document: dict[str, Any], config: str, seed: int = 0) -> dict[str, Any]:
    found: dict[str, Any] = next(
        r for r in document["runs"] if r["config"] == config and r["seed"] == seed
    )
    return found


@pytest.mark.parametrize("seed", [0, 7])
def test_most_allocated_packs_the_pods_onto_half_the_nodes(
    document: dict[str, Any], seed: int
) -> None:
    least = run(document, "least-allocated.config.yaml", seed)
    most = run(document, "most-allocated.config.yaml", seed)
    for r in (least, most):
        assert r["summary"]["bound"] == r["summary"]["pods"] == 11
        assert r["reasons"] == [] and r["preemptions"] == 0
        # 21 CPUs requested of 48: the mean does not depend on where pods go
        assert r["utilization"]["cpu"]["mean"] == pytest.approx(21 / 48, abs=1e-4)
    assert (least["nodesUsed"], most["nodesUsed"]) == (6, 3)
    assert most["packing"]["cpu"] == pytest.approx(21 / 24, abs=1e-4)
    assert least["packing"]["cpu"] == pytest.approx(21 / 48, abs=1e-4)
    assert most["utilization"]["cpu"]["stddev"] > 5 * least["utilization"]["cpu"]["stddev"]
    # fragmentation: packing leaves whole nodes free, spreading leaves at most 5 CPUs
    assert most["largestFree"] == {"cpu": 8000, "memory": 32 * 2**30}
    assert least["largestFree"] == {"cpu": 5000, "memory": 20 * 2**30}
    assert least["free"] == most["free"] == {"cpu": 27000, "memory": 108 * 2**30}


def test_the_pods_placed_differently_are_listed_per_seed(document: dict[str, Any]) -> None:
    assert [(d["seed"], d["baseline"], d["config"]) for d in document["differences"]] == [
        (0, "least-allocated.config.yaml", "most-allocated.config.yaml"),
        (7, "least-allocated.config.yaml", "most-allocated.config.yaml"),
    ]
    for d in document["differences"]:
        least = {p: n for p, n in _placements(document, "least-allocated.config.yaml", d["seed"])}
        most = {p: n for p, n in _placements(document, "most-allocated.config.yaml", d["seed"])}
        moved = {p for p in least if least[p] != most[p]}
        assert {p["pod"] for p in d["pods"]} == moved
        assert d["placedDifferently"] == len(moved) > 0


def _placements(document: dict[str, Any], config: str, seed: int) -> list[tuple[str, str]]:
    moved = {
        p["pod"]: p["baseline"] if config == "least-allocated.config.yaml" else p["other"]
        for d in document["differences"]
        if d["seed"] == seed
        for p in d["pods"]
    }
    # pods not listed ended on the same node in both runs: only compare the listed ones
    return sorted(moved.items())


def test_zone_skew_counts_bound_pods_per_zone(document: dict[str, Any]) -> None:
    for r in document["runs"]:
        skew = r["zoneSkew"]
        assert sum(skew["podsPerZone"].values()) == 11
        assert set(skew["groups"]) == {
            "default/app=large",
            "default/app=medium",
            "default/app=small",
        }
        assert skew["max"] == max(skew["groups"].values())


def test_the_document_matches_the_published_schema(
    document: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    published = published_schema("kubesched.compare", "comparison")
    assert published == schema_text(comparison_schema())
    assert main(["schema", "compare"]) == 0
    assert capsys.readouterr().out == published
    jsonschema.Draft202012Validator(comparison_schema()).validate(document)
    ComparisonReport.model_validate(document)


def test_compare_prints_a_table_json_and_writes_a_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "compare.html"
    args = ["compare", CLUSTER, "--config", LEAST, "--config", MOST]
    assert main([*args, "-o", "json", "--report", str(page)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["nodesUsed"] for r in data["runs"]] == [6, 3]
    html = page.read_text()
    assert "<script src" not in html and 'id="comparison-table"' in html
    assert "<td>Nodes used</td>" in html and "default/small-4" in html
    assert main(args) == 0
    table = capsys.readouterr().out
    assert "Nodes used" in table and "6 / 6" in table and "3 / 6" in table
    assert "Placed differently: most-allocated.config.yaml vs least-allocated.config.yaml" in table


def test_default_stands_for_the_default_configuration(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", CLUSTER, "--config", "default", "--config", MOST, "-o", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["configs"] == ["default", "most-allocated.config.yaml"]
    # LeastAllocated is the default scoring strategy: the same as the example's least
    assert data["runs"][0]["nodesUsed"] == 6


@pytest.mark.parametrize(
    ("configs", "message"),
    [
        ([LEAST], "give at least two configurations"),
        ([LEAST, "nope.yaml"], "'nope.yaml' is not a file (nor `default`)"),
    ],
)
def test_bad_configurations_are_refused_before_any_run(
    configs: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["compare", CLUSTER]
    for config in configs:
        args += ["--config", config]
    assert main(args) == 2
    assert message in capsys.readouterr().err
