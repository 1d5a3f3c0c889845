"""The public names of the plugin API, pinned: a change here is an API change to review."""

from __future__ import annotations

import importlib

import pytest

import kubesched.framework

FRAMEWORK_API = {
    "API_VERSION", "EXTENSION_POINTS", "MAX_NODE_SCORE", "MAX_TOTAL_SCORE", "MIN_NODE_SCORE",
    "ActionType", "ArrayFilterPlugin", "ArrayNormalizeScorePlugin", "ArrayScorePlugin",
    "BatchFilterPlugin", "BatchScorePlugin", "BindPlugin", "ClusterEvent",
    "ClusterEventWithHint",
    "Code", "CycleState", "Diagnosis", "EnqueueExtensions", "EventRecorder", "EventResource",
    "FilterExplainer", "FilterPlugin", "FitError", "Handle",
    "HostPortInfo", "ImageStateSummary", "NoArgs", "NodeColumns", "NodeInfo", "NodeScore",
    "NodeToStatus", "NominatingInfo", "NominatingMode", "PermitPlugin", "Plugin", "PluginArgs",
    "PluginFactory", "PodInfo", "PostBindPlugin", "PostFilterPlugin", "PostFilterResult",
    "PreBindPlugin", "PreEnqueuePlugin", "PreFilterExtensions", "PreFilterPlugin",
    "PreFilterResult", "PreScorePlugin", "PreemptionVictimGuard", "QueueSortPlugin",
    "QueuedPodInfo", "QueueingHint",
    "QueueingHintFn", "ReservePlugin", "Resource", "RowMask", "RowScores", "Rows",
    "ScorePlugin", "Snapshot", "StateData",
    "StateNotFoundError", "Status", "WaitingPod", "extension_points_of", "is_success",
    "next_generation",
}  # fmt: skip


PREEMPTION_API = {
    "DISRUPTION_TARGET", "PDB_KIND_NAME", "PREEMPTION_BY_SCHEDULER",
    "Candidate", "Evaluator", "MoreImportantPodFunc", "PreemptionInterface", "ScoreFunc",
    "Victims", "by_importance", "earliest_start_time_of_highest_priority", "importance_key",
    "more_important_pod", "pick_one_node_for_preemption", "pod_start_time",
}  # fmt: skip

HOOKSPECS_API = {
    "PROJECT", "PodResultView", "ReportSection", "SimulationResultView", "hookimpl", "hookspec",
    "kubesched_attempt_failed", "kubesched_cluster_controllers", "kubesched_pod_scheduled",
    "kubesched_register_kinds", "kubesched_report_sections",
}  # fmt: skip

WORKLOADS_API = {
    "CONTROLLER_UID", "DURATION_ANNOTATION", "HOOKS_NAME", "JOB_NAME", "POD_TEMPLATE_HASH",
    "RESULT_ANNOTATION", "DaemonSet", "DaemonSetController", "Deployment",
    "DeploymentController", "GarbageCollector", "Job", "JobController", "PodLifecycle", "PodTemplateSpec",
    "ReplicaSet", "ReplicaSetController", "StatefulSet", "StatefulSetController", "Workload",
    "add_daemon_tolerations", "backoff_delay", "check_pod_lifecycles", "compute_hash", "node_should_run",
    "pod_duration", "register", "replace_node_name_affinity", "safe_encode_string",
    "workload_kinds",
}  # fmt: skip

PUBLIC_APIS = {
    "kubesched.framework": FRAMEWORK_API,
    "kubesched.framework.preemption": PREEMPTION_API,
    "kubesched.hookspecs": HOOKSPECS_API,
    "kubesched.workloads": WORKLOADS_API,
}


@pytest.mark.parametrize("module", sorted(PUBLIC_APIS))
def test_public_names_are_pinned(module: str) -> None:
    assert set(importlib.import_module(module).__all__) == PUBLIC_APIS[module]


@pytest.mark.parametrize("module", sorted(PUBLIC_APIS))
def test_every_public_name_exists(module: str) -> None:
    mod = importlib.import_module(module)
    for name in mod.__all__:
        assert hasattr(mod, name), name


def test_extension_points_are_upstreams() -> None:
    assert list(kubesched.framework.EXTENSION_POINTS) == [
        "QueueSort", "PreEnqueue", "PreFilter", "Filter", "PostFilter", "PreScore", "Score",
        "Reserve", "Permit", "PreBind", "Bind", "PostBind",
    ]  # fmt: skip
