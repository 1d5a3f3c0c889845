"""PreEnqueue, PreFilter and the minResources check.

Upstream cases: scheduler-plugins pkg/coscheduling/core/core_test.go (TestPreFilter,
TestCheckClusterResource) and coscheduling_test.go (TestPodGroupBackoffTime). Nodes are
made as upstream's `st.MakeNode().Capacity(...)` makes them: with 32 pods allocatable.
"""

from __future__ import annotations

from typing import Any

import pytest
from cosched_helpers import Env, pod_group

from kubesched.api import Pod
from kubesched.framework import Code, CycleState, Status
from kubesched.testing import make_node, make_pod
from kubesched_coscheduling import POD_GROUP_LABEL
from kubesched_coscheduling.coscheduling import (
    PODS_TO_ACTIVATE_KEY,
    check_cluster_resource,
    feasibility,
    min_resources_request,
)


def nodes4() -> list[Any]:
    return [
        make_node("node-a").alloc(cpu="4", pods=32).obj(),
        make_node("node-b").alloc(cpu="4", pods=32).obj(),
    ]


def member(name: str, group: str, ns: str = "ns", gated: bool = False, **kw: Any) -> Pod:
    b = make_pod(name, ns, uid=name).label(**{POD_GROUP_LABEL: group})
    if kw:
        b.req(**kw)
    if gated:
        b.gates("example.com/hold")
    return b.obj()


def pre_filter(env: Env, pod: Pod, state: CycleState | None = None) -> Status | None:
    _, status = env.plugin.pre_filter(state or CycleState(), pod, env.snapshot.node_info_list)
    return status


# -- TestPreFilter (core_test.go) ------------------------------------------------------

PRE_FILTER_CASES: list[tuple[str, Pod, list[Pod], list[Any], str | None]] = [
    (
        "pod does not belong to any pg",
        make_pod("p", "default", uid="p").obj(),
        [member("p1", "pg1"), member("p2", "pg2")],
        [pod_group("pg1", 1, namespace="ns"), pod_group("pg2", 1, namespace="ns")],
        None,
    ),
    (
        "pod belongs to a non-existent pg",
        member("p", "pg-non-existent"),
        [],
        [pod_group("pg1", 1, namespace="ns")],
        None,
    ),
    (
        "pod count less than minMember",
        member("p", "pg1"),
        [member("pg2-1", "pg2")],
        [pod_group("pg1", 2, namespace="ns"), pod_group("pg2", 2, namespace="ns")],
        "pre-filter pod p cannot find enough sibling pods, current pods number: 1, "
        "minMember of group: 2",
    ),
    (
        "pod count equal minMember",
        member("p1a", "pg1"),
        [member("p1b", "pg1")],
        [pod_group("pg1", 2, namespace="ns"), pod_group("pg2", 2, namespace="ns")],
        None,
    ),
    (
        "pod count more than minMember",
        member("p1a", "pg1"),
        [member("p1b", "pg1"), member("p1c", "pg1")],
        [pod_group("pg1", 2, namespace="ns"), pod_group("pg2", 2, namespace="ns")],
        None,
    ),
    (
        "gated pods, still enough ungated ones",
        member("p1a", "pg1"),
        [member("p1b", "pg1"), member("p1c", "pg1", gated=True)],
        [pod_group("pg1", 2, namespace="ns")],
        None,
    ),
    (
        "gated pods push the group below minMember",
        member("p1a", "pg1"),
        [member("p1b", "pg1", gated=True), member("p1c", "pg1", gated=True)],
        [pod_group("pg1", 2, namespace="ns")],
        "pre-filter pod p1a cannot proceed due to gated pods in the same PodGroup",
    ),
    (
        "all siblings gated",
        member("p1a", "pg1"),
        [member("p1b", "pg1", gated=True), member("p1c", "pg1", gated=True)],
        [pod_group("pg1", 3, namespace="ns")],
        "pre-filter pod p1a cannot proceed due to gated pods in the same PodGroup",
    ),
    (
        # 2 nodes x 4 CPU, minResources 6 CPU: passes (an aggregate), though no node has 6
        "cluster's resource satisfies minResource",
        member("p1a", "pg1"),
        [member("p1b", "pg1"), member("p1c", "pg1")],
        [pod_group("pg1", 2, namespace="ns", min_resources={"cpu": "6"})],
        None,
    ),
    (
        "cluster's resource cannot satisfy minResource",
        member("p1a", "pg1"),
        [member("p1b", "pg1"), member("p1c", "pg1")],
        [pod_group("pg1", 2, namespace="ns", min_resources={"cpu": "10"})],
        "resource gap: cpu=2",
    ),
]


@pytest.mark.parametrize(
    ("pod", "pending", "groups", "want"),
    [c[1:] for c in PRE_FILTER_CASES],
    ids=[c[0] for c in PRE_FILTER_CASES],
)
def test_pre_filter(pod: Pod, pending: list[Pod], groups: list[Any], want: str | None) -> None:
    env = Env([*nodes4(), *groups, *pending, pod])
    try:
        status = pre_filter(env, pod)
        if want is None:
            assert status is None or status.is_success
        else:
            assert status is not None
            assert status.code is Code.UnschedulableAndUnresolvable
            assert status.message() == want
    finally:
        env.close()


# -- TestCheckClusterResource (core_test.go) ------------------------------------------


def _node_infos(pods: list[Pod]) -> Any:
    nodes = [
        make_node("node-a").alloc(cpu="3", pods=32).obj(),
        make_node("node-b").alloc(cpu="3", pods=32).obj(),
    ]
    env = Env([*nodes, *pods])
    infos = list(env.snapshot.node_info_list)
    env.close()
    return infos


def _bound(name: str, node: str, cpu: str, group: str | None = None) -> Pod:
    b = make_pod(name, "ns", uid=name).node(node).req(cpu=cpu)
    if group is not None:
        b.label(**{POD_GROUP_LABEL: group})
    return b.obj()


@pytest.mark.parametrize(
    ("pods", "ok"),
    [
        pytest.param([_bound("p1", "node-a", "2")], True, id="Cluster resource enough"),
        pytest.param(
            [_bound("p1", "node-a", "2"), _bound("p2", "node-b", "1")],
            False,
            id="Cluster resource not enough",
        ),
        pytest.param(
            [_bound("p1", "node-a", "2", group="pg1"), _bound("p2", "node-b", "1")],
            True,
            id="Cluster resource enough as p1's resource needs to be excluded from minResources",
        ),
    ],
)
def test_check_cluster_resource(pods: list[Pod], ok: bool) -> None:
    """2 nodes x 3 CPUs; minResources cpu 4 for ns/pg1."""
    gap = check_cluster_resource(_node_infos(pods), {"cpu": 4000}, "ns/pg1")
    assert (gap is None) is ok, gap


def test_min_resources_request_adds_pods_min_member() -> None:
    from fractions import Fraction

    assert min_resources_request({"cpu": Fraction(3, 2), "memory": Fraction(1024)}, 4) == {
        "cpu": 1500,
        "memory": 1024,
        "pods": 4,
    }


def test_min_resources_pass_is_remembered_for_siblings() -> None:
    """upstream permittedPG: once a member passed the check, siblings skip it until the
    TTL (permitWaitingTimeSeconds) runs out."""
    pods = [member(f"p{i}", "pg1") for i in range(3)]
    env = Env([*nodes4(), pod_group("pg1", 2, namespace="ns", min_resources={"cpu": "6"}), *pods])
    try:
        assert pre_filter(env, pods[0]) is None
        group = env.plugin._groups.get("ns/pg1")
        assert group.permitted_until == pytest.approx(60.0)
    finally:
        env.close()


# -- PreEnqueue (kubesched) ----------------------------------------------------------


def test_pre_enqueue() -> None:
    terminal = member("done", "pg").model_copy(deep=True)
    terminal.status.phase = "Succeeded"
    gated = member("gated", "pg", gated=True)
    objects = [*nodes4(), pod_group("pg", 3, namespace="ns"), member("a", "pg"), terminal, gated]
    env = Env(objects)
    try:
        plain = make_pod("plain", "ns", uid="plain").obj()
        assert env.plugin.pre_enqueue(plain) is None
        orphan = member("orphan", "missing")
        status = env.plugin.pre_enqueue(orphan)
        assert status is not None and status.message() == "PodGroup ns/missing not found"
        status = env.plugin.pre_enqueue(env.pod("a", "ns"))
        assert status is not None
        assert status.message() == (
            "podGroup ns/pg has 1 of the 3 live, ungated members it needs (minMember)"
        )
        env.cluster.create_many([member("b", "pg"), member("c", "pg")])
        env.cluster.flush()
        assert env.plugin.pre_enqueue(env.pod("a", "ns")) is None
    finally:
        env.close()


def test_pre_enqueue_holds_a_backing_off_group() -> None:
    pods = [member(f"p{i}", "pg") for i in range(2)]
    env = Env([*nodes4(), pod_group("pg", 2, namespace="ns"), *pods])
    try:
        group = env.plugin._groups.get("ns/pg")
        group.holding = True
        env.plugin._outcomes.fail_group(
            "ns/pg", "rejected", "the quorum was not reached within 10s"
        )
        status = env.plugin.pre_enqueue(pods[0])
        assert status is not None
        assert status.message() == (
            "podGroup ns/pg failed recently (the quorum was not reached within 10s); "
            "backing off for 1s"
        )
        env.clock.advance(1.0)
        assert env.plugin.pre_enqueue(pods[0]) is None
    finally:
        env.close()


# -- TestPodGroupBackoffTime (coscheduling_test.go) ----------------------------------


def test_pod_group_backoff_time() -> None:
    node = make_node("node").alloc(cpu="4", pods=32).obj()
    pods = [member(f"pod{i}", "pg1", cpu="1") for i in (1, 2, 3)]
    env = Env(
        [node, pod_group("pg1", 3, namespace="ns"), *pods], args={"podGroupBackoffSeconds": 1}
    )
    try:
        state = CycleState()
        to_activate: dict[str, Pod] = {}
        state.write(PODS_TO_ACTIVATE_KEY, to_activate)
        assumed = env.assume(pods[0], "node")
        status = env.call(lambda: env.fwk.run_permit_plugins(state, assumed, "node"))
        assert status.code is Code.Wait
        assert sorted(to_activate) == ["ns/pod2", "ns/pod3"]

        _, post = env.call(lambda: env.plugin.post_filter(CycleState(), pods[1], _no_nodes()))
        assert post is not None and post.code is Code.Unschedulable

        status = pre_filter(env, pods[2])
        assert status is not None
        assert status.code is Code.UnschedulableAndUnresolvable
        assert status.message() == "podGroup ns/pg1 failed recently"
    finally:
        env.close()


def _no_nodes() -> Any:
    from kubesched.framework import NodeToStatus

    return NodeToStatus()


# -- reservation slots and packing (kubesched) ---------------------------------------


def _hold(env: Env, pod: Pod, node: str) -> None:
    """Let `pod` wait at Permit on `node` (its group then holds a reservation slot)."""
    assumed = env.assume(pod, node)
    status = env.call(lambda: env.fwk.run_permit_plugins(CycleState(), assumed, node))
    assert status.code is Code.Wait


@pytest.mark.parametrize(("limit", "blocked"), [(1, True), (2, False), (0, False)])
def test_only_max_waiting_pod_groups_hold_reservations(limit: int, blocked: bool) -> None:
    a = [member(f"a{i}", "a", cpu="1") for i in range(2)]
    b = [member(f"b{i}", "b", cpu="1") for i in range(2)]
    objects = [*nodes4(), pod_group("a", 2, namespace="ns"), pod_group("b", 2, namespace="ns")]
    env = Env([*objects, *a, *b], args={"maxWaitingPodGroups": limit})
    try:
        _hold(env, a[0], "node-a")
        status = pre_filter(env, b[0])
        if blocked:
            assert status is not None and status.code is Code.UnschedulableAndUnresolvable
            assert status.message() == (
                "podGroup ns/b waits for its turn: podGroup ns/a holds members waiting at Permit"
            )
        else:
            assert status is None
        # the holder itself is never blocked
        assert pre_filter(env, a[1]) is None
    finally:
        env.close()


def test_a_gang_larger_than_the_cluster_is_rejected_before_holding_anything() -> None:
    pods = [member(f"w-{i}", "pg", cpu="3") for i in range(3)]
    env = Env([*nodes4(), pod_group("pg", 3, namespace="ns"), *pods])
    try:
        status = pre_filter(env, pods[0])
        assert status is not None and status.code is Code.UnschedulableAndUnresolvable
        assert status.message() == (
            "podGroup ns/pg needs 3 more members placed together; only 2 fit "
            "(pod w-2: 2 Insufficient cpu)"
        )
        assert env.plugin._groups.holders() == []
    finally:
        env.close()


def test_members_are_steered_to_the_plan() -> None:
    pods = [member(f"w-{i}", "pg", cpu="2") for i in range(4)]
    env = Env([*nodes4(), pod_group("pg", 4, namespace="ns"), *pods])
    try:
        planned = []
        for pod in pods:
            result, status = env.plugin.pre_filter(CycleState(), pod, env.snapshot.node_info_list)
            assert status is None and result is not None and result.node_names is not None
            (node,) = result.node_names
            planned.append(node)
            if pod is not pods[-1]:
                _hold(env, pod, node)
        assert sorted(planned) == ["node-a", "node-a", "node-b", "node-b"]
    finally:
        env.close()


def test_members_already_waiting_lower_what_is_still_needed() -> None:
    pods = [member(f"w-{i}", "pg", cpu="4") for i in range(3)]
    env = Env([*nodes4(), pod_group("pg", 2, namespace="ns"), *pods])
    try:
        _hold(env, pods[0], "node-a")
        result, status = env.plugin.pre_filter(CycleState(), pods[1], env.snapshot.node_info_list)
        assert status is None and result is not None and result.node_names == {"node-b"}
    finally:
        env.close()


def test_an_infeasible_plan_is_not_recomputed_on_the_same_snapshot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []
    real = feasibility.pack

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(feasibility, "pack", counting)
    pods = [member(f"w-{i}", "pg", cpu="3") for i in range(3)]
    env = Env([*nodes4(), pod_group("pg", 3, namespace="ns"), *pods])
    try:
        for pod in pods:
            state = CycleState()
            assert pre_filter(env, pod, state) is not None
            env.call(lambda s=state, p=pod: env.plugin.post_filter(s, p, _no_nodes()))
        assert len(calls) == 1
        env.cluster.create_many([make_node("node-c").alloc(cpu="4", pods=32).obj()])
        env.cache.add_node(env.cluster.get("Node", "node-c"))
        env.cache.update_snapshot(env.snapshot)
        assert pre_filter(env, pods[0]) is None
        assert len(calls) == 2
    finally:
        env.close()
