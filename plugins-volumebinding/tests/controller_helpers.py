"""Run the embedded controllers alone on a memory cluster, on virtual time."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from volumebinding_helpers import volume_kinds

from kubesched.api import K8sModel
from kubesched.clock import VirtualClock, VirtualTimeLoop
from kubesched.cluster.memory import MemoryCluster
from kubesched_volumebinding.storage import PersistentVolume, PersistentVolumeClaim

__all__ = ["ControllerEnv"]


class ControllerEnv:
    """Objects created at time 0, then the controllers started; `settle()` runs until no
    controller is busy and every event is delivered."""

    def __init__(self, objects: Iterable[K8sModel], *controllers: Any) -> None:
        self.clock = VirtualClock()
        self.loop = VirtualTimeLoop(self.clock)
        self.cluster = MemoryCluster(volume_kinds(), self.clock, uid_seed=3)
        self.cluster.create_many(list(objects))
        for c in controllers:
            self.cluster.add_controller(c)

        async def start() -> None:
            self.cluster.start_controllers()

        self.loop.run_until_complete(start())

    def settle(self, then: Callable[[], Awaitable[Any]] | None = None) -> None:
        async def go() -> None:
            if then is not None:
                await then()
            await asyncio.sleep(0)
            while self.cluster.busy():
                await asyncio.sleep(0.01)

        self.loop.run_until_complete(go())

    def do(self, action: Callable[[], Awaitable[Any]]) -> None:
        """Run one cluster write, then settle."""
        self.settle(action)

    def close(self) -> None:
        self.loop.close()

    def pv(self, name: str) -> PersistentVolume | None:
        obj = self.cluster.get("PersistentVolume", name)
        return obj if isinstance(obj, PersistentVolume) else None

    def pvc(self, name: str, namespace: str = "default") -> PersistentVolumeClaim:
        obj = self.cluster.get("PersistentVolumeClaim", name, namespace)
        assert isinstance(obj, PersistentVolumeClaim), name
        return obj
