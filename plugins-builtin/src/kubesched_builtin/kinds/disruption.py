"""The disruption controller of the embedded cluster: keeps each PodDisruptionBudget's status.

Upstream: pkg/controller/disruption/disruption.go (getExpectedPodCount, countHealthyPods,
updatePdbStatus). Preemption only reads `status.disruptionsAllowed`, so a budget loaded from
a manifest without a status would forbid every disruption; this controller computes it the
way kube-controller-manager does, with two simplifications a simulation needs:

- a selected pod is healthy when its `Ready` condition is True or, as there is no kubelet
  to set one, when it has no `Ready` condition but is bound and neither terminating nor
  finished;
- the expected count of a percentage or `maxUnavailable` budget is the largest number of
  selected pods seen so far (upstream asks the pods' controllers for their scale, and there
  are no workload controllers here; the high-water mark plays the replica count, so a
  preempted pod that nothing recreates still counts as expected and uses the budget up).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, Final

from kubesched.api import Pod, selector_matches
from kubesched.cluster import Cluster, WatchEvent
from kubesched_builtin.kinds.pdb import (
    PodDisruptionBudget,
    PodDisruptionBudgetStatus,
    scaled_value,
)

__all__ = ["DisruptionController", "compute_status", "pod_is_healthy"]

_PDB: Final = "PodDisruptionBudget"


def pod_is_healthy(pod: Pod) -> bool:
    """Counts toward `currentHealthy` (see the module docstring for the simulation rule)."""
    if pod.is_terminating or pod.is_terminal:
        return False
    ready = pod.status.condition("Ready")
    if ready is not None:
        return ready.status == "True"
    return bool(pod.spec.node_name)


def compute_status(pdb: PodDisruptionBudget, pods: Iterable[Pod]) -> PodDisruptionBudgetStatus:
    """The status the disruption controller would write, from the pods of the cluster."""
    namespace = pdb.metadata.namespace or "default"
    selected = [
        p
        for p in pods
        if (p.metadata.namespace or "default") == namespace
        and selector_matches(pdb.spec.selector, p.metadata.labels)
    ]
    spec = pdb.spec
    expected = desired = 0
    scale = max(len(selected), pdb.status.expected_pods)
    if spec.max_unavailable is not None:
        expected = scale
        desired = max(expected - scaled_value(spec.max_unavailable, expected, True), 0)
    elif isinstance(spec.min_available, int):
        expected = len(selected)
        desired = spec.min_available
    elif spec.min_available is not None:
        expected = scale
        desired = scaled_value(spec.min_available, expected, True)
    disrupted = pdb.status.disrupted_pods
    healthy = sum(1 for p in selected if p.metadata.name not in disrupted and pod_is_healthy(p))
    allowed = healthy - desired
    if expected <= 0 or allowed <= 0:
        allowed = 0
    return PodDisruptionBudgetStatus(
        observed_generation=pdb.metadata.generation or 0,
        disrupted_pods=dict(disrupted),
        disruptions_allowed=allowed,
        current_healthy=healthy,
        desired_healthy=desired,
        expected_pods=expected,
    )


class DisruptionController:
    """Recomputes the status of every budget whose pods or spec changed."""

    name = "disruption"

    def __init__(self) -> None:
        self._cluster: Cluster | None = None
        self._dirty: dict[str, tuple[str, str]] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self, cluster: Cluster) -> None:
        self._cluster = cluster
        cluster.watch(_PDB, self._on_pdb)
        cluster.watch("Pod", self._on_pod)

    def busy(self) -> bool:
        return bool(self._dirty) or (self._task is not None and not self._task.done())

    # -- watch handlers -----------------------------------------------------------------
    def _on_pdb(self, ev: WatchEvent) -> None:
        if ev.type != "DELETED":
            self._mark(ev.obj)

    def _on_pod(self, ev: WatchEvent) -> None:
        if self._cluster is None:
            return
        pods: list[Pod] = [p for p in (ev.obj, ev.old) if p is not None]
        for pdb in self._cluster.list(_PDB):
            namespace = pdb.metadata.namespace or "default"
            if any(
                (p.metadata.namespace or "default") == namespace
                and selector_matches(pdb.spec.selector, p.metadata.labels)
                for p in pods
            ):
                self._mark(pdb)

    def _mark(self, pdb: Any) -> None:
        meta = pdb.metadata
        self._dirty[f"{meta.namespace}/{meta.name}"] = (meta.name, meta.namespace)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._sync())

    # -- sync ---------------------------------------------------------------------------
    async def _sync(self) -> None:
        cluster = self._cluster
        assert cluster is not None
        while self._dirty:
            key = next(iter(self._dirty))
            name, namespace = self._dirty.pop(key)
            pdb: PodDisruptionBudget | None = cluster.get(_PDB, name, namespace)
            if pdb is None:
                continue
            status = compute_status(pdb, cluster.list("Pod"))
            if status == pdb.status:
                continue
            try:
                await cluster.update(pdb.model_copy(update={"status": status}))
            except Exception:  # gone or changed meanwhile: its own event marks it again
                continue
