"""The comparison's JSON (`kubesched compare -o json`, the data of its HTML report) as
pydantic models, from which its JSON Schema is generated (`kubesched schema compare`)."""

from __future__ import annotations

from typing import Literal

from kubesched.report import (
    LatencyRecord,
    NodeRecord,
    ReasonRecord,
    ReportModel,
    SummaryRecord,
)

__all__ = [
    "ComparisonReport",
    "Difference",
    "GangMetrics",
    "MovedPod",
    "RunMetrics",
    "Spread",
    "ZoneSkew",
]


class Spread(ReportModel):
    """Per-node requested / allocatable fractions of one resource over every node."""

    mean: float | None
    stddev: float | None
    """Population standard deviation: 0 is perfectly even."""
    min: float | None
    max: float | None


class ZoneSkew(ReportModel):
    """How evenly bound pods sit in zones (nodes' topology.kubernetes.io/zone)."""

    pods_per_zone: dict[str, int]
    max: int
    """The largest skew of any group."""
    groups: dict[str, int]
    """Group (a controller `ns/Kind/name`, `ns/app=<label>` or a lone pod) → the most
    minus the fewest of its pods in a zone."""


class GangTimes(ReportModel):
    mean: float | None
    max: float | None


class GangMetrics(ReportModel):
    """PodGroups (kubesched-coscheduling's podGroups section)."""

    total: int
    placed: int
    time_to_quorum: GangTimes


class RunMetrics(ReportModel):
    """One configuration under one seed."""

    config: str
    seed: int
    summary: SummaryRecord
    reasons: list[ReasonRecord]
    nodes_used: int
    """Nodes with at least one pod."""
    utilization: dict[str, Spread]
    """cpu and memory: requested / allocatable over every node."""
    packing: dict[str, float | None]
    """cpu and memory: the mean requested / allocatable over the nodes used."""
    largest_free: dict[str, int]
    """cpu (millicores) and memory (bytes): the most free on one node, the largest pod
    of that one resource that still fits (fragmentation)."""
    free: dict[str, int]
    """cpu and memory free over every node."""
    zone_skew: ZoneSkew | None
    preemptions: int
    """Pods evicted by preemption."""
    gangs: GangMetrics | None
    latency: LatencyRecord
    nodes: list[NodeRecord]
    """Each node's allocatable and requested resources at the end of the run."""


class MovedPod(ReportModel):
    pod: str
    baseline: str | None
    """Its node under the baseline (or its status when not placed; null: not there)."""
    other: str | None


class Difference(ReportModel):
    """What a configuration placed differently from the first one, under one seed."""

    seed: int
    baseline: str
    config: str
    placed_differently: int
    pods: list[MovedPod]


class ComparisonReport(ReportModel):
    """`kubesched compare`: the same input under several configurations and seeds."""

    version: Literal[1]
    inputs: list[str]
    configs: list[str]
    seeds: list[int]
    runs: list[RunMetrics]
    differences: list[Difference]
    title: str | None = None
    """HTML report: what was compared."""
