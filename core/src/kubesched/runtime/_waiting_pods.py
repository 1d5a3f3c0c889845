"""Pods held at Permit, each with one timer per plugin that asked it to wait.

Upstream: pkg/scheduler/framework/runtime/waiting_pods_map.go. The first signal wins: an
allow from the last pending plugin delivers Success, any reject (or a timer firing)
delivers Unschedulable naming the plugin.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping

from kubesched.api import Pod, go_duration
from kubesched.framework import Status

__all__ = ["MAX_PERMIT_TIMEOUT", "WaitingPodImpl", "WaitingPodsMap"]

MAX_PERMIT_TIMEOUT = 15 * 60.0
"""Permit timeouts are capped at 15 minutes (upstream maxTimeout)."""


class WaitingPodImpl:
    """One held pod. Create it inside a running event loop."""

    def __init__(
        self,
        pod: Pod,
        timeouts: Mapping[str, float],
        on_done: Callable[[WaitingPodImpl], None] | None = None,
    ) -> None:
        loop = asyncio.get_running_loop()
        self._pod = pod
        self._result: asyncio.Future[Status] = loop.create_future()
        self._on_done = on_done
        self._timers = {
            name: loop.call_later(timeout, self._timeout, name, timeout)
            for name, timeout in timeouts.items()
        }

    @property
    def pod(self) -> Pod:
        return self._pod

    def get_pending_plugins(self) -> list[str]:
        return list(self._timers)

    def allow(self, plugin: str) -> None:
        timer = self._timers.pop(plugin, None)
        if timer is not None:
            timer.cancel()
        if not self._timers:
            self._deliver(Status.success())

    def reject(self, plugin: str, message: str) -> bool:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        return self._deliver(Status.unschedulable(message).with_plugin(plugin))

    def _timeout(self, plugin: str, timeout: float) -> None:
        self.reject(
            plugin,
            f"rejected due to timeout after waiting {go_duration(timeout)} at plugin {plugin}",
        )

    def _deliver(self, status: Status) -> bool:
        if self._result.done():
            return False
        self._result.set_result(status)
        if self._on_done is not None:
            self._on_done(self)
        return True

    @property
    def decided(self) -> bool:
        return self._result.done()

    async def wait(self) -> Status:
        return await self._result


class WaitingPodsMap:
    """Waiting pods of one profile, by pod UID."""

    def __init__(self) -> None:
        self._pods: dict[str, WaitingPodImpl] = {}

    def add(self, wp: WaitingPodImpl) -> None:
        self._pods[wp.pod.metadata.uid] = wp

    def remove(self, uid: str) -> None:
        self._pods.pop(uid, None)

    def get(self, uid: str) -> WaitingPodImpl | None:
        return self._pods.get(uid)

    def __iter__(self) -> Iterator[WaitingPodImpl]:
        return iter(list(self._pods.values()))

    def __len__(self) -> int:
        return len(self._pods)
