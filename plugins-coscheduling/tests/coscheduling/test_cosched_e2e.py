"""End to end: the real scheduler on the embedded cluster, on virtual time, with the
builtin plugins and Coscheduling in the reference profile (multiPoint, sole queueSort).

After every run: no node over-committed, no PodGroup bound below its quorum, no pod left
waiting at Permit (`check_invariants`). The integration cases of scheduler-plugins
(test/integration/coscheduling_test.go: a 300-unit-memory node, PodGroups with
scheduleTimeoutSeconds 10, permitWaitingTimeSeconds 3) are mirrored first.
"""

from __future__ import annotations

from typing import Any

import pytest
from cosched_helpers import (
    FakeKubelet,
    Script,
    check_invariants,
    gang_pod,
    pod_group,
    run,
    run_defaults,
)

from kubesched.api import Pod
from kubesched.simulate import SimulationResult
from kubesched.testing import make_node, make_pod
from kubesched_coscheduling import POD_GROUP_LABEL

MID, HIGH = 100, 1000


def outcome(result: SimulationResult) -> dict[str, tuple[str, str | None]]:
    return {p.name: (p.status, p.node) for p in result.pods}


def bound(result: SimulationResult) -> list[str]:
    """Pods placed on a node: still bound, or bound and since finished (FakeKubelet)."""
    return sorted(p.name for p in result.pods if p.status in ("Bound", "Succeeded", "Failed"))


def events(sim: Any, reason: str = "FailedScheduling") -> list[tuple[float, str, str]]:
    return [
        (e.timestamp, e.involved_name, e.message)
        for e in sim.cluster.events()
        if e.reason == reason
    ]


def condition(sim: Any, name: str, namespace: str = "default") -> tuple[str, str, str]:
    pg = sim.cluster.get("PodGroup", name, namespace)
    c = pg.status.condition("Scheduled")
    assert c is not None, pg.status
    return c.status, c.reason, c.message


def node(name: str, cpu: str = "4", memory: str = "8Gi", pods: int = 32) -> Any:
    return make_node(name).alloc(cpu=cpu, memory=memory, pods=pods).obj()


# -- scheduler-plugins integration cases ---------------------------------------------


def mem_pod(name: str, group: str | None, memory: str, priority: int) -> Pod:
    return gang_pod(name, group, memory=memory, priority=priority)


INTEGRATION = [
    (
        "equal priority, sequentially pg1 meet min and pg2 not meet min",
        [("t1-p1-1", "pg1-1", "50"), ("t1-p1-2", "pg1-1", "50"), ("t1-p1-3", "pg1-1", "50")]
        + [(f"t1-p2-{i}", "pg1-2", "100") for i in range(1, 5)],
        {"pg1-1": 3, "pg1-2": 4},
        ["t1-p1-1", "t1-p1-2", "t1-p1-3"],
    ),
    (
        "equal priority, not sequentially pg1 meet min and pg2 not meet min",
        [
            ("t2-p1-1", "pg2-1", "50"),
            ("t2-p2-1", "pg2-2", "100"),
            ("t2-p1-2", "pg2-1", "50"),
            ("t2-p2-2", "pg2-2", "100"),
            ("t2-p1-3", "pg2-1", "50"),
            ("t2-p2-3", "pg2-2", "100"),
            ("t2-p2-4", "pg2-2", "100"),
        ],
        {"pg2-1": 3, "pg2-2": 4},
        ["t2-p1-1", "t2-p1-2", "t2-p1-3"],
    ),
    (
        "equal priority, not sequentially pg1 not meet min and 3 regular pods",
        [
            ("t3-p1-1", "pg3-1", "50"),
            ("t3-p2", None, "100"),
            ("t3-p1-2", "pg3-1", "50"),
            ("t3-p3", None, "100"),
            ("t3-p1-3", "pg3-1", "50"),
        ],
        {"pg3-1": 4},
        ["t3-p2", "t3-p3"],
    ),
]


@pytest.mark.parametrize(
    ("pods", "groups", "expected"),
    [c[1:] for c in INTEGRATION],
    ids=[c[0] for c in INTEGRATION],
)
def test_integration_cases(
    pods: list[tuple[str, str | None, str]], groups: dict[str, int], expected: list[str]
) -> None:
    objects: list[Any] = [make_node("fake-node").alloc(memory="300", pods=32).obj()]
    objects += [pod_group(name, m, timeout=10) for name, m in groups.items()]
    objects += [mem_pod(name, g, mem, MID) for name, g, mem in pods]
    result, sim = run(objects, args={"permitWaitingTimeSeconds": 3})
    assert bound(result) == sorted(expected)
    check_invariants(sim)


def test_different_priority_the_higher_gang_wins() -> None:
    """t4/t5: pg-high (priority 1000) fits, pg-mid then does not."""
    objects: list[Any] = [make_node("fake-node").alloc(memory="300", pods=32).obj()]
    objects += [pod_group("pg4-1", 3, timeout=10), pod_group("pg4-2", 3, timeout=10)]
    objects += [mem_pod(f"t4-p1-{i}", "pg4-1", "100", MID) for i in (1, 2, 3)]
    objects += [mem_pod(f"t4-p2-{i}", "pg4-2", "50", HIGH) for i in (1, 2, 3)]
    result, sim = run(objects, args={"permitWaitingTimeSeconds": 3})
    assert bound(result) == ["t4-p2-1", "t4-p2-2", "t4-p2-3"]
    check_invariants(sim)


# -- kubesched scenarios ---------------------------------------------------------------


def test_a_gang_that_fits() -> None:
    objects = [node("n1"), node("n2"), pod_group("pg", 6)]
    objects += [gang_pod(f"w-{i}", "pg", cpu="1") for i in range(6)]
    result, sim = run(objects)
    assert bound(result) == [f"w-{i}" for i in range(6)]
    assert all(p.attempts == 1 for p in result.pods)
    assert condition(sim, "pg") == ("True", "QuorumReached", "6 members passed Permit together")
    assert sim.cluster.get("PodGroup", "pg", "default").status.phase == "Scheduled"
    check_invariants(sim)


def test_a_gang_larger_than_the_cluster_holds_nothing() -> None:
    objects = [node("n1"), node("n2"), pod_group("big", 10)]
    objects += [gang_pod(f"b-{i:02}", "big", cpu="1") for i in range(10)]
    objects.append(gang_pod("plain", None, cpu="1"))
    result, sim = run(objects)
    assert bound(result) == ["plain"]
    reason = (
        "podGroup default/big needs 10 more members placed together; only 8 fit "
        "(pod b-08: 2 Insufficient cpu)"
    )
    for p in result.pods:
        if p.name != "plain":
            assert p.status == "Unschedulable"
            assert p.message.startswith(f"0/2 nodes are available: {reason}.")
    assert condition(sim, "big") == ("False", "Unschedulable", reason)
    assert [(t, n) for t, n, _ in events(sim, "Scheduled")] == [(0.0, "plain")]
    check_invariants(sim)


def test_two_gangs_that_fit_alone_but_not_together() -> None:
    """Exactly one binds fully, the other binds nothing; it retries (and binds) once the
    first one's pods have finished."""
    objects = [node("n1"), node("n2"), pod_group("a", 6), pod_group("b", 6)]
    objects += [gang_pod(f"a-{i}", "a", cpu="1") for i in range(6)]
    objects += [gang_pod(f"b-{i}", "b", cpu="1") for i in range(6)]
    result, sim = run(objects, controllers=[FakeKubelet(start=1.0, run=30.0)])
    assert bound(result) == sorted([f"a-{i}" for i in range(6)] + [f"b-{i}" for i in range(6)])
    scheduled = {name: t for t, name, _ in events(sim, "Scheduled")}
    assert {scheduled[f"a-{i}"] for i in range(6)} == {0.0}
    # b binds only after a's pods succeeded (bound at 0, running at 1, done at 31)
    assert {scheduled[f"b-{i}"] for i in range(6)} == {31.0}
    assert all(t == 0.0 for t, name, _ in events(sim) if name.startswith("b-"))
    check_invariants(sim)


def test_two_gangs_without_a_kubelet_one_binds_the_other_stays_whole() -> None:
    objects = [node("n1"), node("n2"), pod_group("a", 6), pod_group("b", 6)]
    objects += [gang_pod(f"b-{i}", "b", cpu="1") for i in range(6)]
    objects += [gang_pod(f"a-{i}", "a", cpu="1") for i in range(6)]
    result, sim = run(objects)
    assert bound(result) == [f"a-{i}" for i in range(6)]
    assert {p.status for p in result.pods if p.name.startswith("b-")} == {"Unschedulable"}
    check_invariants(sim)


def test_no_deadlock_a_second_gang_waits_for_the_holder_instead_of_taking_half() -> None:
    """Gang a holds members at Permit while its third member (another scheduler's) never
    comes; gang b fits alone, but not beside a. b does not hold anything meanwhile: it
    waits for a's reservation, takes the whole space when a times out, and binds."""
    objects = [node("n1", cpu="4"), pod_group("a", 3, timeout=10), pod_group("b", 2)]
    objects += [gang_pod("a-0", "a", cpu="2"), gang_pod("a-1", "a", cpu="2")]
    objects.append(gang_pod("a-2", "a", cpu="1", scheduler="elsewhere"))
    objects += [gang_pod("b-0", "b", cpu="2"), gang_pod("b-1", "b", cpu="2")]
    result, sim = run(objects)
    assert bound(result) == ["b-0", "b-1"]
    scheduled = {name: t for t, name, _ in events(sim, "Scheduled")}
    assert scheduled == {"b-0": 10.0, "b-1": 10.0}
    first_b = [m for t, n, m in events(sim) if n == "b-0" and t == 0.0]
    assert (
        first_b and "podGroup default/b waits for its turn: podGroup default/a holds" in first_b[0]
    )
    check_invariants(sim)
    # while a holds its members, both PodGroups say so
    _, during = run(objects, until=5.0)
    assert condition(during, "a") == (
        "False",
        "WaitingForQuorum",
        "members wait at Permit for 3 of them to be placed",
    )
    assert condition(during, "b") == (
        "False",
        "WaitingForReservation",
        "podGroup default/b waits for its turn: podGroup default/a holds members waiting at Permit",
    )
    check_invariants(during, waiting_allowed=True)


def test_members_arriving_after_the_group_timeout_still_bind() -> None:
    """Members are held before the queue until the group has enough of them: nobody waits
    at Permit, so nothing times out, however late the last member comes."""

    async def last_member(cluster: Any) -> None:
        await cluster.create(gang_pod("w-2", "pg", cpu="1"))

    objects = [node("n1"), pod_group("pg", 3, timeout=10)]
    objects += [gang_pod("w-0", "pg", cpu="1"), gang_pod("w-1", "pg", cpu="1")]
    early, sim = run(objects, controllers=[Script((30.0, last_member))], until=20.0)
    assert {p.name: (p.status, p.message) for p in early.pods} == {
        name: (
            "Pending",
            "podGroup default/pg has 2 of the 3 live, ungated members it needs (minMember)",
        )
        for name in ("w-0", "w-1")
    }
    result, sim = run(objects, controllers=[Script((30.0, last_member))])
    assert bound(result) == ["w-0", "w-1", "w-2"]
    assert {t for t, _, _ in events(sim, "Scheduled")} == {30.0}
    assert events(sim) == []  # no failed attempt, no timeout
    check_invariants(sim)


def test_a_member_deleted_while_siblings_wait_rejects_them_at_once() -> None:
    async def delete_holdout(cluster: Any) -> None:
        await cluster.delete("Pod", "w-2", "default")

    objects = [node("n1"), pod_group("pg", 3)]  # the default wait is 60 s
    objects += [gang_pod("w-0", "pg", cpu="1"), gang_pod("w-1", "pg", cpu="1")]
    objects.append(gang_pod("w-2", "pg", cpu="1", scheduler="elsewhere"))
    result, sim = run(objects, controllers=[Script((5.0, delete_holdout))])
    assert bound(result) == []
    failures = events(sim)
    assert [(t, n) for t, n, _ in failures] == [(5.0, "w-0"), (5.0, "w-1")]
    assert all(
        "podGroup default/pg lost member w-2: 2 live members left, minMember 3" in m
        for _, _, m in failures
    )
    assert {p.name: p.message for p in result.pods if p.name != "w-2"} == {
        "w-0": "podGroup default/pg has 2 of the 3 live, ungated members it needs (minMember)",
        "w-1": "podGroup default/pg has 2 of the 3 live, ungated members it needs (minMember)",
    }
    check_invariants(sim)


def test_permit_timeout_backoff_and_retry() -> None:
    """The holdout belongs to another scheduler. The group times out at 10 and, as only
    that member was missing, waits for its members to change; the holdout changes at 10.5,
    during the 1 s backoff, so the group retries at 11, times out at 21, backs off 2 s (the
    holdout changes again at 21.5) and retries at 23. When the other scheduler binds the
    holdout at 30, the waiting members are let through at once."""

    async def touch(cluster: Any) -> None:
        pod = cluster.get("Pod", "w-2", "default")
        labels = {**pod.metadata.labels, "touched": str(cluster.clock.now())}
        meta = pod.metadata.model_copy(update={"labels": labels})
        await cluster.update(pod.model_copy(update={"metadata": meta}))

    async def bind_holdout(cluster: Any) -> None:
        await cluster.bind(cluster.get("Pod", "w-2", "default"), "n1")

    objects = [node("n1"), pod_group("pg", 3, timeout=10)]
    objects += [gang_pod("w-0", "pg", cpu="1"), gang_pod("w-1", "pg", cpu="1")]
    objects.append(gang_pod("w-2", "pg", cpu="1", scheduler="elsewhere"))
    script = Script((10.5, touch), (21.5, touch), (30.0, bind_holdout))
    result, sim = run(objects, controllers=[script])
    assert bound(result) == ["w-0", "w-1", "w-2"]
    timeouts = sorted({t for t, _, m in events(sim) if "timeout after waiting 10s" in m})
    assert timeouts == [10.0, 21.0]
    assert {t for t, n, _ in events(sim, "Scheduled")} == {30.0}
    attempts = {p.name: p.attempts for p in result.pods}
    assert attempts == {"w-0": 3, "w-1": 3, "w-2": 0}
    assert condition(sim, "pg")[:2] == ("True", "QuorumReached")
    check_invariants(sim)


def test_a_timed_out_group_retries_when_its_member_arrives() -> None:
    """Without a change of its members the group does not retry (a retry would time out
    the same way); the holdout bound at 30 wakes it, long after its backoff."""

    async def bind_holdout(cluster: Any) -> None:
        await cluster.bind(cluster.get("Pod", "w-2", "default"), "n1")

    objects = [node("n1"), pod_group("pg", 3, timeout=10)]
    objects += [gang_pod("w-0", "pg", cpu="1"), gang_pod("w-1", "pg", cpu="1")]
    objects.append(gang_pod("w-2", "pg", cpu="1", scheduler="elsewhere"))
    early, _ = run(objects, controllers=[Script((30.0, bind_holdout))], until=20.0)
    assert {p.name: p.message for p in early.pods if p.name != "w-2"} == {
        name: "podGroup default/pg failed recently (the quorum was not reached within 10s); "
        "it retries when its members or its PodGroup change"
        for name in ("w-0", "w-1")
    }
    result, sim = run(objects, controllers=[Script((30.0, bind_holdout))])
    assert bound(result) == ["w-0", "w-1", "w-2"]
    assert {t for t, n, _ in events(sim, "Scheduled")} == {30.0}
    assert {p.name: p.attempts for p in result.pods} == {"w-0": 2, "w-1": 2, "w-2": 0}
    check_invariants(sim)


def test_a_group_that_cannot_make_progress_lets_the_simulation_end() -> None:
    objects = [node("n1"), pod_group("pg", 3, timeout=10)]
    objects += [gang_pod("w-0", "pg", cpu="1"), gang_pod("w-1", "pg", cpu="1")]
    objects.append(gang_pod("w-2", "pg", cpu="1", scheduler="elsewhere"))
    result, sim = run(objects)
    assert result.virtual_seconds == 10.0
    assert {p.name: p.status for p in result.pods} == {
        "w-0": "Pending",
        "w-1": "Pending",
        "w-2": "Pending",
    }
    assert condition(sim, "pg") == (
        "False",
        "BackingOff",
        "the quorum was not reached within 10s; the group retries together",
    )
    check_invariants(sim)


def test_elastic_members_beyond_min_member() -> None:
    objects = [node("n1", cpu="3"), pod_group("pg", 2)]
    objects += [gang_pod(f"w-{i}", "pg", cpu="1") for i in range(4)]
    result, sim = run(objects)
    assert bound(result) == ["w-0", "w-1", "w-2"]
    extra = next(p for p in result.pods if p.name == "w-3")
    assert extra.status == "Unschedulable"
    assert extra.message == "0/1 nodes are available: 1 Insufficient cpu."
    assert condition(sim, "pg")[:2] == ("True", "QuorumReached")
    check_invariants(sim)


def test_a_group_created_after_its_members() -> None:
    async def create_group(cluster: Any) -> None:
        await cluster.create(pod_group("late", 2))

    objects: list[Any] = [
        node("n1"),
        gang_pod("w-0", "late", cpu="1"),
        gang_pod("w-1", "late", cpu="1"),
    ]
    result, sim = run(objects, controllers=[Script((7.0, create_group))])
    assert bound(result) == ["w-0", "w-1"]
    assert {t for t, _, _ in events(sim, "Scheduled")} == {7.0}
    assert events(sim) == []
    check_invariants(sim)


def test_lowering_min_member_releases_waiting_members() -> None:
    async def lower(cluster: Any) -> None:
        pg = cluster.get("PodGroup", "pg", "default")
        spec = pg.spec.model_copy(update={"min_member": 2})
        await cluster.update(pg.model_copy(update={"spec": spec}))

    objects = [node("n1"), pod_group("pg", 3)]
    objects += [gang_pod("w-0", "pg", cpu="1"), gang_pod("w-1", "pg", cpu="1")]
    objects.append(gang_pod("w-2", "pg", cpu="1", scheduler="elsewhere"))
    result, sim = run(objects, controllers=[Script((5.0, lower))])
    assert bound(result) == ["w-0", "w-1"]
    assert {t for t, _, _ in events(sim, "Scheduled")} == {5.0}
    check_invariants(sim)


def test_misconfigured_profile_is_reported() -> None:
    from cosched_helpers import gang_config

    from kubesched import ConfigError

    config = gang_config(extra_points={"reserve": {"disabled": [{"name": "Coscheduling"}]}})
    with pytest.raises(ConfigError, match="Coscheduling is enabled at permit but not at reserve"):
        run([node("n1")], config=config)


def test_postfilter_enabled_explicitly_before_preemption_is_reported() -> None:
    """Plugins enabled at a point are placed before the multiPoint ones (upstream
    expandMultiPointPlugins), so naming Coscheduling under postFilter puts it before
    DefaultPreemption: an error, not a silently different gang failure path."""
    import copy

    from cosched_helpers import REFERENCE_CONFIG

    from kubesched import ConfigError
    from kubesched.config import parse_config, resolve
    from kubesched.runtime import PluginRegistry
    from kubesched.simulate import Simulation

    config = copy.deepcopy(REFERENCE_CONFIG)
    config["profiles"][0]["plugins"]["postFilter"] = {"enabled": [{"name": "Coscheduling"}]}
    registry = PluginRegistry.discover()
    resolved = resolve(parse_config(config), registry)
    assert resolved.profiles[0].points["PostFilter"] == ["Coscheduling", "DefaultPreemption"]
    with pytest.raises(ConfigError, match="but DefaultPreemption runs after it"):
        Simulation([node("n1")], resolved, registry).run()


@pytest.mark.parametrize(("limit", "wasted_attempts"), [(1, 0), (0, 1)])
def test_interleaved_gangs_take_turns(limit: int, wasted_attempts: int) -> None:
    """Two gangs whose members alternate in the queue (same creation time, names p0-a,
    p0-b, p1-a ...), room for one gang only. With one reservation slot (the default) the
    first gang completes while the second waits its turn without holding anything; with
    no limit both start holding, and one of them must fail after holding (the anchor's
    livelock, cut short here by packing)."""
    objects = [node("n1", cpu="4"), pod_group("a", 3), pod_group("b", 3)]
    objects += [gang_pod(f"p{i}-{g}", g, cpu="1") for i in range(3) for g in "ab"]
    result, sim = run(objects, args={"maxWaitingPodGroups": limit})
    winners = {
        g for g in "ab" if all(p.status == "Bound" for p in result.pods if p.name.endswith(g))
    }
    losers = {
        g for g in "ab" if all(p.status != "Bound" for p in result.pods if p.name.endswith(g))
    }
    assert len(winners) == 1 and len(losers) == 1
    held_then_failed = [m for _, _, m in events(sim) if "rejection in" in m]
    assert len({m for m in held_then_failed}) == wasted_attempts
    if limit == 1:
        assert winners == {"a"}
        # b's members turned away for want of a slot were tried again once a's freed
        for p in result.pods:
            if p.name.endswith("b"):
                assert "podGroup default/b needs 3 more members placed together" in p.message
    check_invariants(sim)


def test_packing_honours_anti_affinity_between_members_with_the_default_plugins() -> None:
    """With every default plugin (InterPodAffinity, DefaultPreemption ...): members that
    must not share a node are packed one per node, through the PreFilter extensions; a
    gang needing more nodes than exist is rejected whole, and preemption does not help."""

    def member(name: str, group: str) -> Pod:
        anti = {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": {"matchLabels": {"app": group}},
                        "topologyKey": "kubernetes.io/hostname",
                    }
                ]
            }
        }
        b = make_pod(name, "default", uid=name).label(**{POD_GROUP_LABEL: group, "app": group})
        return b.req(cpu="1").spec(affinity=anti).obj()

    nodes = [
        make_node(f"n{i}")
        .alloc(cpu="8", memory="8Gi", pods=10)
        .label(**{"kubernetes.io/hostname": f"n{i}"})
        .obj()
        for i in range(3)
    ]
    objects: list[Any] = [*nodes, pod_group("three", 3), pod_group("four", 4)]
    objects += [member(f"t-{i}", "three") for i in range(3)]
    objects += [member(f"f-{i}", "four") for i in range(4)]
    result, sim = run_defaults(objects)
    assert {p.name: p.node for p in result.pods if p.status == "Bound"} == {
        "t-0": "n0",
        "t-1": "n1",
        "t-2": "n2",
    }
    for p in result.pods:
        if p.name.startswith("f-"):
            assert p.message.startswith(
                "0/3 nodes are available: podGroup default/four needs 4 more members placed "
                "together; only 3 fit (pod f-3: 3 node(s) didn't match pod anti-affinity rules)."
            )
    check_invariants(sim)
