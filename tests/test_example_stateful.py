"""`examples/stateful` does what its README promises: every pod's node or message, and
every claim's volume, read from the README's two tables so they cannot drift apart.

Runs `kubesched.simulate.simulate` with the installed plugins and hooks, so it needs
kubesched-volumebinding installed with its entry points.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubesched.api import Node
from kubesched.cluster.memory import default_kinds
from kubesched.config import load_config, resolve
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import Simulation, SimulationResult, simulate
from kubesched.simulate._manifests import load_manifests
from kubesched_volumebinding.storage import (
    ANN_DYNAMICALLY_PROVISIONED,
    PersistentVolume,
    PersistentVolumeClaim,
    is_fully_bound,
)

ROOT = Path(__file__).resolve().parents[1]
STATEFUL = ROOT / "examples" / "stateful"


def _table(header: list[str]) -> list[list[str]]:
    """The rows of the README table whose header row is `header`."""
    rows: list[list[str]] = []
    inside = False
    for line in (STATEFUL / "README.md").read_text(encoding="utf-8").splitlines():
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


@pytest.mark.parametrize("seed", [0, 3])
def test_pods_go_where_the_readme_says(seed: int) -> None:
    result = simulate([STATEFUL], seed=seed)
    for pod, node, why in _table(["pod", "node", "why"]):
        got = result.pod(pod)
        if node in ("—", "-"):
            status, _, text = why.partition(":")
            assert got.status == status.strip(), pod
            assert got.message == re.sub(r"`([^`]*)`", r"\1", text.strip()), pod
        else:
            assert (got.node, got.status) == (node, "Bound"), pod
    assert result.summary["pods"] == len(_table(["pod", "node", "why"]))


def _run_keeping_the_cluster() -> tuple[SimulationResult, Simulation]:
    """What `simulate` does, keeping the Simulation to look at claims and volumes."""
    pm = make_plugin_manager()
    registry = PluginRegistry.discover()
    resolved = resolve(load_config(None), registry, None)
    loaded = load_manifests([STATEFUL], default_kinds(pm))
    sim = Simulation(loaded.objects, resolved, registry, hooks=pm)
    return sim.run(), sim


def test_claims_are_bound_as_the_readme_says() -> None:
    result, sim = _run_keeping_the_cluster()
    # reports-0 is retried as soon as its claim gets its class (SchedulerPopFromBackoffQ)
    assert result.virtual_seconds == pytest.approx(6.0)
    claims = {c.metadata.name: c for c in sim.cluster.list("PersistentVolumeClaim")}
    volumes = {v.metadata.name: v for v in sim.cluster.list("PersistentVolume")}
    nodes = {n.metadata.name: n for n in sim.cluster.list("Node")}
    for name, volume, on in _table(["claim", "volume", "on"]):
        claim: PersistentVolumeClaim = claims[name]
        if volume in ("—", "-"):
            assert not claim.spec.volume_name and claim.status.phase == "Pending", name
            continue
        assert is_fully_bound(claim) and claim.status.phase == "Bound", name
        pv: PersistentVolume = volumes[claim.spec.volume_name]
        assert pv.spec.claim_ref is not None and pv.spec.claim_ref.name == name
        if volume == "provisioned":
            assert ANN_DYNAMICALLY_PROVISIONED in pv.metadata.annotations, name
        else:
            assert pv.metadata.name == volume, name
        # `on` is a node (the PV is pinned to it) or a zone
        assert pv.spec.node_affinity is not None and pv.spec.node_affinity.required is not None
        (term,) = pv.spec.node_affinity.required.node_selector_terms
        values = [v for r in term.match_expressions for v in r.values]
        assert values == [on], name
        if on in nodes:
            node: Node = nodes[on]
            assert node.metadata.labels["kubernetes.io/hostname"] == on
    pools = {c.metadata.name: c.capacity for c in sim.cluster.list("CSIStorageCapacity")}
    assert pools == {"lvm-a2": 20 * 2**30, "lvm-b2": 10 * 2**30}
