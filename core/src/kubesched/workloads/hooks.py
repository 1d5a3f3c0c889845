"""The workload kinds' program hooks: their kinds, their controllers for the embedded
cluster and the report's Workloads section, contributed through the same hooks a plugin
package uses for its own (`kubesched_register_kinds`, `kubesched_cluster_controllers`,
`kubesched_report_sections`).

A simulation registers this module with its plugin manager (`kubesched.workloads.register`).
`kubesched run` does not: a real cluster runs its own controllers, and the scheduler does
not need to watch these kinds there.
"""

from __future__ import annotations

from kubesched.api import KindRegistry
from kubesched.cluster import Cluster, Controller
from kubesched.hookspecs import ReportSection, SimulationResultView, hookimpl
from kubesched.workloads._daemonset import DaemonSetController
from kubesched.workloads._deployment import DeploymentController
from kubesched.workloads._gc import GarbageCollector
from kubesched.workloads._job import JobController
from kubesched.workloads._lifecycle import PodLifecycle
from kubesched.workloads._models import workload_kinds
from kubesched.workloads._replicaset import ReplicaSetController
from kubesched.workloads._report import workloads_section
from kubesched.workloads._statefulset import StatefulSetController

__all__ = [
    "kubesched_cluster_controllers",
    "kubesched_register_kinds",
    "kubesched_report_sections",
]


@hookimpl
def kubesched_register_kinds(registry: KindRegistry) -> None:
    for info in workload_kinds():
        registry.register(info)


@hookimpl
def kubesched_cluster_controllers(cluster: Cluster) -> list[Controller]:
    return [
        DeploymentController(),
        ReplicaSetController(),
        StatefulSetController(),
        DaemonSetController(),
        JobController(),
        PodLifecycle(),
        GarbageCollector(),
    ]


@hookimpl
def kubesched_report_sections(
    cluster: Cluster, result: SimulationResultView
) -> list[ReportSection]:
    section = workloads_section(cluster)
    return [] if section is None else [section]
