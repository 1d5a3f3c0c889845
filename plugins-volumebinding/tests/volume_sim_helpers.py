"""Run the real scheduler with the volume plugins, the builtin defaults that matter here,
and this package's PV controller and provisioner, on the memory cluster in virtual time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from kubesched.api import K8sModel
from kubesched.config import parse_config, resolve
from kubesched.framework import Plugin, extension_points_of
from kubesched.hookspecs import hookimpl
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation, SimulationResult
from kubesched_builtin.defaultbinder import DefaultBinder
from kubesched_builtin.noderesources import NodeResourcesFit
from kubesched_builtin.queuesort import PrioritySort
from kubesched_volumebinding import NodeVolumeLimits, VolumeBinding, VolumeRestrictions, VolumeZone
from kubesched_volumebinding.controllers import Provisioner, PVController
from kubesched_volumebinding.hooks import VolumeBindingHooks
from kubesched_volumebinding.storage import PersistentVolume, PersistentVolumeClaim

__all__ = ["PLUGINS", "At", "VolumeSim", "claims_of", "volumes_of"]

PLUGINS: list[type[Plugin]] = [
    PrioritySort,
    NodeResourcesFit,
    VolumeRestrictions,
    NodeVolumeLimits,
    VolumeBinding,
    VolumeZone,
    DefaultBinder,
]


class At:
    """A controller that runs `action()` once, `delay` virtual seconds after start (and
    keeps the simulation going until then)."""

    name = "test-timer"

    def __init__(self, delay: float, action: Callable[[], None]) -> None:
        self.delay = delay
        self.action = action
        self.fired = False

    def start(self, cluster: Any) -> None:
        asyncio.get_running_loop().call_later(self.delay, self._fire)

    def _fire(self) -> None:
        self.fired = True
        self.action()

    def busy(self) -> bool:
        return not self.fired


class _Extra:
    def __init__(self, controllers: Sequence[Any]) -> None:
        self.controllers = list(controllers)

    @hookimpl
    def kubesched_cluster_controllers(self, cluster: Any) -> list[Any]:
        return self.controllers


class VolumeSim:
    """One simulation: objects, VolumeBinding args, controllers."""

    def __init__(
        self,
        objects: Sequence[K8sModel],
        *,
        pv_controller: PVController | None = None,
        provisioner: Provisioner | None = None,
        extra_controllers: Sequence[Any] = (),
        bind_timeout: int | None = None,
        seed: int = 0,
        until: float | None = None,
        volume_binding: type[VolumeBinding] = VolumeBinding,
        extra_plugins: Sequence[type[Plugin]] = (),
    ) -> None:
        """`volume_binding` replaces the plugin class (a subclass with other options);
        `extra_plugins` run before the volume plugins at every point they implement."""
        self.pv_controller = pv_controller if pv_controller is not None else PVController()
        self.provisioner = provisioner if provisioner is not None else Provisioner()
        pm = make_plugin_manager(load_entrypoints=False)
        pm.register(
            VolumeBindingHooks(pv_controller=self.pv_controller, provisioner=self.provisioner)
        )
        if extra_controllers:
            pm.register(_Extra(extra_controllers))
        plugins = [volume_binding if p is VolumeBinding else p for p in PLUGINS]
        plugins[2:2] = extra_plugins
        registry = PluginRegistry.of(*plugins)
        sets: dict[str, Any] = {"multiPoint": {"enabled": [{"name": p.name} for p in plugins]}}
        for extra in extra_plugins:
            # named at a point as well as in multiPoint: first at that point (upstream's
            # override rule), before the default plugins
            for point in extension_points_of(extra):
                key = point[0].lower() + point[1:]
                sets.setdefault(key, {"enabled": []})["enabled"].append({"name": extra.name})
        profile: dict[str, Any] = {"schedulerName": "default-scheduler", "plugins": sets}
        if bind_timeout is not None:
            profile["pluginConfig"] = [
                {"name": "VolumeBinding", "args": {"bindTimeoutSeconds": bind_timeout}}
            ]
        config = {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [profile],
        }
        resolved = resolve(parse_config(config), registry)
        self.sim = Simulation(objects, resolved, registry, seed=seed, until=until, hooks=pm)

    def run(self) -> SimulationResult:
        return self.sim.run()

    @property
    def cluster(self) -> Any:
        return self.sim.cluster

    def plugin(self) -> VolumeBinding:
        assert self.sim.scheduler is not None
        plugin = self.sim.scheduler.profiles["default-scheduler"].plugins["VolumeBinding"]
        assert isinstance(plugin, VolumeBinding)
        return plugin

    def events(self, reason: str = "") -> list[str]:
        return [e.message for e in self.cluster.events() if not reason or e.reason == reason]


def claims_of(sim: VolumeSim) -> dict[str, PersistentVolumeClaim]:
    return {c.key: c for c in sim.cluster.list("PersistentVolumeClaim")}


def volumes_of(sim: VolumeSim) -> dict[str, PersistentVolume]:
    return {v.metadata.name: v for v in sim.cluster.list("PersistentVolume")}
