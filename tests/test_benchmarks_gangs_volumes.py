"""The GangScheduling and VolumeBinding benchmark workloads at tiny sizes, the checks the
runner makes at the end (gangs bound whole, time to quorum, claims bound), and the runner
refusing a workload whose plugin package is missing. No assertion depends on how fast
the machine is. Needs kubesched-coscheduling and kubesched-volumebinding (the
`integration` tox environment installs both)."""

from __future__ import annotations

import dataclasses
import datetime
import importlib.util
import json
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from kubesched_bench import (
    WORKLOADS,
    BenchmarkError,
    BenchmarkResult,
    Gang,
    MissingPackageError,
    QuorumSummary,
    Requirement,
    Size,
    get_workload,
    record,
    run_workload,
)
from kubesched_bench.checks import (
    gang_shortfalls,
    time_to_quorum,
    unbound_claims,
)
from kubesched_bench.gangs import COSCHEDULING_CONFIG, POD_GROUP_LABEL
from kubesched_bench.templates import MEASURED_NAMESPACE
from kubesched_bench.volumes import CLAIM_KINDS

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"

GANG_SIZE = Size(10, 0, 20, gang_size=5)
VOLUME_SIZE = Size(10, 6, 12)


def _run_py() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_run_gv", BENCHMARKS / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gang_result() -> BenchmarkResult:
    return run_workload(get_workload("GangScheduling").build(GANG_SIZE))


@pytest.fixture(scope="module")
def volume_result() -> BenchmarkResult:
    return run_workload(get_workload("VolumeBinding").build(VOLUME_SIZE))


# -- GangScheduling --------------------------------------------------------------------


def test_gang_workload_objects() -> None:
    w = get_workload("GangScheduling").build(GANG_SIZE)
    assert [g.key for g in w.gangs] == [f"{MEASURED_NAMESPACE}/gang-00{i}" for i in range(4)]
    assert {g.min_member for g in w.gangs} == {5}
    groups = [o for o in w.setup if o.kind == "PodGroup"]  # type: ignore[attr-defined]
    assert [(g.metadata.name, g.spec.min_member) for g in groups] == [  # type: ignore[attr-defined]
        (f"gang-00{i}", 5) for i in range(4)
    ]
    labels = Counter(p.metadata.labels[POD_GROUP_LABEL] for p in w.pods)
    assert labels == {f"gang-00{i}": 5 for i in range(4)}
    # members are created gang after gang
    assert [p.key for p in w.pods] == [m for g in w.gangs for m in g.members]
    assert w.config == COSCHEDULING_CONFIG


def test_gang_profile_is_the_training_example_profile() -> None:
    config = ROOT / "examples" / "training" / "scheduler-config.yaml"
    assert yaml.safe_load(config.read_text(encoding="utf-8")) == COSCHEDULING_CONFIG


def test_every_gang_binds_whole_with_its_time_to_quorum(gang_result: BenchmarkResult) -> None:
    r = gang_result
    assert (r.bound, r.pods, r.gang_size) == (20, 20, 5)
    assert r.attempts == {"scheduled": 20, "unschedulable": 0, "error": 0}
    assert r.profile == "default + Coscheduling"
    for point in ("QueueSort", "PreEnqueue", "PreFilter", "PostFilter", "Reserve", "Permit"):
        assert "Coscheduling" in r.plugins[point], point
    assert r.plugins["QueueSort"] == ["Coscheduling"]
    q = r.time_to_quorum
    assert q is not None and q.gangs == 4
    assert set(q.per_gang_ms) == {f"{MEASURED_NAMESPACE}/gang-00{i}" for i in range(4)}
    assert all(ms > 0 for ms in q.per_gang_ms.values())
    assert 0 < q.p50_ms <= q.p90_ms <= q.p99_ms <= q.max_ms == max(q.per_gang_ms.values())
    measured = [n for k, n in r.placements.items() if k.startswith(MEASURED_NAMESPACE + "/")]
    assert len(measured) == 20 and "" not in measured


def test_gang_cli_json_reports_time_to_quorum(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--workload", "GangScheduling", "--nodes", "10", "--pods", "12"]
    code = _run_py().main([*argv, "--gang-size", "4", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["bound"] == 12 and out["claims"] is None
    q = out["time_to_quorum"]
    assert (q["unit"], q["gangs"], q["gang_size"]) == ("ms", 3, 4)
    assert q["p50"] <= q["p90"] <= q["p99"] <= q["max"]
    assert len(q["per_gang"]) == 3


def test_a_gang_that_cannot_fit_fails_the_run_naming_it() -> None:
    # one default node holds 40 default pods: the first gang of 30 fits, the second not
    workload = get_workload("GangScheduling").build(Size(1, 0, 60, gang_size=30))
    with pytest.raises(BenchmarkError) as info:
        run_workload(workload)
    message = str(info.value)
    assert "only 30 of 60 measured pods" in message
    assert (
        f"1 of 2 gangs were not bound whole: {MEASURED_NAMESPACE}/gang-001: "
        "0 of 30 members bound, minMember 30"
    ) in message


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--workload", "GangScheduling", "--pods", "10", "--gang-size", "3"], "divide"),
        (["--workload", "GangScheduling", "--gang-size", "0"], "--gang-size must be > 0"),
        (["--workload", "SchedulingBasic", "--gang-size", "5"], "gang workloads only"),
    ],
)
def test_bad_gang_sizes_are_refused(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run_py().main(argv) == 2
    assert message in capsys.readouterr().err


def test_recorded_gang_row_notes_profile_gangs_and_quorum(
    gang_result: BenchmarkResult, tmp_path: Path
) -> None:
    result = dataclasses.replace(
        gang_result,
        load_average=0.5,
        time_to_quorum=QuorumSummary.of({"ns/a": 0.010, "ns/b": 0.030, "ns/c": 0.020}),
    )
    row = record(result, tmp_path / "RESULTS.md", datetime.date(2026, 1, 2))
    assert row.startswith("| 2026-01-02 | GangScheduling | 10 / 0 / 20 |")
    # the notes cell (the cost columns follow it)
    assert (
        "| load 0.50; profile default + Coscheduling; 3 gangs of 5; "
        "time to quorum p50 / p99 / max 20 / 30 / 30 ms |"
    ) in row


# -- the checks, on hand-made stamps -----------------------------------------------------

GANGS = [Gang("ns/a", 2, ("ns/a-0", "ns/a-1", "ns/a-2")), Gang("ns/b", 1, ("ns/b-0",))]


@pytest.mark.parametrize(
    ("created", "bound_at", "expected"),
    [
        # quorum is the minMember-th bind (the 2nd of a), from the first member created
        (
            {"ns/a-0": 1.0, "ns/a-1": 1.5, "ns/a-2": 2.0, "ns/b-0": 3.0},
            {"ns/a-2": 4.0, "ns/a-0": 5.0, "ns/a-1": 9.0, "ns/b-0": 3.5},
            {"ns/a": 4.0, "ns/b": 0.5},
        ),
        # a gang below its quorum has no time to quorum
        (
            {"ns/a-0": 1.0, "ns/a-1": 1.0, "ns/a-2": 1.0, "ns/b-0": 1.0},
            {"ns/a-0": 2.0, "ns/b-0": 1.25},
            {"ns/b": 0.25},
        ),
    ],
)
def test_time_to_quorum(
    created: dict[str, float], bound_at: dict[str, float], expected: dict[str, float]
) -> None:
    assert time_to_quorum(GANGS, created, bound_at) == pytest.approx(expected)


def test_gang_shortfalls_name_every_gang_not_bound_whole() -> None:
    assert gang_shortfalls(GANGS, ["ns/a-0", "ns/a-1", "ns/a-2", "ns/b-0"]) == []
    # at quorum is not whole: every member of the workload's gangs must bind
    assert gang_shortfalls(GANGS, ["ns/a-0", "ns/a-1"]) == [
        "ns/a: 2 of 3 members bound, minMember 2",
        "ns/b: 0 of 1 members bound, minMember 1",
    ]


def test_quorum_summary_percentiles_are_nearest_rank() -> None:
    q = QuorumSummary.of({f"g{i}": i / 1000 for i in range(1, 101)})
    assert (q.gangs, q.p50_ms, q.p90_ms, q.p99_ms, q.max_ms) == pytest.approx(
        (100, 50.0, 90.0, 99.0, 100.0)
    )


def _claim(name: str, phase: str, volume: str = "") -> Any:
    from kubesched_volumebinding.storage import PersistentVolumeClaim

    return PersistentVolumeClaim.model_validate(
        {
            "metadata": {"name": name, "namespace": "ns"},
            "spec": {"volumeName": volume},
            "status": {"phase": phase},
        }
    )


def test_unbound_claims_names_missing_pending_and_volumeless_claims() -> None:
    stored = [
        _claim("bound", "Bound", "pv-1"),
        _claim("pending", "Pending"),
        _claim("named", "Pending", "pv-2"),
    ]
    keys = ["ns/bound", "ns/pending", "ns/named", "ns/gone"]
    assert unbound_claims(keys, stored) == [
        "ns/pending (phase Pending, volume -)",
        "ns/named (phase Pending, volume pv-2)",
        "ns/gone (not found)",
    ]
    assert unbound_claims(["ns/bound"], stored) == []


# -- VolumeBinding ---------------------------------------------------------------------


def _local_pv_nodes(objects: list[Any]) -> list[str]:
    return [
        pv.spec.node_affinity.required.node_selector_terms[0].match_expressions[0].values[0]
        for pv in objects
        if pv.kind == "PersistentVolume" and "-pv-local-" in pv.metadata.name
    ]


def test_volume_workload_objects() -> None:
    w = get_workload("VolumeBinding").build(VOLUME_SIZE)
    claim_of = {
        p.key: p.spec.volumes[0].persistent_volume_claim["claimName"]  # type: ignore[index]
        for p in [*w.init_pods, *w.pods]
    }
    assert len(set(claim_of.values())) == 18
    assert len(w.claims) == 18
    kinds = Counter(o.kind for o in w.setup)  # type: ignore[attr-defined]
    assert (kinds["StorageClass"], kinds["CSINode"]) == (2, 10)
    # pods take the claim kinds in turn: per phase, 4 (2) of each kind
    measured = Counter(o.kind for o in w.measured_setup)  # type: ignore[attr-defined]
    assert measured == {"PersistentVolumeClaim": 12, "PersistentVolume": 8}
    assert len(CLAIM_KINDS) == 3
    # one local PV per local claim, the nodes taken in turn across both phases
    assert _local_pv_nodes(w.setup) == [f"scheduler-perf-0000{i}" for i in (0, 1)]
    assert _local_pv_nodes(w.measured_setup) == [f"scheduler-perf-0000{i}" for i in range(2, 6)]
    zones = Counter(n.metadata.labels["topology.kubernetes.io/zone"] for n in w.nodes)
    assert zones == {"zone-a": 4, "zone-b": 3, "zone-c": 3}


def test_every_claim_ends_bound(volume_result: BenchmarkResult) -> None:
    r = volume_result
    assert (r.bound, r.pods, r.claims, r.claims_bound) == (12, 12, 18, 18)
    assert r.attempts == {"scheduled": 12, "unschedulable": 0, "error": 0}
    assert "VolumeBinding" in r.plugins["PreBind"]


def test_local_claims_put_their_pods_on_the_local_pvs_nodes(
    volume_result: BenchmarkResult,
) -> None:
    w = get_workload("VolumeBinding").build(VOLUME_SIZE)
    local_pods = [
        p.key for i, p in enumerate(w.pods) if CLAIM_KINDS[i % len(CLAIM_KINDS)] == "local"
    ] + [p.key for i, p in enumerate(w.init_pods) if CLAIM_KINDS[i % len(CLAIM_KINDS)] == "local"]
    nodes = sorted(volume_result.placements[k] for k in local_pods)
    assert nodes == sorted(_local_pv_nodes([*w.setup, *w.measured_setup]))


def test_volume_cli_json_reports_claims(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--workload", "VolumeBinding", "--nodes", "6", "--init-pods", "3", "--pods", "6"]
    assert _run_py().main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["claims"] == {"total": 9, "bound": 9}
    assert out["time_to_quorum"] is None


def test_a_pod_whose_claim_cannot_bind_fails_the_run() -> None:
    w = get_workload("VolumeBinding").build(VOLUME_SIZE)
    # take away the first measured local PV: one local claim is left without a volume
    first_local = next(
        o
        for o in w.measured_setup
        if "-pv-local-" in o.metadata.name  # type: ignore[attr-defined]
    )
    w.measured_setup.remove(first_local)
    with pytest.raises(BenchmarkError, match="only 11 of 12 measured pods"):
        run_workload(w)


# -- packages -----------------------------------------------------------------------------


def test_required_packages_are_found_when_installed() -> None:
    for name in ("GangScheduling", "VolumeBinding"):
        assert all(r.installed() for r in WORKLOADS[name].requires), name


def test_a_missing_package_is_named_with_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def never(size: Size, rng: Any) -> Any:
        raise AssertionError("the factory must not run without its package")

    missing = Requirement("kubesched-not-installed", "./plugins-nothing", "the Nothing plugin")
    spec = dataclasses.replace(WORKLOADS["GangScheduling"], factory=never, requires=(missing,))
    with pytest.raises(MissingPackageError):
        spec.build()
    monkeypatch.setitem(WORKLOADS, "GangScheduling", spec)
    assert _run_py().main(["--workload", "GangScheduling", "--pods", "10"]) == 2
    err = capsys.readouterr().err
    assert "workload GangScheduling needs kubesched-not-installed (the Nothing plugin)" in err
    assert "pip install -e ./plugins-nothing" in err
