"""`examples/gpus` does what its README promises: every pod's node or message and every
claim's devices, read from the README's tables so they cannot drift apart.

Runs the simulation with the installed plugins and hooks, so it needs kubesched-dra
installed with its entry points.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from example_tables import readme_outcome, readme_table

from kubesched.api import Pod
from kubesched.cluster.memory import default_kinds
from kubesched.config import load_config, resolve
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation, SimulationResult
from kubesched.simulate._manifests import load_manifests
from kubesched_dra.api import ResourceClaim

ROOT = Path(__file__).resolve().parents[1]
GPUS = ROOT / "examples" / "gpus"


def _run(seed: int) -> tuple[SimulationResult, Simulation]:
    pm = make_plugin_manager()
    registry = PluginRegistry.discover()
    loaded = load_manifests([GPUS], default_kinds(pm))
    sim = Simulation(
        loaded.objects, resolve(load_config(None), registry), registry, hooks=pm, seed=seed
    )
    return sim.run(), sim


@pytest.mark.parametrize("seed", [0, 3])
def test_pods_go_where_the_readme_says(seed: int) -> None:
    result, _ = _run(seed)
    outcome = readme_outcome(GPUS)
    for name, want in outcome.items():
        got = result.pod(name)
        assert (got.node, got.status) == (want.node, want.status), name
        if want.status == "Unschedulable":
            assert got.message == want.message, name
    assert result.summary["pods"] == len(outcome)


def _claim_of(sim: Simulation, pod: Pod, entry: str) -> ResourceClaim | None:
    namespace = pod.metadata.namespace or "default"
    (spec,) = [
        c for c in pod.spec.resource_claims if c.name == entry or c.resource_claim_name == entry
    ]
    name = spec.resource_claim_name
    for status in pod.status.resource_claim_statuses:
        if status.name == spec.name:
            name = status.resource_claim_name
    found = sim.cluster.get("ResourceClaim", name, namespace) if name else None
    return found if isinstance(found, ResourceClaim) else None


@pytest.mark.parametrize("seed", [0, 3])
def test_claims_get_the_devices_the_readme_says(seed: int) -> None:
    _, sim = _run(seed)
    for row in readme_table(GPUS, ["pod", "claim", "devices"]):
        pod_name, entry, devices = row["pod"], row["claim"], row["devices"]
        pod = sim.cluster.get("Pod", pod_name, "default")
        assert isinstance(pod, Pod), pod_name
        claim = _claim_of(sim, pod, entry)
        if not devices:
            assert claim is None or claim.status.allocation is None, pod_name
            continue
        assert claim is not None and claim.status.allocation is not None, pod_name
        got = [f"{r.pool}/{r.device}" for r in claim.status.allocation.devices.results]
        assert got == [d.strip() for d in devices.split(",")], pod_name
        assert pod.metadata.uid in [r.uid for r in claim.status.reserved_for], pod_name
        assert claim.status.allocation.node_selector is not None
        assert claim.status.allocation.node_selector.matches(pod.spec.node_name, {}), pod_name


def test_no_device_is_given_to_two_claims() -> None:
    _, sim = _run(0)
    seen: dict[tuple[str, str, str], str] = {}
    for claim in sim.cluster.list("ResourceClaim"):
        assert isinstance(claim, ResourceClaim)
        if claim.status.allocation is None:
            continue
        for r in claim.status.allocation.devices.results:
            key = (r.driver, r.pool, r.device)
            assert key not in seen, f"{key} given to {seen[key]} and {claim.metadata.name}"
            seen[key] = claim.metadata.name
