"""The informer a fault plan puts between the memory cluster and the scheduler
(`_faults_inject._Informer`): after a relist it hands on events as client-go's informer
does. Regression: a pod deleted while its DELETED event was still queued was deleted by
the relist, then again by the queued event (the scheduler cache logged `pod ... is not
found in scheduler cache`; found by the soak)."""

from __future__ import annotations

import asyncio
from typing import Any

from kubesched.clock import VirtualClock
from kubesched.cluster import WatchEvent
from kubesched.cluster.memory import MemoryCluster, default_kinds
from kubesched.runtime import make_plugin_manager
from kubesched.simulate._faults import parse_fault_plan
from kubesched.simulate._faults_inject import FaultInjector, FaultyCluster
from kubesched.testing import make_pod


def informer(
    fault: dict[str, Any] | None = None,
) -> tuple[MemoryCluster, FaultyCluster, list[tuple[str, str]]]:
    """The memory cluster, the scheduler's view of it with `fault` (none: a relist that
    never fires by itself) and the events its Pod watch hands on."""
    fault = fault or {"relist": {"kinds": ["Pod"]}, "probability": 0}
    doc = {"apiVersion": "simulation.kubesched.io/v1alpha1", "kind": "FaultPlan", "faults": [fault]}
    plan = parse_fault_plan(doc)
    clock = VirtualClock()
    memory = MemoryCluster(default_kinds(make_plugin_manager(load_entrypoints=False)), clock)
    faulty = FaultyCluster(memory, FaultInjector(plan, clock, 0))
    seen: list[tuple[str, str]] = []

    def handler(ev: WatchEvent) -> None:
        seen.append((ev.type, ev.obj.metadata.name))

    faulty.watch("Pod", handler)
    return memory, faulty, seen


def test_a_delete_the_relist_delivered_is_not_delivered_again() -> None:
    memory, faulty, seen = informer()

    async def scenario() -> None:
        await memory.create(make_pod("a").uid("").obj())
        memory.flush()
        await memory.delete("Pod", "a", "default")  # its DELETED is queued, not delivered
        (pods,) = faulty.informers
        pods.relist()
        memory.flush()

    asyncio.run(scenario())
    assert seen == [("ADDED", "a"), ("DELETED", "a")]


def test_events_older_than_the_relist_are_stale_and_later_ones_are_not() -> None:
    memory, faulty, seen = informer()

    async def scenario() -> None:
        pod = await memory.create(make_pod("a").uid("").obj())
        memory.flush()
        labelled = pod.model_copy(
            update={"metadata": pod.metadata.model_copy(update={"labels": {"x": "1"}})}
        )
        await memory.update(labelled)  # queued
        (pods,) = faulty.informers
        pods.relist()  # covers the update
        memory.flush()
        await memory.delete("Pod", "a", "default")
        await memory.create(make_pod("b").uid("").obj())
        memory.flush()

    asyncio.run(scenario())
    assert seen == [
        ("ADDED", "a"),
        ("MODIFIED", "a"),  # the relist's update
        ("DELETED", "a"),
        ("ADDED", "b"),
    ]


def test_an_update_of_an_object_the_informer_never_saw_is_an_add() -> None:
    drop = {"watch": {"kind": "Pod", "action": "Drop", "eventType": "ADDED"}, "times": 1}
    memory, _, seen = informer(drop)

    async def scenario() -> None:
        pod = await memory.create(make_pod("a").uid("").obj())  # its ADDED is dropped
        memory.flush()
        meta = pod.metadata.model_copy(update={"labels": {"x": "1"}})
        await memory.update(pod.model_copy(update={"metadata": meta}))
        memory.flush()

    asyncio.run(scenario())
    # client-go's processDeltas: an update of what the store has not is an add
    assert seen == [("ADDED", "a")]


def test_a_dropped_event_is_lost_to_every_handler_of_its_kind() -> None:
    """One watch per kind, as client-go's shared informers: a plugin's handler and the
    scheduler's lose the same event (regression: each handler's draw was its own, so a
    `times: 1` drop hit one handler and the other still scheduled the pod)."""
    drop = {"watch": {"kind": "Pod", "action": "Drop", "eventType": "ADDED"}, "times": 1}
    memory, faulty, seen = informer(drop)
    other: list[str] = []
    faulty.watch("Pod", lambda ev: other.append(ev.type))

    async def scenario() -> None:
        await memory.create(make_pod("a").uid("").obj())
        await memory.create(make_pod("b").uid("").obj())
        memory.flush()

    asyncio.run(scenario())
    assert seen == [("ADDED", "b")]
    assert other == ["ADDED"]
