"""What a sweep runs: its axes (clusters, configurations, seeds) from a sweep file or from
the command line, and the runs they make.

A sweep file is one YAML document of kubesched's simulation API group, its paths relative
to the file (as kustomization.yaml's are), so a sweep and its inputs move together:

    apiVersion: simulation.kubesched.io/v1alpha1
    kind: Sweep
    clusters:                       # a path, or {name, paths}
      - manifests/
      - {name: large, paths: [nodes-500.yaml, pods.yaml]}
    configs: [default, least-allocated.config.yaml, most-allocated.config.yaml]
    seeds: [0, 1, 2]                # or {from: 0, count: 10}
    until: 10m                      # optional: virtual time of each run
    scenario: zone-outage.yaml      # optional: a scenario every run follows
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from kubesched._documents import load_document
from kubesched._errors import ManifestError
from kubesched.compare import DEFAULT_CONFIG, Variant, variants
from kubesched.config import parse_duration

__all__ = [
    "SWEEP_API_VERSION",
    "SWEEP_KIND",
    "ClusterInput",
    "Run",
    "SweepSpec",
    "cluster_inputs",
    "load_sweep",
]

SWEEP_API_VERSION: Final = "simulation.kubesched.io/v1alpha1"
SWEEP_KIND: Final = "Sweep"
_FIELDS: Final = (
    "apiVersion",
    "kind",
    "metadata",
    "clusters",
    "configs",
    "seeds",
    "until",
    "scenario",
)


@dataclass(frozen=True)
class ClusterInput:
    """One cluster of the sweep: the paths `simulate` reads, and how tables name it."""

    label: str
    paths: tuple[str, ...]


@dataclass(frozen=True)
class SweepSpec:
    """The axes of a sweep and what every run shares (`until`, `scenario`)."""

    clusters: tuple[ClusterInput, ...]
    configs: tuple[str, ...]
    """Configuration files, or DEFAULT_CONFIG for kube-scheduler's defaults."""
    seeds: tuple[int, ...] = (0,)
    until: float | None = None
    scenario: str | None = None

    def runs(self) -> list[Run]:
        """Every run, cluster by cluster, configuration by configuration, seed by seed:
        the order of the sweep's table, whatever order they finish in."""
        found: list[Run] = []
        for cluster in self.clusters:
            for variant in variants(self.configs):
                for seed in self.seeds:
                    found.append(Run(len(found), cluster, variant, seed))
        return found


@dataclass(frozen=True)
class Run:
    """One run: its position in the table, its cluster, configuration and seed."""

    index: int
    cluster: ClusterInput
    variant: Variant
    seed: int


def cluster_inputs(paths: Sequence[str]) -> tuple[ClusterInput, ...]:
    """A cluster per path (`--cluster`), named by the path's last part, or by the whole
    path when two share it."""
    names = [os.path.basename(os.path.normpath(p)) for p in paths]
    return tuple(
        ClusterInput(name if names.count(name) == 1 else path, (path,))
        for path, name in zip(paths, names, strict=True)
    )


def load_sweep(path: str | os.PathLike[str]) -> SweepSpec:
    """Read a sweep file (ManifestError naming the file and the field on the first
    problem: an unknown field, a missing axis, a path that does not exist)."""
    file, data = load_document(path, SWEEP_API_VERSION, SWEEP_KIND, "a sweep")
    reader = _Reader(file)
    for key in data:
        if key not in _FIELDS:
            raise ManifestError(
                f"unknown field: expected one of {', '.join(_FIELDS)}",
                file=file,
                path=str(key),
            )
    until = data.get("until")
    scenario = data.get("scenario")
    return SweepSpec(
        clusters=reader.clusters(data.get("clusters")),
        configs=reader.configs(data.get("configs")),
        seeds=reader.seeds(data.get("seeds", [0])),
        until=None if until is None else reader.duration(until),
        scenario=None if scenario is None else reader.a_file(scenario, "scenario"),
    )


class _Reader:
    """The fields of one sweep file; paths resolved against the file's folder."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.base = os.path.dirname(file)

    def error(self, detail: str, path: str) -> ManifestError:
        return ManifestError(detail, file=self.file, path=path)

    def path(self, value: Any, where: str, *, directory: bool = True) -> str:
        if not isinstance(value, str) or not value:
            raise self.error("Invalid value: expected a path (a string)", where)
        resolved = os.path.normpath(os.path.join(self.base, value))
        exists = os.path.exists(resolved) if directory else os.path.isfile(resolved)
        if not exists:
            kind = "file or directory" if directory else "file"
            raise self.error(f"Not found: {value!r}: no such {kind} ({resolved})", where)
        return resolved

    def a_file(self, value: Any, where: str) -> str:
        return self.path(value, where, directory=False)

    def clusters(self, value: Any) -> tuple[ClusterInput, ...]:
        if not isinstance(value, list) or not value:
            raise self.error(
                "Required value: a non-empty list of clusters (a path, or {name, paths})",
                "clusters",
            )
        plain = [(i, v) for i, v in enumerate(value) if not isinstance(v, dict)]
        named = {i: self.path(v, f"clusters[{i}]") for i, v in plain}
        labels = {c.paths[0]: c.label for c in cluster_inputs(list(named.values()))}
        found: list[ClusterInput] = []
        for index, item in enumerate(value):
            where = f"clusters[{index}]"
            if index in named:
                found.append(ClusterInput(labels[named[index]], (named[index],)))
                continue
            unknown = sorted(set(item) - {"name", "paths"})
            if unknown:
                raise self.error("unknown field: expected name, paths", f"{where}.{unknown[0]}")
            name, paths = item.get("name"), item.get("paths")
            if not isinstance(name, str) or not name:
                raise self.error("Required value: a name (a string)", f"{where}.name")
            if not isinstance(paths, list) or not paths:
                raise self.error("Required value: a non-empty list of paths", f"{where}.paths")
            found.append(
                ClusterInput(
                    name, tuple(self.path(p, f"{where}.paths[{j}]") for j, p in enumerate(paths))
                )
            )
        labels_seen: dict[str, int] = {}
        for index, cluster in enumerate(found):
            if cluster.label in labels_seen:
                other = labels_seen[cluster.label]
                raise self.error(
                    f"Duplicate value: {cluster.label!r} names clusters[{other}] too; "
                    "give each cluster its own name",
                    f"clusters[{index}]",
                )
            labels_seen[cluster.label] = index
        return tuple(found)

    def configs(self, value: Any) -> tuple[str, ...]:
        if not isinstance(value, list) or not value:
            raise self.error(
                f"Required value: a non-empty list of configuration files (or {DEFAULT_CONFIG})",
                "configs",
            )
        return tuple(
            DEFAULT_CONFIG if c == DEFAULT_CONFIG else self.a_file(c, f"configs[{i}]")
            for i, c in enumerate(value)
        )

    def seeds(self, value: Any) -> tuple[int, ...]:
        if isinstance(value, dict):
            unknown = sorted(set(value) - {"from", "count"})
            if unknown:
                raise self.error("unknown field: expected from, count", f"seeds.{unknown[0]}")
            start = self.whole(value.get("from", 0), "seeds.from", least=0)
            count = self.whole(value.get("count"), "seeds.count", least=1)
            return tuple(range(start, start + count))
        if not isinstance(value, list) or not value:
            raise self.error("Required value: a non-empty list of seeds, or {from, count}", "seeds")
        for index, seed in enumerate(value):
            if not _is_int(seed):
                raise self.error(f"Invalid value: {seed!r}: expected an integer", f"seeds[{index}]")
        if len(set(value)) != len(value):
            raise self.error("Duplicate value: each seed once", "seeds")
        return tuple(value)

    def whole(self, value: Any, where: str, *, least: int) -> int:
        if not _is_int(value) or value < least:
            wanted = "a positive" if least == 1 else "a non-negative"
            raise self.error(f"Invalid value: {value!r}: expected {wanted} integer", where)
        return int(value)

    def duration(self, value: Any) -> float:
        if _is_int(value) or isinstance(value, float):
            return float(value)
        try:
            return parse_duration(str(value))
        except ValueError as error:
            raise self.error(f"Invalid value: {error}", "until") from error


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
