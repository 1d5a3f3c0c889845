"""Pods held at Permit, each with one timer per plugin that asked it to wait.

Upstream: pkg/scheduler/framework/runtime/waiting_pods_map.go. The first signal wins: an
allow from the last pending plugin delivers Success, any reject (or a timer firing)
delivers Unschedulable naming the plugin.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping

from kubesched.api import Pod
from kubesched.framework import Status

__all__ = ["MAX_PERMIT_TIMEOUT", "WaitingPodImpl", "WaitingPodsMap", "go_duration"]

MAX_PERMIT_TIMEOUT = 15 * 60.0
"""Permit timeouts are capped at 15 minutes (upstream maxTimeout)."""


def go_duration(seconds: float) -> str:
    """A duration written as Go's time.Duration.String does: 100ms, 10s, 1m30s, 1h0m0s."""
    if seconds == 0:
        return "0s"
    sign = "-" if seconds < 0 else ""
    nanos = round(abs(seconds) * 1e9)
    if nanos < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if nanos >= size:
                return f"{sign}{_trim(nanos / size)}{unit}"
    hours, rest = divmod(nanos, 3600 * 10**9)
    minutes, rest = divmod(rest, 60 * 10**9)
    secs = _trim(rest / 1e9)
    if hours:
        return f"{sign}{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{sign}{minutes}m{secs}s"
    return f"{sign}{secs}s"


def _trim(value: float) -> str:
    text = f"{value:.9f}".rstrip("0").rstrip(".")
    return text or "0"


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
