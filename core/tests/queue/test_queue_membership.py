"""Activate, delete, introspection and the nominator (sections 2.2 and 2.6)."""

from __future__ import annotations

import pytest
from queue_builders import NODE_ADD, LabelGate, fail, make_pod, make_queue, where, with_changes

from kubesched.clock import VirtualClock
from kubesched.framework import NominatingInfo, NominatingMode, PodInfo
from kubesched.queue import SchedulingQueue


def _queue_with_a_in(place: str, clock: VirtualClock) -> SchedulingQueue:
    q = make_queue(clock)
    q.add(make_pod("a"))
    if place == "active":
        return q
    p = q.pop_nowait()
    assert p is not None
    if place == "backoff":
        fail(q, p)
    elif place == "unschedulable":
        fail(q, p, unschedulable=["Silent"])
    assert where(q, "a") == place
    return q


@pytest.mark.parametrize("place", ["backoff", "unschedulable"])
def test_activate_moves_pod_to_active(place: str) -> None:
    clock = VirtualClock()
    q = _queue_with_a_in(place, clock)
    q.activate([make_pod("a"), make_pod("unknown")])
    assert where(q, "a") == "active"
    assert len(q) == 1


def test_activate_keeps_gated_pod_in_pool() -> None:
    clock = VirtualClock()
    q = make_queue(clock, pre_enqueue=[LabelGate()])
    q.add(make_pod("a", labels={"hold": "yes"}))
    q.activate([make_pod("a")])
    assert where(q, "a") == "unschedulable"


def test_activate_of_in_flight_pod_requeues_it_after_failure() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    q.add(make_pod("a"))
    q.add(make_pod("b"))
    a, b = q.pop_nowait(), q.pop_nowait()
    assert a is not None and b is not None
    q.activate([a.pod])
    fail(q, b, unschedulable=["Silent"])  # ForceActivate was for a, not for b
    fail(q, a, unschedulable=["Silent"])
    assert (where(q, "a"), where(q, "b")) == ("backoff", "unschedulable")


@pytest.mark.parametrize("place", ["active", "backoff", "unschedulable"])
def test_delete_removes_pod_wherever_it_waits(place: str) -> None:
    clock = VirtualClock()
    q = _queue_with_a_in(place, clock)
    q.delete(make_pod("a"))
    assert len(q) == 0
    assert q.pending_pods() == {"active": [], "backoff": [], "unschedulable": []}
    assert q.next_wakeup() is None
    clock.advance(1000)
    assert q.pop_nowait() is None


def test_update_of_unknown_pod_adds_it() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    pod = make_pod("a")
    q.update(pod, with_changes(pod, labels={"x": "y"}))
    assert where(q, "a") == "active"


def test_len_and_is_idle() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    assert q.is_idle() and len(q) == 0
    q.add(make_pod("a"))
    q.add(make_pod("b"))
    assert len(q) == 2 and not q.is_idle()
    a, b = q.pop_nowait(), q.pop_nowait()
    assert a is not None and b is not None
    fail(q, a, unschedulable=["Silent"])
    assert len(q) == 1 and not q.is_idle()  # b still in flight
    q.done(b.uid)
    assert q.is_idle()  # only the pool holds a pod
    q.on_cluster_event(NODE_ADD, None, {"labels": {"big": ""}})  # Silent registered nothing
    assert q.is_idle()


def test_closed_queue_pops_nothing() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    q.add(make_pod("a"))
    q.close()
    assert q.pop_nowait() is None


@pytest.mark.parametrize(
    ("initial", "maximum", "stay"), [(0.0, 10.0, 300.0), (2.0, 1.0, 300.0), (1.0, 10.0, 0.0)]
)
def test_invalid_settings_are_rejected(initial: float, maximum: float, stay: float) -> None:
    with pytest.raises(ValueError):
        SchedulingQueue(VirtualClock(), lambda a, b: False, {}, initial, maximum, stay)


# -- nominator -------------------------------------------------------------------------------
def _names(infos: list[PodInfo]) -> list[str]:
    return [i.pod.metadata.name for i in infos]


def test_nominator_override_noop_and_delete() -> None:
    q = make_queue(VirtualClock())
    a, b = PodInfo(make_pod("a")), PodInfo(make_pod("b", nominated="n2"))
    q.add_nominated_pod(a, NominatingInfo("n1", NominatingMode.Override))
    q.add_nominated_pod(b, None)  # Noop: status.nominatedNodeName
    assert _names(q.nominated_pods_for_node("n1")) == ["a"]
    assert _names(q.nominated_pods_for_node("n2")) == ["b"]

    q.add_nominated_pod(a, NominatingInfo("n2", NominatingMode.Override))  # moves, no duplicate
    assert q.nominated_pods_for_node("n1") == []
    assert _names(q.nominated_pods_for_node("n2")) == ["b", "a"]

    q.add_nominated_pod(a, NominatingInfo("", NominatingMode.Override))  # empty clears
    assert _names(q.nominated_pods_for_node("n2")) == ["b"]

    q.delete_nominated_pod_if_exists(b.pod)
    assert q.nominated_pods_for_node("n2") == []


def test_nominator_ignores_bound_and_unnominated_pods() -> None:
    q = make_queue(VirtualClock())
    q.add_nominated_pod(PodInfo(make_pod("bound", node="n1")), NominatingInfo("n1"))
    q.add_nominated_pod(PodInfo(make_pod("plain")), NominatingInfo("x", NominatingMode.Noop))
    assert q.nominated_pods_for_node("n1") == [] and q.nominated_pods_for_node("x") == []


def test_nominated_pods_for_node_returns_a_copy() -> None:
    q = make_queue(VirtualClock())
    q.add_nominated_pod(PodInfo(make_pod("a")), NominatingInfo("n1"))
    q.nominated_pods_for_node("n1").clear()
    assert _names(q.nominated_pods_for_node("n1")) == ["a"]


def test_nominated_pods_are_listed_by_node_and_a_changed_node_gets_a_new_list() -> None:
    q = make_queue(VirtualClock())
    a, b = PodInfo(make_pod("a")), PodInfo(make_pod("b"))
    q.add_nominated_pod(a, NominatingInfo("n1"))
    assert set(q.nodes_with_nominated_pods()) == {"n1"}
    before = q.nominated_pods_by_node()["n1"]
    q.add_nominated_pod(b, NominatingInfo("n1"))
    after = q.nominated_pods_by_node()["n1"]
    # a reader may key on the list object: the old one is left as it was
    assert after is not before and _names(list(before)) == ["a"]
    assert _names(list(after)) == ["a", "b"]
    q.delete_nominated_pod_if_exists(a.pod)
    assert _names(list(q.nominated_pods_by_node()["n1"])) == ["b"]
    assert _names(list(after)) == ["a", "b"]
    q.delete_nominated_pod_if_exists(b.pod)
    assert dict(q.nominated_pods_by_node()) == {} and not q.nodes_with_nominated_pods()


def test_update_nominated_pod() -> None:
    q = make_queue(VirtualClock())
    old = make_pod("a")
    q.add_nominated_pod(PodInfo(old), NominatingInfo("n1"))  # in memory (preemption)
    new = with_changes(old, labels={"v": "2"})
    q.update_nominated_pod(old, PodInfo(new))  # neither carries a name: keep n1
    (kept,) = q.nominated_pods_for_node("n1")
    assert kept.pod is new

    newer = with_changes(new, nominated="n3")
    q.update_nominated_pod(new, PodInfo(newer))  # the API object now says n3
    assert q.nominated_pods_for_node("n1") == []
    assert _names(q.nominated_pods_for_node("n3")) == ["a"]

    cleared = with_changes(newer, nominated="")
    q.update_nominated_pod(newer, PodInfo(cleared))  # name removed: nomination removed
    assert q.nominated_pods_for_node("n3") == []


def test_queue_add_update_delete_maintain_nominations() -> None:
    clock = VirtualClock()
    q = make_queue(clock)
    pod = make_pod("a", nominated="n1")
    q.add(pod)
    assert _names(q.nominated_pods_for_node("n1")) == ["a"]
    moved = with_changes(pod, nominated="n2")
    q.update(pod, moved)
    assert _names(q.nominated_pods_for_node("n2")) == ["a"]
    assert q.nominated_pods_for_node("n1") == []
    q.delete(moved)
    assert q.nominated_pods_for_node("n2") == []
