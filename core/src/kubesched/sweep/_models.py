"""The sweep's JSON (`kubesched sweep -o json`, the data of its HTML report) as pydantic
models, from which its JSON Schema is generated (`kubesched schema sweep`)."""

from __future__ import annotations

from typing import Literal

from kubesched.compare import RunMetrics
from kubesched.report import ReportModel

__all__ = ["SweepCluster", "SweepReport", "SweepRun"]


class SweepRun(RunMetrics):
    """One cluster under one configuration and seed: compare's metrics, and the cluster."""

    cluster: str
    placed_differently: int
    """Pods that ended elsewhere (another node, or not placed) than under the sweep's first
    configuration on the same cluster and seed (0 for the first configuration)."""


class SweepCluster(ReportModel):
    name: str
    paths: list[str]


class SweepReport(ReportModel):
    """`kubesched sweep`: clusters x configurations x seeds, a run each, in that order."""

    version: Literal[1]
    clusters: list[SweepCluster]
    configs: list[str]
    seeds: list[int]
    until: float | None
    """Virtual seconds each run lasted at most (null: until nothing is left to do)."""
    scenario: str | None
    runs: list[SweepRun]
    warnings: list[str]
    """Every warning a run printed (`--validate warn`), once each, sorted."""
    title: str | None = None
    """HTML report: what was swept."""
