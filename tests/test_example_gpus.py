"""`examples/gpus` does what its README promises: every pod's node or message and every
claim's devices, read from the README's tables so they cannot drift apart.

Runs the simulation with the installed plugins and hooks, so it needs kubesched-dra
installed with its entry points.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubesched.api import Pod
from kubesched.cluster.memory import default_kinds
from kubesched.config import load_config, resolve
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation, SimulationResult
from kubesched.simulate._manifests import load_manifests
from kubesched_dra.api import ResourceClaim

ROOT = Path(__file__).resolve().parents[1]
GPUS = ROOT / "examples" / "gpus"


def _table(header: list[str]) -> list[list[str]]:
    """The rows of the README table whose header row is `header`."""
    rows: list[list[str]] = []
    inside = False
    for line in (GPUS / "README.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            inside = False
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells == header:
            inside = True
        elif inside and not set(cells[0]) <= {"-"}:
            rows.append(cells)
    assert rows, f"no table {header} in the README"
    return rows


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
    for pod, node, why in _table(["pod", "node", "why"]):
        got = result.pod(pod)
        if node in ("—", "-"):
            status, _, text = why.partition(":")
            assert got.status == status.strip(), pod
            assert got.message == re.sub(r"`([^`]*)`", r"\1", text.strip()), pod
        else:
            assert (got.node, got.status) == (node, "Bound"), pod
    assert result.summary["pods"] == len(_table(["pod", "node", "why"]))


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
    for pod_name, entry, devices in _table(["pod", "claim", "devices"]):
        pod = sim.cluster.get("Pod", pod_name, "default")
        assert isinstance(pod, Pod), pod_name
        claim = _claim_of(sim, pod, entry)
        if devices in ("—", "-"):
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
