"""A stand-in for the framework Handle, for plugins that only touch a part of it."""

from __future__ import annotations

from typing import Any, cast

from kubesched.api import Pod
from kubesched.framework import Handle, Snapshot

__all__ = ["FakeCluster", "fake_handle"]


class FakeCluster:
    """Records `bind` calls; raises `error` instead when one is given."""

    def __init__(self, error: BaseException | None = None) -> None:
        self.error = error
        self.bound: list[tuple[str, str]] = []

    async def bind(self, pod: Pod, node_name: str) -> None:
        if self.error is not None:
            raise self.error
        self.bound.append((pod.key, node_name))


class _FakeHandle:
    def __init__(self, cluster: Any, snapshot: Snapshot) -> None:
        self.cluster = cluster
        self.snapshot = snapshot
        self.profile_name = "default-scheduler"
        self.fast_path = True


def fake_handle(cluster: Any = None, snapshot: Snapshot | None = None) -> Handle:
    """A Handle with only `cluster`, `snapshot`, `profile_name` and `fast_path` (on)."""
    return cast(Handle, _FakeHandle(cluster or FakeCluster(), snapshot or Snapshot()))
