"""Pods that finish: the part of a kubelet a simulation needs.

A bound pod with the annotation `simulation.kubesched.io/duration` (a Go duration: `90s`,
`1h30m`) runs for that long of virtual time from when it is bound (from the start, for a
pod already bound in the manifests), then its phase becomes `Succeeded`, or `Failed` when
`simulation.kubesched.io/result: Failed` says so. The scheduler then frees its resources
(a terminal pod leaves the scheduler's cache, as upstream's informer handlers do), its
controller counts it (a Job's completions, its backoff), and the report shows it as
Succeeded or Failed on its node.

Pods a ReplicaSet, StatefulSet or DaemonSet controls never finish: those controllers run
`restartPolicy: Always` pods, whose containers the kubelet restarts, so the annotation is
ignored there. Pods without the annotation run until deleted.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Final

from kubesched._errors import ConflictError
from kubesched.api import Pod, PodCondition
from kubesched.cluster import Cluster, WatchEvent
from kubesched.config import parse_duration
from kubesched.workloads._labels import DURATION_ANNOTATION, RESULT_ANNOTATION, RESULTS
from kubesched.workloads._pods import controller_of

__all__ = ["LONG_RUNNING_KINDS", "PodLifecycle", "pod_duration"]

LONG_RUNNING_KINDS: Final = frozenset({"ReplicaSet", "StatefulSet", "DaemonSet"})
"""Controllers whose pods never finish (their restartPolicy is Always)."""

_log = logging.getLogger(__name__)
_RETRIES: Final = 3


def pod_duration(pod: Pod) -> float | None:
    """Seconds the pod runs once bound, None when it runs until deleted (no or an invalid
    annotation, or a long-running controller)."""
    text = pod.metadata.annotations.get(DURATION_ANNOTATION)
    if text is None:
        return None
    ref = controller_of(pod)
    if ref is not None and ref.kind in LONG_RUNNING_KINDS:
        return None
    try:
        seconds = parse_duration(text)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


class PodLifecycle:
    """Finishes pods when their duration has passed (see the module docstring)."""

    name = "pod-lifecycle"

    def __init__(self) -> None:
        self._cluster: Cluster | None = None
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._writes: set[asyncio.Task[None]] = set()

    def start(self, cluster: Cluster) -> None:
        self._cluster = cluster
        cluster.watch("Pod", self._on_pod)

    def busy(self) -> bool:
        return bool(self._timers) or bool(self._writes)

    def _on_pod(self, ev: WatchEvent) -> None:
        pod: Pod = ev.obj
        uid = pod.metadata.uid
        if ev.type == "DELETED" or pod.is_terminal or pod.is_terminating:
            timer = self._timers.pop(uid, None)
            if timer is not None:
                timer.cancel()
            return
        if uid in self._timers or not pod.spec.node_name:
            return
        duration = pod_duration(pod)
        if duration is None:
            return
        loop = asyncio.get_running_loop()
        name, namespace = pod.metadata.name, pod.metadata.namespace
        self._timers[uid] = loop.call_later(duration, self._due, uid, name, namespace)

    def _due(self, uid: str, name: str, namespace: str | None) -> None:
        self._timers.pop(uid, None)
        task = asyncio.get_running_loop().create_task(self._finish(uid, name, namespace))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _finish(self, uid: str, name: str, namespace: str | None) -> None:
        assert self._cluster is not None
        for _ in range(_RETRIES):
            pod: Pod | None = self._cluster.get("Pod", name, namespace)
            if pod is None or pod.metadata.uid != uid or pod.is_terminal:
                return
            result = pod.metadata.annotations.get(RESULT_ANNOTATION, RESULTS[0])
            phase = result if result in RESULTS else RESULTS[0]
            clock = getattr(self._cluster, "clock", None)
            now = clock.wall_time() if clock is not None else None
            # when it finished, for a timeline: the Ready condition's transition
            ready = PodCondition(
                type="Ready", status="False", reason="PodCompleted", last_transition_time=now
            )
            conditions = [c for c in pod.status.conditions if c.type != "Ready"] + [ready]
            status = pod.status.model_copy(update={"phase": phase, "conditions": conditions})
            try:
                await self._cluster.update(pod.model_copy(update={"status": status}))
                return
            except ConflictError:
                continue  # written meanwhile (a condition): read it again
        _log.warning("pod %s/%s: could not record that it finished", namespace, name)
