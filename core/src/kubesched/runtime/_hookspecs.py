"""Program-level hooks (pluggy, entry point group `kubesched`).

These extend the program, not a scheduling cycle: kinds for the manifest loader and the
stores, controllers for the embedded cluster, observers of scheduling outcomes, sections of
the simulation report. Extension points are not hooks: their order and weights come from
the profile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from kubesched.api import KindRegistry, Pod
    from kubesched.cluster import Cluster, Controller

__all__ = ["PROJECT", "hookimpl", "hookspec"]

PROJECT = "kubesched"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec(historic=True)
def kubesched_register_kinds(registry: KindRegistry) -> None:
    """Register API kinds (models, plural, scope) with the manifest loader and stores."""


@hookspec
def kubesched_cluster_controllers(cluster: Cluster) -> list[Controller]:
    """Controllers to run beside the embedded `memory` cluster."""
    raise NotImplementedError


@hookspec
def kubesched_pod_scheduled(pod: Pod, node_name: str, profile: str) -> None:
    """A pod was bound."""


@hookspec
def kubesched_attempt_failed(pod: Pod, profile: str, code: str, message: str) -> None:
    """A scheduling attempt ended without binding (rejection or error)."""


@hookspec
def kubesched_report_sections(cluster: Cluster, result: Any) -> list[Any]:
    """Sections to add to a simulation's report, beside the pods and nodes.

    Called once, when a simulation ends (before waiting pods are released), with the
    embedded cluster as it is then and the `kubesched.simulate.SimulationResult` (its
    pods' outcomes). Return a list of `kubesched.simulate.ReportSection` (an empty list
    when there is nothing to report, so the report stays as it was): the table output
    prints each as its own table after the pods, the JSON output puts each payload under
    `"sections"` by the section's key. Keys must be unique across hook modules. The types
    are `Any` here because `simulate` is a layer above `runtime`."""
    raise NotImplementedError
