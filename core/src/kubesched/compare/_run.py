"""Running the same input under several configurations (and seeds), and what differs."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kubesched.compare._metrics import placements, run_metrics
from kubesched.report import REPORT_VERSION, ClusterWatch
from kubesched.simulate import simulate
from kubesched.simulate._fields import FieldValidation
from kubesched.simulate._manifests import Warn

__all__ = ["DEFAULT_CONFIG", "Variant", "compare", "variants"]

DEFAULT_CONFIG = "default"
"""The name that stands for kube-scheduler's default configuration (no file)."""


@dataclass(frozen=True)
class Variant:
    """One configuration to run: its file (None: the defaults) and how tables name it."""

    config: str | None
    label: str


def variants(configs: Sequence[str]) -> list[Variant]:
    """A Variant per `--config` (DEFAULT_CONFIG: the defaults), named by the file's name,
    or its path when two files share a name."""
    names = [os.path.basename(c) for c in configs]
    found = []
    for config, name in zip(configs, names, strict=True):
        if config == DEFAULT_CONFIG:
            found.append(Variant(None, DEFAULT_CONFIG))
        else:
            found.append(Variant(config, name if names.count(name) == 1 else config))
    return found


def compare(
    paths: Sequence[str | os.PathLike[str]],
    configs: Sequence[str],
    *,
    seeds: Sequence[int] = (0,),
    until: float | None = None,
    scenario: str | os.PathLike[str] | None = None,
    validate: FieldValidation = "strict",
    warn: Warn | None = None,
) -> dict[str, Any]:
    """Simulate `paths` under every configuration and seed; the comparison document
    (`ComparisonReport`): each run's metrics, and per seed the pods each configuration
    placed differently from the first one."""
    runs: list[dict[str, Any]] = []
    differences: list[dict[str, Any]] = []
    for seed in seeds:
        baseline: tuple[str, dict[str, str]] | None = None
        for variant in variants(configs):
            watch = ClusterWatch()
            result = simulate(
                paths,
                config=variant.config,
                seed=seed,
                until=until,
                scenario=scenario,
                validate=validate,
                warn=warn,
                observers=[watch],
            )
            runs.append(
                {"config": variant.label, "seed": seed, **run_metrics(result, watch.cluster)}
            )
            placed = placements(result)
            if baseline is None:
                baseline = (variant.label, placed)
                continue
            differences.append(_difference(baseline, (variant.label, placed), seed))
    return {
        "version": REPORT_VERSION,
        "inputs": [os.fspath(p) for p in paths],
        "configs": [v.label for v in variants(configs)],
        "seeds": list(seeds),
        "runs": runs,
        "differences": differences,
    }


def _difference(
    baseline: tuple[str, dict[str, str]], other: tuple[str, dict[str, str]], seed: int
) -> dict[str, Any]:
    """The pods that ended elsewhere (another node, or placed in one run only)."""
    (base_label, base), (label, placed) = baseline, other
    pods = [
        {"pod": key, "baseline": base.get(key), "other": placed.get(key)}
        for key in sorted(base.keys() | placed.keys())
        if base.get(key) != placed.get(key)
    ]
    return {
        "seed": seed,
        "baseline": base_label,
        "config": label,
        "placedDifferently": len(pods),
        "pods": pods,
    }
