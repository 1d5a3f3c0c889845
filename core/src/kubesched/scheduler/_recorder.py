"""EventRecorder: Events kube-scheduler would record, written to the cluster in batches."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from kubesched.clock import Clock
from kubesched.cluster import Cluster, KubeEvent

__all__ = ["MAX_EVENT_MESSAGE", "ClusterEventRecorder"]

MAX_EVENT_MESSAGE = 1024
"""Upstream truncates event and condition messages (schedule_one.go truncateMessage)."""

REPORTING_CONTROLLER = "kubesched"


def truncate_message(message: str) -> str:
    if len(message) <= MAX_EVENT_MESSAGE:
        return message
    suffix = " ..."
    return message[: MAX_EVENT_MESSAGE - len(suffix)] + suffix


class ClusterEventRecorder:
    """Buffers events and writes them to the cluster from one background task."""

    def __init__(self, cluster: Cluster, clock: Clock) -> None:
        self._cluster = cluster
        self._clock = clock
        self._pending: deque[KubeEvent] = deque()
        self._task: asyncio.Task[None] | None = None

    def event(self, obj: Any, event_type: str, reason: str, action: str, message: str) -> None:
        meta = obj.metadata
        self._pending.append(
            KubeEvent(
                namespace=meta.namespace or "default",
                involved_kind=getattr(obj, "kind", type(obj).__name__),
                involved_name=meta.name,
                involved_uid=meta.uid,
                type="Warning" if event_type == "Warning" else "Normal",
                reason=reason,
                action=action,
                message=truncate_message(message),
                reporting_controller=REPORTING_CONTROLLER,
                timestamp=self._clock.now(),
            )
        )
        if self._task is None or self._task.done():
            try:
                self._task = asyncio.get_running_loop().create_task(self._flush())
            except RuntimeError:  # no loop (unit tests): keep them for flush_now
                self._task = None

    async def _flush(self) -> None:
        while self._pending:
            await self._cluster.record_event(self._pending.popleft())

    async def flush_now(self) -> None:
        await self._flush()

    @property
    def busy(self) -> bool:
        return bool(self._pending)
