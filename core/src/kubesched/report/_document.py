"""The report's JSON document: the simulation's JSON with its version, and, for the HTML
report, every attempt, the pods' details, the nodes' zones and the sections' tables."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from kubesched.cluster import Cluster
from kubesched.report._details import node_zones, pod_details
from kubesched.report._models import REPORT_VERSION
from kubesched.simulate import SimulationResult

__all__ = ["html_document", "json_document"]


def json_document(
    result: SimulationResult, *, only: Collection[str] = (), summary_only: bool = False
) -> dict[str, Any]:
    """What `kubesched simulate -o json` prints: `{"version", ...}` then the result's JSON
    (`SimulationResult.to_json_dict`), described by `SimulationReport`."""
    return {"version": REPORT_VERSION, **result.to_json_dict(only=only, summary_only=summary_only)}


def html_document(
    result: SimulationResult,
    *,
    attempts: Mapping[str, Sequence[dict[str, Any]]],
    cluster: Cluster | None,
    title: str,
) -> dict[str, Any]:
    """The HTML report's data: the full JSON document, every pod's attempts (from an
    `AttemptLog`), and what the cluster the run ended with says of its pods and nodes."""
    data = json_document(result)
    data["title"] = title
    data["reasons"] = result.reasons()
    data["attempts"] = {key: list(records) for key, records in sorted(attempts.items())}
    data["details"] = pod_details(cluster, result.pods) if cluster is not None else {}
    data["zones"] = node_zones(cluster) if cluster is not None else {}
    data["sectionTables"] = {
        s.key: {
            "title": s.title,
            "columns": list(s.columns),
            "rows": [list(row) for row in s.rows],
            "caption": s.caption,
        }
        for s in result.sections
    }
    return data
