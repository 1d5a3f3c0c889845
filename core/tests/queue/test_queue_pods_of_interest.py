"""A registration's `pods_of_interest`: an event that concerns a few pods is offered to
them only, and the hint is not called for the others."""

from __future__ import annotations

from typing import Any

from queue_builders import PV_ADD, fail, make_pod, make_queue, where

from kubesched.api import Pod
from kubesched.clock import VirtualClock
from kubesched.framework import ClusterEventWithHint, QueueingHint
from kubesched.queue import SchedulingQueue


def _parked_queue(
    hints: dict[str, list[ClusterEventWithHint]], rejectors: dict[str, tuple[str, ...]]
) -> tuple[SchedulingQueue, dict[str, str]]:
    """Pods named after `rejectors`' keys in the unschedulable pool; their uids by name."""
    q = make_queue(VirtualClock(), hints=hints)
    uids: dict[str, str] = {}
    for name, plugins in rejectors.items():
        q.add(make_pod(name))
        p = q.pop_nowait()
        assert p is not None
        uids[name] = p.uid
        fail(q, p, unschedulable=plugins)
        assert where(q, name) == "unschedulable"
    return q, uids


def test_only_the_pods_of_interest_are_offered_the_event() -> None:
    asked: list[str] = []

    def hint(pod: Pod, old: Any, new: Any) -> QueueingHint:
        asked.append(pod.metadata.name)
        return QueueingHint.Queue

    targets: set[str] = set()
    reg = ClusterEventWithHint(PV_ADD, hint, lambda old, new: targets)
    q, uids = _parked_queue({"Claims": [reg]}, {"a": ("Claims",), "b": ("Claims",)})
    targets.add(uids["b"])
    q.on_cluster_event(PV_ADD, None, None)
    assert asked == ["b"]
    assert (where(q, "a"), where(q, "b")) == ("unschedulable", "backoff")


def test_none_offers_the_event_to_every_pod() -> None:
    reg = ClusterEventWithHint(PV_ADD, lambda pod, old, new: QueueingHint.Queue, lambda o, n: None)
    q, _ = _parked_queue({"Claims": [reg]}, {"a": ("Claims",), "b": ("Claims",)})
    q.on_cluster_event(PV_ADD, None, None)
    assert (where(q, "a"), where(q, "b")) == ("backoff", "backoff")


def test_a_registration_without_them_offers_the_event_to_every_pod() -> None:
    targeted = ClusterEventWithHint(
        PV_ADD, lambda pod, old, new: QueueingHint.Queue, lambda old, new: set()
    )
    untargeted = ClusterEventWithHint(PV_ADD, lambda pod, old, new: QueueingHint.Queue)
    q, _ = _parked_queue(
        {"Claims": [targeted], "Other": [untargeted]}, {"a": ("Claims",), "b": ("Other",)}
    )
    q.on_cluster_event(PV_ADD, None, None)
    # the pod rejected by Claims alone still gets Claims' hint: its answer decides
    assert (where(q, "a"), where(q, "b")) == ("backoff", "backoff")
