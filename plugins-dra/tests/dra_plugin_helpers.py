"""Helpers of the DynamicResources tests: the real scheduler with the installed plugins on
the memory cluster, on virtual time, and what it left on pods and claims."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubesched.api import K8sModel, Pod
from kubesched.cluster.memory import default_kinds
from kubesched.config import parse_config, resolve
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation, SimulationResult, load_manifests
from kubesched_dra.api import ResourceClaim

__all__ = ["DEFAULT_CONFIG", "DraRun", "objects", "run"]

DEFAULT_CONFIG: dict[str, Any] = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler"}],
}


def objects(text: str) -> list[K8sModel]:
    """The objects of these YAML manifests, loaded as `kubesched simulate` loads files."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "manifests.yaml"
        path.write_text(text, encoding="utf-8")
        loaded = load_manifests([path], default_kinds(make_plugin_manager()))
    assert not loaded.skipped, [s.reason for s in loaded.skipped]
    return list(loaded.objects)


@dataclass
class DraRun:
    result: SimulationResult
    sim: Simulation

    def pod(self, name: str, namespace: str = "default") -> Pod:
        pod = self.sim.cluster.get("Pod", name, namespace)
        assert isinstance(pod, Pod), name
        return pod

    def node_of(self, name: str) -> str:
        return self.pod(name).spec.node_name

    def message(self, name: str, namespace: str = "default") -> str:
        cond = self.pod(name, namespace).status.condition("PodScheduled")
        assert cond is not None, name
        return cond.message

    def claim(self, name: str, namespace: str = "default") -> ResourceClaim:
        claim = self.sim.cluster.get("ResourceClaim", name, namespace)
        assert isinstance(claim, ResourceClaim), name
        return claim

    def devices(self, claim: str, namespace: str = "default") -> list[str]:
        """`pool/device` of each device allocated to the claim."""
        allocation = self.claim(claim, namespace).status.allocation
        assert allocation is not None, claim
        return [f"{r.pool}/{r.device}" for r in allocation.devices.results]


def run(
    objs: list[K8sModel],
    cfg: dict[str, Any] | None = None,
    *,
    seed: int = 0,
    until: float | None = None,
    explain: tuple[str, ...] = (),
) -> DraRun:
    """Simulate `objs` with the installed distributions (default profile unless `cfg`)
    until nothing more can happen."""
    pm = make_plugin_manager()
    registry = PluginRegistry.discover()
    resolved = resolve(parse_config(cfg or DEFAULT_CONFIG), registry)
    sim = Simulation(objs, resolved, registry, seed=seed, until=until, hooks=pm, explain=explain)
    return DraRun(sim.run(), sim)
