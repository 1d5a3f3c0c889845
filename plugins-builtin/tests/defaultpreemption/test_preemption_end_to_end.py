"""Preemption through the real scheduler on the memory cluster: PostFilter nominates, the
victims are deleted, the nominated pod is retried and bound where room was made."""

from __future__ import annotations

from typing import Any

from builtin_helpers import make_node, make_pod
from preemption_helpers import simulate

from kubesched.api import Pod
from kubesched_builtin.kinds import PodDisruptionBudget


def _pod(name: str, cpu: str, prio: int, node: str = "", **extra: Any) -> Pod:
    """A pod without a uid (the cluster gives it one), requesting `cpu`; `labels=` and
    other spec fields (manifest spelling) in `extra`."""
    pod = make_pod(name).uid("").req(cpu=cpu).priority(prio).label(**extra.pop("labels", {}))
    if node:
        pod.node(node)
    return pod.spec(**extra).obj()


def _names(sim: Any) -> set[str]:
    return {p.metadata.name for p in sim.cluster.list("Pod")}


def test_high_priority_pod_preempts_on_a_full_node_and_binds_there() -> None:
    objs = [
        make_node("n1").alloc(cpu="2", memory="4Gi").obj(),
        _pod("low-1", "1", 0, node="n1"),
        _pod("low-2", "1", 0, node="n1"),
        _pod("high", "2", 100),
    ]
    result, sim = simulate(objs)
    assert result.pod("high").status == "Bound"
    assert result.pod("high").node == "n1"
    assert _names(sim) == {"high"}
    preempted = sorted(
        (e.involved_name, e.message) for e in sim.cluster.events() if e.reason == "Preempted"
    )
    high_uid = sim.cluster.get("Pod", "high", "default").metadata.uid
    assert preempted == [
        ("low-1", f"Preempted by pod {high_uid} on node n1"),
        ("low-2", f"Preempted by pod {high_uid} on node n1"),
    ]
    # the first attempt failed (a successful PostFilter adds nothing to the message) and
    # nominated n1; the retry after the victims' deletion bound it there
    failed = [e.message for e in sim.cluster.events() if e.reason == "FailedScheduling"]
    assert failed == ["0/1 nodes are available: 1 Insufficient cpu."]
    assert (result.pod("high").attempts, result.pod("high").nominated_node) == (2, "n1")


def test_only_as_many_victims_as_needed_and_the_cheapest_node() -> None:
    objs = [
        make_node("n1").alloc(cpu="3", memory="4Gi").obj(),
        make_node("n2").alloc(cpu="3", memory="4Gi").obj(),
        # n1: two mid-priority pods; n2: a high-priority pod and a low one
        _pod("mid-1", "1500m", 50, node="n1"),
        _pod("mid-2", "1500m", 50, node="n1"),
        _pod("keep", "1", 200, node="n2"),
        _pod("low", "2", 10, node="n2"),
        _pod("preemptor", "2", 100),
    ]
    result, sim = simulate(objs)
    # n2 only needs "low" to go, and its victim has the lowest priority
    assert (result.pod("preemptor").status, result.pod("preemptor").node) == ("Bound", "n2")
    assert _names(sim) == {"mid-1", "mid-2", "keep", "preemptor"}


def _budget(min_available: int, app: str) -> PodDisruptionBudget:
    return PodDisruptionBudget.model_validate(
        {
            "metadata": {"name": f"pdb-{app}", "namespace": "default"},
            "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": app}}},
        }
    )


def _pdb_cluster(with_budget: bool) -> list[Any]:
    objs: list[Any] = [
        make_node("n1").alloc(cpu="2", memory="4Gi").obj(),
        make_node("n2").alloc(cpu="2", memory="4Gi").obj(),
        # n1's pod has the lower priority, so without a budget n1 is the better choice
        _pod("guarded", "2", 0, node="n1", labels={"app": "guarded"}),
        _pod("plain", "2", 50, node="n2", labels={"app": "plain"}),
        _pod("high", "2", 1000),
    ]
    if with_budget:
        objs.append(_budget(1, "guarded"))
    return objs


def test_without_a_budget_the_lowest_priority_victim_goes() -> None:
    result, sim = simulate(_pdb_cluster(with_budget=False))
    assert (result.pod("high").status, result.pod("high").node) == ("Bound", "n1")
    assert "guarded" not in _names(sim)


def test_the_node_without_a_pdb_violation_is_chosen() -> None:
    result, sim = simulate(_pdb_cluster(with_budget=True))
    assert (result.pod("high").status, result.pod("high").node) == ("Bound", "n2")
    assert _names(sim) == {"guarded", "high"}
    budget = sim.cluster.get("PodDisruptionBudget", "pdb-guarded", "default")
    assert budget.status.disruptions_allowed == 0  # the controller kept it


def test_preemption_policy_never_does_not_preempt() -> None:
    objs = [
        make_node("n1").alloc(cpu="2", memory="4Gi").obj(),
        _pod("low", "2", 0, node="n1"),
        _pod("polite", "2", 100, preemptionPolicy="Never"),
    ]
    result, sim = simulate(objs)
    polite = result.pod("polite")
    assert polite.status == "Unschedulable"
    assert polite.message == (
        "0/1 nodes are available: 1 Insufficient cpu. "
        "preemption: not eligible due to preemptionPolicy=Never."
    )
    assert _names(sim) == {"low", "polite"}
    assert not [e for e in sim.cluster.events() if e.reason == "Preempted"]


def test_no_victims_leaves_the_pod_unschedulable_with_the_preemption_message() -> None:
    objs = [
        make_node("n1").alloc(cpu="2", memory="4Gi").obj(),
        _pod("peer", "2", 100, node="n1"),
        _pod("late", "2", 100),
    ]
    result, sim = simulate(objs)
    assert result.pod("late").message == (
        "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
        "1 No preemption victims found for incoming pod."
    )
    assert sim.cluster.get("Pod", "late", "default").status.nominated_node_name == ""


def test_a_request_beyond_every_node_is_not_helped_by_preemption() -> None:
    """The check against the real v1.34.7 binary: 8 CPUs asked of two 1-CPU nodes is
    UnschedulableAndUnresolvable on both (fit.go, kubernetes/kubernetes#131345), so
    preemption looks at no node and evicts nothing, even with lower-priority pods there."""
    objs = [
        make_node("n1").alloc(cpu="1", memory="4Gi").obj(),
        make_node("n2").alloc(cpu="1", memory="4Gi").obj(),
        _pod("low", "1", 0, node="n1"),
        _pod("huge", "8", 100),
    ]
    result, sim = simulate(objs)
    assert result.pod("huge").status == "Unschedulable"
    assert result.pod("huge").message == (
        "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: "
        "2 Preemption is not helpful for scheduling."
    )
    assert _names(sim) == {"low", "huge"}
    assert not [e for e in sim.cluster.events() if e.reason == "Preempted"]


def test_runs_repeat_exactly() -> None:
    def run() -> list[tuple[str, str | None]]:
        objs: list[Any] = [make_node(f"n{i}").alloc(cpu="2", memory="4Gi").obj() for i in range(6)]
        objs += [_pod(f"low-{i}", "2", 0, node=f"n{i}") for i in range(6)]
        objs += [_pod(f"high-{i}", "2", 100) for i in range(3)]
        result, _ = simulate(objs, seed=3)
        return [(p.name, p.node) for p in result.pods]

    first = run()
    assert first == run()
    assert sum(1 for name, node in first if name.startswith("high") and node) == 3


def test_room_made_by_preemption_is_held_for_the_nominated_pod() -> None:
    # "other" comes right after the preemptor; filters count the nominated preemptor on n1,
    # so the freed room is not given away (and other has no victims to take there)
    objs = [
        make_node("n1").alloc(cpu="2", memory="4Gi").obj(),
        _pod("low-1", "1", 0, node="n1"),
        _pod("low-2", "1", 0, node="n1"),
        _pod("high", "2", 100),
        _pod("other", "1", 50),
    ]
    result, sim = simulate(objs)
    assert (result.pod("high").status, result.pod("high").node) == ("Bound", "n1")
    assert result.pod("other").status == "Unschedulable"
    assert _names(sim) == {"high", "other"}
