"""Running a simulation with a fault plan in tests: manifests and a plan (as Python
data) in, the finished Simulation (its cluster, scheduler and injector) and result out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from kubesched.cluster.memory import default_kinds
from kubesched.config import load_config, parse_config, resolve
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation, SimulationResult, load_manifests
from kubesched.simulate._faults import parse_fault_plan
from kubesched.simulate._faults_inject import check_fault_plan
from kubesched.workloads import register as register_workloads

__all__ = ["ledger", "run_with_faults"]


def run_with_faults(
    tmp_path: Path,
    manifests: list[dict[str, Any]],
    faults: list[dict[str, Any]],
    *,
    seed: int = 0,
    config: dict[str, Any] | None = None,
    fast_path: bool | None = None,
) -> tuple[Simulation, SimulationResult]:
    path = tmp_path / "manifests.yaml"
    path.write_text(yaml.safe_dump_all(manifests), encoding="utf-8")
    pm = make_plugin_manager()
    register_workloads(pm)
    registry = PluginRegistry.discover()
    resolved = resolve(load_config(None) if config is None else parse_config(config), registry)
    kinds = default_kinds(pm)
    loaded = load_manifests([path], kinds)
    doc = {"apiVersion": "simulation.kubesched.io/v1alpha1", "kind": "FaultPlan", "faults": faults}
    plan = parse_fault_plan(doc, "plan.yaml")
    check_fault_plan(plan, resolved, kinds)
    sim = Simulation(
        loaded.objects, resolved, registry, seed=seed, hooks=pm, faults=plan, fast_path=fast_path
    )
    return sim, sim.run()


def ledger(result: SimulationResult) -> dict[str, Any]:
    """The faults section's payload: what fired and the Reserve ledger."""
    (section,) = [s for s in result.sections if s.key == "faults"]
    payload: dict[str, Any] = section.payload
    return payload
