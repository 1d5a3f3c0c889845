"""Program-level hooks (entry point group `kubesched`): the PodGroup kind, its status
controller and the `podGroups` section of the simulation report.

Registered with::

    [project.entry-points.kubesched]
    coscheduling = "kubesched_coscheduling.hooks"

Tests register the module directly: `make_plugin_manager(load_entrypoints=False)` then
`pm.register(kubesched_coscheduling.hooks)`.
"""

from __future__ import annotations

from kubesched.api import KindRegistry
from kubesched.cluster import Cluster, Controller
from kubesched.hookspecs import ReportSection, SimulationResultView, hookimpl
from kubesched_coscheduling.podgroup import POD_GROUP_KIND_INFO, PodGroupController

__all__ = [
    "kubesched_cluster_controllers",
    "kubesched_register_kinds",
    "kubesched_report_sections",
]


@hookimpl
def kubesched_register_kinds(registry: KindRegistry) -> None:
    """PodGroup (`scheduling.x-k8s.io/v1alpha1`), namespaced: manifests load and the
    embedded cluster stores it."""
    registry.register(POD_GROUP_KIND_INFO)


@hookimpl
def kubesched_cluster_controllers(cluster: Cluster) -> list[Controller]:
    """The PodGroup status controller, one per embedded cluster."""
    return [PodGroupController()]


@hookimpl
def kubesched_report_sections(
    cluster: Cluster, result: SimulationResultView
) -> list[ReportSection]:
    """One row per PodGroup (members bound / waiting / pending, phase, the `Scheduled`
    condition's reason, time to quorum); nothing when the simulation has no PodGroup."""
    # imported here: `kubesched run` loads this module too and never reports
    from kubesched_coscheduling.podgroup.report import report_section

    section = report_section(cluster, result)
    return [] if section is None else [section]
