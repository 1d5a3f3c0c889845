"""The comparison's metrics of one run, from a result built by hand."""

from __future__ import annotations

import pytest

from kubesched.compare import run_metrics
from kubesched.hookspecs import ReportSection
from kubesched.simulate import NodeAllocation, PodResult, SimulationResult


def result(sections: list[ReportSection] | None = None) -> SimulationResult:
    gi = 2**30
    allocatable = {"cpu": 4000, "memory": 8 * gi, "pods": 10}

    def node(name: str, cpu: int, memory: int, pods: int) -> NodeAllocation:
        requested = {"cpu": cpu, "memory": memory, "pods": pods}
        return NodeAllocation(name, dict(allocatable), requested, pods)

    nodes = [node("a", 3000, 2 * gi, 2), node("b", 1000, 6 * gi, 1), node("c", 0, 0, 0)]
    pods = [
        PodResult("default", "x", "default-scheduler", "a", "Bound"),
        PodResult("default", "v", "default-scheduler", None, "Preempted", preempted_by="default/x"),
        PodResult("default", "u", "default-scheduler", None, "Unschedulable", "no fit"),
    ]
    return SimulationResult(pods, nodes, 0.0, 0, 3, sections=sections or [])


def test_utilization_packing_and_the_largest_free_pod() -> None:
    m = run_metrics(result(), cluster=None)
    assert m["nodesUsed"] == 2
    assert m["utilization"]["cpu"] == {
        "mean": pytest.approx(1 / 3, abs=1e-4),
        "stddev": pytest.approx(0.3118, abs=1e-4),
        "min": 0.0,
        "max": 0.75,
    }
    assert m["packing"] == {"cpu": 0.5, "memory": 0.5}
    assert m["largestFree"] == {"cpu": 4000, "memory": 8 * 2**30}
    assert m["free"] == {"cpu": 8000, "memory": 16 * 2**30}
    assert m["preemptions"] == 1
    assert m["reasons"] == [
        {"status": "Unschedulable", "message": "no fit", "count": 1},
        {"status": "Preempted", "message": "", "count": 1},
    ]
    assert m["zoneSkew"] is None and m["gangs"] is None


def test_gangs_come_from_the_pod_groups_section() -> None:
    groups = [
        {"name": "a", "scheduled": "True", "timeToQuorumSeconds": 4.0},
        {"name": "b", "scheduled": "True", "timeToQuorumSeconds": 10.0},
        {"name": "c", "scheduled": "False", "timeToQuorumSeconds": None},
    ]
    section = ReportSection("podGroups", "PodGroups", ["PodGroup"], [["a"], ["b"], ["c"]], groups)
    m = run_metrics(result([section]), cluster=None)
    assert m["gangs"] == {"total": 3, "placed": 2, "timeToQuorum": {"mean": 7.0, "max": 10.0}}
