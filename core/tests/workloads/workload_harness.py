"""An embedded cluster with the workload controllers on virtual time, and no scheduler: tests
bind pods themselves (`bind_all`) and let the controllers react (`settle`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import yaml

from kubesched.api import K8sModel, Pod
from kubesched.clock import VirtualClock, VirtualTimeLoop
from kubesched.cluster.memory import MemoryCluster, default_kinds
from kubesched.runtime import make_plugin_manager
from kubesched.workloads import GarbageCollector, hooks, register

T = TypeVar("T")


def new_cluster(
    seed: int = 0, *, entrypoints: bool = False, pod_gc: bool = False
) -> tuple[MemoryCluster, VirtualTimeLoop]:
    """A memory cluster whose kinds include the workloads (and, with `entrypoints`, the
    installed packages' kinds: PersistentVolumeClaim when kubesched-volumebinding is), and
    with `pod_gc` the garbage collector deleting the pods of deleted nodes."""
    pm = make_plugin_manager(load_entrypoints=entrypoints)
    register(pm)
    clock = VirtualClock()
    loop = VirtualTimeLoop(clock)
    cluster = MemoryCluster(default_kinds(pm), clock, uid_seed=seed)
    for controller in hooks.kubesched_cluster_controllers(cluster):
        if isinstance(controller, GarbageCollector):
            controller.orphaned_pods = pod_gc
        cluster.add_controller(controller)
    return cluster, loop


def objects(text: str, cluster: MemoryCluster) -> list[K8sModel]:
    """Models of the YAML documents in `text`, by the cluster's kinds."""
    out: list[K8sModel] = []
    for doc in yaml.safe_load_all(text):
        info = cluster.kinds.get(doc["apiVersion"], doc["kind"])
        assert info is not None, doc["kind"]
        out.append(info.model.model_validate(doc))
    return out


async def settle(cluster: MemoryCluster, *, step: float = 1.0, limit: float = 3600.0) -> None:
    """Let watch events and controllers run (and virtual time pass, `step` at a time) until
    nothing is busy, or `limit` seconds have passed."""
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    await asyncio.sleep(0)
    while cluster.busy() and loop.time() < end:
        await asyncio.sleep(step)
    await asyncio.sleep(0)


async def bind_all(cluster: MemoryCluster, nodes: Sequence[str]) -> list[Pod]:
    """Bind every unbound pod, round robin over `nodes` in name order; returns them."""
    pods = sorted((p for p in cluster.list("Pod") if not p.spec.node_name), key=lambda p: p.key)
    for i, pod in enumerate(pods):
        await cluster.bind(pod, nodes[i % len(nodes)])
    return pods


def run(
    text: str,
    body: Callable[[MemoryCluster], Awaitable[T]],
    *,
    seed: int = 0,
    entrypoints: bool = False,
    pod_gc: bool = False,
) -> T:
    """Create the objects in `text`, start the controllers, settle, then run `body`."""
    cluster, loop = new_cluster(seed, entrypoints=entrypoints, pod_gc=pod_gc)

    async def main() -> T:
        cluster.create_many(objects(text, cluster))
        cluster.start_controllers()
        await settle(cluster)
        return await body(cluster)

    try:
        return loop.run_until_complete(main())
    finally:
        loop.close()


def names(cluster: MemoryCluster, kind: str = "Pod") -> list[str]:
    return sorted(o.metadata.name for o in cluster.list(kind))


def pods_of(cluster: MemoryCluster, prefix: str) -> list[Pod]:
    return sorted(
        (p for p in cluster.list("Pod") if p.metadata.name.startswith(prefix)),
        key=lambda p: p.metadata.name,
    )
