"""The embedded cluster and a scheduler, driven step by step on virtual time: what
`Simulation.run` does in one go, stopping at idle points so tests can look in between."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from kubesched.config import load_config, parse_config, resolve
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation
from kubesched.simulate._faults import FaultPlan

__all__ = ["Cluster"]


class Cluster:
    """The embedded cluster and the default-profile scheduler, driven step by step on
    virtual time (what `Simulation.run` does in one go)."""

    def __init__(
        self, config: dict[str, Any] | None = None, faults: FaultPlan | None = None
    ) -> None:
        pm = make_plugin_manager()
        registry = PluginRegistry.discover()
        resolved = resolve(load_config(None) if config is None else parse_config(config), registry)
        self.sim = Simulation([], resolved, registry, hooks=pm, faults=faults)
        self.loop = self.sim.loop
        self.cluster = self.sim.cluster
        self.scheduler = self.sim.new_scheduler()
        self.sim.scheduler = self.scheduler
        self.scheduler.start_watching()
        for controllers in pm.hook.kubesched_cluster_controllers(cluster=self.cluster):
            for controller in controllers:
                self.cluster.add_controller(controller)
        self.do(self._start_controllers())
        self._runner = self.loop.create_task(self.scheduler.run())

    async def _start_controllers(self) -> None:
        self.cluster.start_controllers()

    def do(self, op: Coroutine[Any, Any, Any]) -> None:
        self.loop.run_until_complete(op)

    def settle(self, seconds: float) -> None:
        """Run until the scheduler is quiescent or `seconds` of virtual time have passed."""
        target = self.sim.clock.now() + seconds
        done: asyncio.Future[None] = self.loop.create_future()

        def on_idle(next_timer: float | None) -> None:
            if done.done():
                return
            if self.sim._quiescent():
                done.set_result(None)
            elif next_timer is None or next_timer > target:
                self.sim.clock.advance_to(target)
                done.set_result(None)

        self.loop.set_idle_callback(on_idle)
        try:
            self.loop.run_until_complete(done)
        finally:
            self.loop.set_idle_callback(None)

    def close(self) -> None:
        self.scheduler.stop()
        for task in asyncio.all_tasks(self.loop):
            task.cancel()
        self.loop.run_until_complete(asyncio.sleep(0))
        self.loop.close()
