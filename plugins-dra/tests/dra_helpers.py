"""Shared helpers of kubesched-dra's tests: the kinds registry with this package's hook,
loading manifests written as text, and creating objects in a memory cluster."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from kubesched.api import KindRegistry, Pod
from kubesched.clock import VirtualClock, VirtualTimeLoop
from kubesched.cluster.memory import AdmissionError, MemoryCluster, default_kinds
from kubesched.runtime import make_plugin_manager
from kubesched.simulate._manifests import LoadedManifests, load_manifests
from kubesched_dra import hooks
from kubesched_dra.api import ResourceClaim
from kubesched_dra.controllers import ResourceClaimController


def dra_kind_registry() -> KindRegistry:
    """Core's kinds and this package's, registered through its hook."""
    pm = make_plugin_manager(load_entrypoints=False)
    pm.register(hooks)
    kinds: KindRegistry = default_kinds(pm)
    return kinds


def load_text(tmp_path: Path, text: str, name: str = "objects.yaml") -> LoadedManifests:
    """Load `text` as one manifest file, strictly (unknown fields are errors)."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_manifests([path], dra_kind_registry())


def only(loaded: LoadedManifests) -> Any:
    (obj,) = loaded.objects
    return obj


def create_in_memory(*objects: Any) -> MemoryCluster:
    """A memory cluster (this package's kinds registered) with `objects` created in order;
    AdmissionError when the API server would refuse one."""
    cluster = MemoryCluster(dra_kind_registry(), VirtualClock(), uid_seed=1)
    cluster.create_many(list(objects))
    return cluster


def refusal(obj: Any) -> str:
    """The API server's message refusing to create `obj` (the test fails if it is
    accepted)."""
    try:
        create_in_memory(obj)
    except AdmissionError as error:
        return str(error)
    raise AssertionError(f"{obj.kind} {obj.metadata.name} was accepted")


_MAX_SYNCS = 10_000


class RunawayController(AssertionError):
    """A controller that never settles: its worker is stopped and `settle` fails."""


class ControllerEnv:
    """The resourceclaim controller alone on a memory cluster, on virtual time: `objects`
    created at time 0 (`before_start` may create more), then the controller started;
    `settle()` runs until nothing is busy and every event is delivered."""

    def __init__(self, *objects: Any) -> None:
        self.clock = VirtualClock()
        self.loop = VirtualTimeLoop(self.clock)
        self.cluster = MemoryCluster(dra_kind_registry(), self.clock, uid_seed=3)
        self.cluster.create_many(list(objects))
        self.controller = ResourceClaimController()
        self.cluster.add_controller(self.controller)
        self.syncs = 0
        self.runaway: RunawayController | None = None
        for name in ("sync_pod", "sync_claim"):
            setattr(self.controller, name, self._counted(getattr(self.controller, name)))

    def _counted(self, sync: Callable[[str, str], Awaitable[None]]) -> Any:
        async def counted(namespace: str, name: str) -> None:
            self.syncs += 1
            if self.syncs > _MAX_SYNCS:
                self.runaway = RunawayController(f"more than {_MAX_SYNCS} syncs in one settle")
                raise self.runaway
            await sync(namespace, name)

        return counted

    def start(self) -> ControllerEnv:
        async def go() -> None:
            self.cluster.start_controllers()

        self.loop.run_until_complete(go())
        self.settle()
        return self

    def settle(self, then: Callable[[], Awaitable[Any]] | None = None) -> None:
        """Run `then`, then until nothing is busy; RunawayController when the controller
        syncs on and on (it would never settle)."""

        async def go() -> None:
            if then is not None:
                await then()
            await asyncio.sleep(0)
            while self.cluster.busy():
                await asyncio.sleep(0.01)

        self.syncs = 0
        self.loop.run_until_complete(go())
        if self.runaway is not None:
            raise self.runaway

    def close(self) -> None:
        self.loop.close()

    def pod(self, name: str, namespace: str = "default") -> Pod:
        pod = self.cluster.get("Pod", name, namespace)
        assert isinstance(pod, Pod), name
        return pod

    def claim(self, name: str, namespace: str = "default") -> ResourceClaim | None:
        claim = self.cluster.get("ResourceClaim", name, namespace)
        return claim if isinstance(claim, ResourceClaim) else None

    def claims(self) -> list[ResourceClaim]:
        return [c for c in self.cluster.list("ResourceClaim") if isinstance(c, ResourceClaim)]
