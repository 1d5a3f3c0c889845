"""`examples/gpu-gang` does what its README promises: Coscheduling and DynamicResources
together place a gang of 8 pods, each with its own H100, on one rack, and a gang larger
than the cluster's H100s holds nothing. Needs kubesched-coscheduling and kubesched-dra
installed with their entry points."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.api import Node, Pod
from kubesched.cluster.memory import default_kinds
from kubesched.config import load_config, resolve
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation
from kubesched.simulate._manifests import load_manifests
from kubesched_dra.api import ResourceClaim

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "gpu-gang"
RACK = "example.com/rack"


def _run(seed: int) -> Simulation:
    pm = make_plugin_manager()
    registry = PluginRegistry.discover()
    config = resolve(load_config(EXAMPLE / "scheduler-config.yaml"), registry)
    loaded = load_manifests(
        [EXAMPLE / "cluster.yaml", EXAMPLE / "workloads.yaml"], default_kinds(pm)
    )
    sim = Simulation(loaded.objects, config, registry, hooks=pm, seed=seed)
    sim.run()
    return sim


def _claim(sim: Simulation, pod: Pod) -> ResourceClaim | None:
    for status in pod.status.resource_claim_statuses:
        found = sim.cluster.get("ResourceClaim", status.resource_claim_name or "", "ml")
        if isinstance(found, ResourceClaim):
            return found
    return None


@pytest.mark.parametrize("seed", [0, 5])
def test_the_gang_gets_eight_h100s_on_one_rack_and_the_big_gang_nothing(seed: int) -> None:
    sim = _run(seed)
    nodes = {n.metadata.name: n for n in sim.cluster.list("Node") if isinstance(n, Node)}
    pods = [p for p in sim.cluster.list("Pod") if isinstance(p, Pod)]
    llm = [p for p in pods if p.metadata.name.startswith("llm-")]
    big = [p for p in pods if p.metadata.name.startswith("big-")]
    assert len(llm) == 8 and len(big) == 12

    assert all(p.spec.node_name for p in llm)
    assert {nodes[p.spec.node_name].metadata.labels[RACK] for p in llm} == {"rack-b"}
    devices = set()
    for pod in llm:
        claim = _claim(sim, pod)
        assert claim is not None and claim.status.allocation is not None, pod.metadata.name
        (result,) = claim.status.allocation.devices.results
        assert result.pool == pod.spec.node_name  # the device is on the pod's node
        assert [r.uid for r in claim.status.reserved_for] == [pod.metadata.uid]
        devices.add((result.pool, result.device))
    assert len(devices) == 8  # no H100 given twice

    assert not any(p.spec.node_name for p in big)
    for pod in big:
        claim = _claim(sim, pod)
        assert claim is None or claim.status.allocation is None, pod.metadata.name
