"""Workloads in the embedded cluster: Deployment, ReplicaSet, StatefulSet, DaemonSet and Job,
their controllers, the garbage collector (dependents of deleted workloads, pods of deleted
nodes) and the pod lifecycle (pods that finish after a virtual duration).

The kinds and controllers live in core because they are Kubernetes' own (apps/v1,
batch/v1), which every simulation should understand whatever plugins are installed; they
are contributed through the program hooks as any package's kinds are (`hooks`), so a
plugin package can add controllers of its own beside them (a PodGroup per Job, say).

Layer: beside `cluster.memory` (imports api, config, cluster and hookspecs only).
"""

from __future__ import annotations

from typing import Final

import pluggy

from kubesched.workloads import hooks
from kubesched.workloads._daemonset import (
    DaemonSetController,
    add_daemon_tolerations,
    node_should_run,
    replace_node_name_affinity,
)
from kubesched.workloads._deployment import DeploymentController
from kubesched.workloads._gc import GarbageCollector
from kubesched.workloads._job import JobController, backoff_delay
from kubesched.workloads._labels import (
    CONTROLLER_UID,
    DURATION_ANNOTATION,
    JOB_NAME,
    POD_TEMPLATE_HASH,
    RESULT_ANNOTATION,
)
from kubesched.workloads._lifecycle import PodLifecycle, pod_duration
from kubesched.workloads._models import (
    DaemonSet,
    Deployment,
    Job,
    PodTemplateSpec,
    ReplicaSet,
    StatefulSet,
    Workload,
    workload_kinds,
)
from kubesched.workloads._pods import compute_hash, safe_encode_string
from kubesched.workloads._replicaset import ReplicaSetController
from kubesched.workloads._statefulset import StatefulSetController
from kubesched.workloads._validation import check_pod_lifecycles

__all__ = [
    "CONTROLLER_UID",
    "DURATION_ANNOTATION",
    "HOOKS_NAME",
    "JOB_NAME",
    "POD_TEMPLATE_HASH",
    "RESULT_ANNOTATION",
    "DaemonSet",
    "DaemonSetController",
    "Deployment",
    "DeploymentController",
    "GarbageCollector",
    "Job",
    "JobController",
    "PodLifecycle",
    "PodTemplateSpec",
    "ReplicaSet",
    "ReplicaSetController",
    "StatefulSet",
    "StatefulSetController",
    "Workload",
    "add_daemon_tolerations",
    "backoff_delay",
    "check_pod_lifecycles",
    "compute_hash",
    "node_should_run",
    "pod_duration",
    "register",
    "replace_node_name_affinity",
    "safe_encode_string",
    "workload_kinds",
]

HOOKS_NAME: Final = "kubesched.workloads"
"""The name the hook module is registered under in a plugin manager."""


def register(plugin_manager: pluggy.PluginManager) -> None:
    """Add the workload kinds and controllers to `plugin_manager` (once; a second call
    does nothing)."""
    if not plugin_manager.has_plugin(HOOKS_NAME):
        plugin_manager.register(hooks, name=HOOKS_NAME)
