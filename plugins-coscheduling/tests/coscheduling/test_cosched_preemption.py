"""Gang-aware preemption: Coscheduling as a `PreemptionVictimGuard` (kubesched; upstream
scheduler-plugins lets DefaultPreemption take a running gang below its quorum).

The rule is Volcano's gang `preemptableFn`: victims come least important first; a member
is a victim only while its group keeps more than minMember running members, each victim
allowed counting as gone. First the guard on its own (an Env: the plugin over a memory
cluster), then end to end with DefaultPreemption in the reference profile.
"""

from __future__ import annotations

from typing import Any

import pytest
from cosched_helpers import Env, Script, check_invariants, gang_pod, pod_group, run_defaults

from kubesched.api import Pod, PodCondition
from kubesched.framework import PodInfo, PreemptionVictimGuard
from kubesched.simulate import SimulationResult
from kubesched.testing import make_node
from kubesched_coscheduling import Coscheduling
from kubesched_coscheduling.coscheduling import protection_reason

VIP = 1000


def member(name: str, group: str | None, node: str | None = None, cpu: str = "1") -> Pod:
    pod = gang_pod(name, group, cpu=cpu)
    if node is None:
        return pod
    return pod.model_copy(update={"spec": pod.spec.model_copy(update={"node_name": node})})


def big_node(name: str = "n1") -> Any:
    return make_node(name).alloc(cpu="16", memory="8Gi", pods=32).obj()


def protected(env: Env, names: list[str], node: str = "n1") -> dict[str, str]:
    """Ask the guard about these pods (in this order, least important first); the answer
    keyed by pod name."""
    info = env.snapshot.get(node)
    assert info is not None
    by_name = {p.pod.metadata.name: p for p in info.pods}
    victims = [by_name[n] if n in by_name else PodInfo(env.pod(n)) for n in names]
    preemptor = gang_pod("vip", None, cpu="1", priority=VIP)
    got = env.plugin.protected_victims(preemptor, info, victims)
    uid_to_name = {v.pod.metadata.uid: v.pod.metadata.name for v in victims}
    return {uid_to_name[uid]: reason for uid, reason in got.items()}


def test_the_plugin_is_a_guard() -> None:
    assert issubclass(Coscheduling, PreemptionVictimGuard)


# (name, minMember, bound members on n1, victims asked about, want protected)
GUARD_CASES: list[tuple[str, int, int, list[str], list[str]]] = [
    ("a group at exactly minMember loses no member", 3, 3, ["m0", "m1", "m2"], ["m0", "m1", "m2"]),
    ("a group above minMember gives up its surplus, least important first", 3, 5,
     ["m4", "m3", "m2", "m1", "m0"], ["m2", "m1", "m0"]),
    ("a single surplus member asked about alone may go", 3, 4, ["m1"], []),
    ("minMember 1: the last member stays (Volcano's rule)", 1, 1, ["m0"], ["m0"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("min_member", "count", "asked", "want"),
    [c[1:] for c in GUARD_CASES],
    ids=[c[0] for c in GUARD_CASES],
)
def test_protected_victims(min_member: int, count: int, asked: list[str], want: list[str]) -> None:
    members = [member(f"m{i}", "pg", node="n1") for i in range(count)]
    env = Env([big_node(), pod_group("pg", min_member), *members])
    try:
        got = protected(env, asked)
        reason = protection_reason("default/pg", min_member)
        assert got == dict.fromkeys(want, reason)
    finally:
        env.close()


def test_reason_names_the_group_and_its_min_member() -> None:
    assert protection_reason("ml/resnet", 4) == (
        "node(s) had members of podGroup ml/resnet, which would fall below minMember 4 if preempted"
    )


def test_only_members_holding_the_quorum_are_protected() -> None:
    """Plain pods, pods of a missing PodGroup and members not bound (assumed by another
    profile, or waiting at Permit) are free; a member already marked DisruptionTarget
    does not count toward the quorum."""
    objects = [
        big_node(),
        pod_group("pg", 2),
        member("plain", None, node="n1"),
        member("orphan", "missing", node="n1"),
        member("a", "pg", node="n1"),
        member("b", "pg", node="n1"),
        member("pending", "pg"),
    ]
    env = Env(objects)
    try:
        env.assume(env.pod("pending"), "n1")
        assert protected(env, ["plain", "orphan", "pending", "a", "b"]) == {
            "a": protection_reason("default/pg", 2),
            "b": protection_reason("default/pg", 2),
        }
    finally:
        env.close()

    objects[4] = member("a", "pg", node="n1").model_copy(deep=True)
    objects[4].status.conditions.append(
        PodCondition(type="DisruptionTarget", status="True", reason="PreemptionByScheduler")
    )
    objects.append(member("c", "pg", node="n1"))
    env = Env(objects)
    try:
        # a, b, c bound but a is going: 2 count, none may go
        assert protected(env, ["b", "c"]) == dict.fromkeys(
            ["b", "c"], protection_reason("default/pg", 2)
        )
    finally:
        env.close()


def test_members_let_through_permit_count_while_binding() -> None:
    env = Env([big_node(), pod_group("pg", 2), member("a", "pg", node="n1"), member("b", "pg")])
    try:
        assumed = env.assume(env.pod("b"), "n1")
        env.plugin._members.let_through("default/pg", assumed)
        reason = protection_reason("default/pg", 2)
        assert protected(env, ["a", "b"]) == {"a": reason, "b": reason}
    finally:
        env.close()


def test_chosen_victims_count_as_gone_until_the_cluster_shows_it() -> None:
    members = [member(f"m{i}", "pg", node="n1") for i in range(4)]
    env = Env([big_node(), pod_group("pg", 3), *members])
    try:
        reason = protection_reason("default/pg", 3)
        assert protected(env, ["m0", "m1"]) == {"m1": reason}
        preemptor = gang_pod("vip", None, cpu="1", priority=VIP)
        env.plugin.victims_chosen(preemptor, "n1", [env.pod("m0")])
        # m0 still shows in the cluster and the snapshot, but is counted as gone
        assert protected(env, ["m1"]) == {"m1": reason}
        assert env.plugin._members.evicting == {members[0].metadata.uid}
        env.run(env.cluster.delete("Pod", "m0", "default"))
        env.cluster.flush()
        assert env.plugin._members.evicting == set()
        assert protected(env, ["m1"]) == {"m1": reason}
    finally:
        env.close()


def test_a_waiting_victim_is_not_remembered() -> None:
    env = Env([big_node(), pod_group("pg", 3), member("a", "pg", node="n1"), member("w", "pg")])
    try:
        preemptor = gang_pod("vip", None, cpu="1", priority=VIP)
        env.plugin.victims_chosen(preemptor, "n1", [env.pod("w"), gang_pod("plain", None)])
        assert env.plugin._members.evicting == set()
    finally:
        env.close()


# -- end to end: DefaultPreemption in the reference profile -----------------------------


def arrives(at: float, *pods: Pod) -> Script:
    async def create(cluster: Any) -> None:
        for pod in pods:
            await cluster.create(pod)

    return Script((at, create))


def by_name(result: SimulationResult) -> dict[str, Any]:
    return {p.name: p for p in result.pods}


def preempted(sim: Any) -> list[str]:
    return sorted(e.involved_name for e in sim.cluster.events() if e.reason == "Preempted")


def gang(min_member: int, count: int, cpu: str = "1") -> list[Any]:
    return [pod_group("g", min_member), *(gang_pod(f"g-{i}", "g", cpu=cpu) for i in range(count))]


def test_a_gang_at_min_member_is_not_preempted() -> None:
    vip = gang_pod("vip", None, cpu="1", priority=VIP)
    objects = [make_node("n1").alloc(cpu="3", memory="8Gi", pods=10).obj(), *gang(3, 3)]
    result, sim = run_defaults(objects, controllers=[arrives(10.0, vip)])
    pods = by_name(result)
    assert [pods[f"g-{i}"].status for i in range(3)] == ["Bound"] * 3
    assert pods["vip"].status == "Unschedulable"
    assert pods["vip"].message.startswith(
        "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
        "1 node(s) had members of podGroup default/g, which would fall below minMember 3 "
        "if preempted."
    )
    assert preempted(sim) == []
    check_invariants(sim)


@pytest.mark.parametrize(
    ("vip_cpu", "want_preempted", "vip_status"),
    [("1", ["g-0"], "Bound"), ("2", [], "Unschedulable")],
    ids=["one surplus member goes", "two would be one too many"],
)
def test_a_gang_above_min_member_gives_up_its_surplus_only(
    vip_cpu: str, want_preempted: list[str], vip_status: str
) -> None:
    vip = gang_pod("vip", None, cpu=vip_cpu, priority=VIP)
    objects = [make_node("n1").alloc(cpu="3", memory="8Gi", pods=10).obj(), *gang(2, 3)]
    result, sim = run_defaults(objects, controllers=[arrives(10.0, vip)])
    assert preempted(sim) == want_preempted
    assert by_name(result)["vip"].status == vip_status
    bound = [p for p in result.pods if p.name.startswith("g-") and p.status == "Bound"]
    assert len(bound) == 3 - len(want_preempted)
    check_invariants(sim)


def test_two_preemptors_in_a_row_take_one_surplus_member_between_them() -> None:
    """The second preemptor's cycle runs before the first one's eviction is seen: the
    victim chosen first already counts as gone (found by the property test)."""
    objects = [
        make_node("n0").alloc(cpu="1", memory="8Gi", pods=10).obj(),
        make_node("n1").alloc(cpu="4", memory="8Gi", pods=10).obj(),
        *gang(4, 5),
    ]
    plain = [gang_pod(f"plain-{i}", None, cpu="500m", priority=100) for i in range(2)]
    result, sim = run_defaults(objects, controllers=[arrives(60.0, *plain)])
    # one member, picked by both: the second preemptor's delete of a pod already
    # terminating changes nothing, but records its own Preempted event (as upstream)
    assert len(set(preempted(sim))) == 1
    assert [by_name(result)[p.metadata.name].status for p in plain] == ["Bound", "Bound"]
    check_invariants(sim)


def test_members_waiting_at_permit_are_no_protected_gang() -> None:
    """A gang still gathering at Permit is not running: a preemptor may take a waiting
    member, which rejects its siblings with it (nothing partial is left bound)."""
    objects = [
        make_node("n1").alloc(cpu="2", memory="8Gi", pods=10).obj(),
        pod_group("g", 3),
        gang_pod("g-0", "g", cpu="1", scheduler="elsewhere"),
        gang_pod("g-1", "g", cpu="1"),
        gang_pod("g-2", "g", cpu="1"),
    ]
    vip = gang_pod("vip", None, cpu="2", priority=VIP)
    result, sim = run_defaults(objects, controllers=[arrives(5.0, vip)])
    pods = by_name(result)
    assert pods["vip"].status == "Bound"
    assert pods["g-1"].status != "Bound" and pods["g-2"].status != "Bound"
    assert preempted(sim) == ["g-1", "g-2"]
    check_invariants(sim)
