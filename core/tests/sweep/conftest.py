"""A 2x2x2 sweep (two clusters, bin-packing's two configurations, two seeds) shared by the
sweep's tests, and the same runs simulated one by one, without the sweep's code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubesched.compare import run_metrics
from kubesched.report import ClusterWatch
from kubesched.simulate import simulate
from kubesched.sweep import SweepSpec, cluster_inputs

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
LEAST = str(EXAMPLES / "bin-packing" / "least-allocated.config.yaml")
MOST = str(EXAMPLES / "bin-packing" / "most-allocated.config.yaml")
CLUSTERS = [str(EXAMPLES / "bin-packing" / "manifests"), str(EXAMPLES / "basic")]
SEEDS = (0, 7)


@pytest.fixture(scope="session")
def spec() -> SweepSpec:
    return SweepSpec(cluster_inputs(CLUSTERS), (LEAST, MOST), SEEDS)


@pytest.fixture(scope="session")
def one_by_one() -> dict[tuple[str, str, int], tuple[dict[str, Any], dict[str, str | None]]]:
    """(cluster folder, config file name, seed) → the run's metrics and each pod's node."""
    found = {}
    for cluster in CLUSTERS:
        for config in (LEAST, MOST):
            for seed in SEEDS:
                watch = ClusterWatch()
                result = simulate([cluster], config=config, seed=seed, observers=[watch])
                placed = {f"{p.namespace}/{p.name}": p.node for p in result.pods}
                found[(Path(cluster).name, Path(config).name, seed)] = (
                    run_metrics(result, watch.cluster),
                    placed,
                )
    return found
