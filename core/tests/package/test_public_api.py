"""The public names of kubesched's public modules (the plugin API, configuration and the
testing kit), pinned: a change here is an API change to review."""

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
    "StateNotFoundError", "Status", "StatusBuilder", "WaitingPod", "extension_points_of",
    "is_success", "mask_is_exact", "next_generation",
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
    "DeploymentController", "GarbageCollector", "Job", "JobController", "PodLifecycle",
    "PodTemplateSpec", "ReplicaSet", "ReplicaSetController", "StatefulSet",
    "StatefulSetController", "Workload", "add_daemon_tolerations", "backoff_delay",
    "check_pod_lifecycles", "compute_hash", "node_should_run", "pod_duration", "register",
    "replace_node_name_affinity", "safe_encode_string", "workload_kinds",
}  # fmt: skip

API_API = {
    "CPU", "DEFAULT_MEMORY_REQUEST", "DEFAULT_MILLI_CPU_REQUEST", "DEFAULT_SCHEDULER_NAME",
    "EPHEMERAL_STORAGE", "HUGEPAGES_PREFIX", "MEMORY", "PODS", "POD_REASON_SCHEDULING_GATED",
    "POD_SCHEDULED", "SCHEDULING_GATED_MESSAGE", "Affinity", "Container", "ContainerImage",
    "ContainerPort", "ContainerResourceClaim", "K8sModel", "KindInfo", "KindRegistry",
    "LabelSelector", "LabelSelectorRequirement", "Namespace", "Node", "NodeAffinity",
    "NodeCondition",
    "NodeSelector", "NodeSelectorRequirement", "NodeSelectorTerm", "NodeSpec", "NodeStatus",
    "ObjectMeta", "OwnerReference", "Pod", "PodAffinity", "PodAffinityTerm", "PodAntiAffinity",
    "PodCondition", "PodResourceClaim", "PodResourceClaimStatus", "PodSchedulingGate",
    "PodSpec", "PodStatus", "PreferredSchedulingTerm",
    "PriorityClass", "Quantity", "ResourceList", "ResourceRequirements", "Taint", "TaintEffect",
    "Toleration", "TopologySpreadConstraint", "Volume", "WeightedPodAffinityTerm",
    "aggregate_container_limits", "aggregate_container_requests", "core_kinds",
    "apply_merge_patch", "default_pod_level_resources", "find_untolerated_taint",
    "format_quantity", "go_duration",
    "int_value", "is_hugepages", "is_pod_level_requests_set", "is_pod_level_resources_set",
    "is_supported_pod_level_resource", "milli_value", "node_non_zero_requests",
    "normalized_image_name", "parse_go_duration", "parse_quantity", "pod_requests",
    "resource_units",
    "selector_matches", "tolerates_any",
}  # fmt: skip

FIELD_API = {
    "DUPLICATE", "FORBIDDEN", "INTERNAL", "INVALID", "NOT_FOUND", "NOT_SUPPORTED", "REQUIRED",
    "TOO_LONG", "TOO_MANY", "ErrorList", "FieldError", "Path", "Stringer", "aggregate",
    "duplicate", "forbidden", "go_quote", "go_value", "internal_error", "invalid", "new_path",
    "not_found", "not_supported", "required", "too_long", "too_many",
}  # fmt: skip

VALIDATION_API = {
    "is_dns1123_label", "is_dns1123_subdomain", "is_qualified_name", "is_valid_label_value",
    "is_valid_port_name", "validate_label_name", "validate_label_selector", "validate_labels",
}  # fmt: skip

CONFIG_API = {
    "API_VERSION", "BUILTIN_DISTRIBUTION", "COSCHEDULING_DISTRIBUTION", "DEFAULT_PLUGINS",
    "DEFAULT_SCHEDULER_NAME", "KIND", "KNOWN_PROVIDERS", "VOLUMEBINDING_DISTRIBUTION",
    "ClientConnection", "DefaultPlugin", "KubeSchedulerConfiguration", "LeaderElection",
    "MergedSet", "PluginCatalog", "PluginConfig", "PluginEntry", "PluginSet", "Plugins",
    "Profile", "ResolvedConfig", "ResolvedProfile", "check_profiles", "default_plugins",
    "effective_config_dict", "load_config", "merge_plugins", "parse_config", "parse_duration",
    "plugin_args_error", "resolve",
}  # fmt: skip

TESTING_API = {
    "PLUGIN_API_MODULES", "ArgsContract", "ArrayFilterContract", "ArrayScoreContract",
    "BatchFilterContract", "BatchScoreContract", "BindContract", "ClusterScenario",
    "ConformanceWarning", "ContractBase", "EndToEndContract", "EndToEndReport",
    "EnqueueExtensionsContract", "FilterContract", "FilterPhase", "NodeBuilder",
    "PermitContract", "PluginConformance", "PluginContract", "PluginHarness", "PodBuilder",
    "PostBindContract", "PostFilterContract", "PreBindContract", "PreEnqueueContract",
    "PreFilterContract", "PreFilterExtensionsContract", "PreScoreContract", "QueueSortContract",
    "ReserveContract", "Scenario", "ScoreContract", "ScorePhase", "VectorizedContract",
    "array_filter_mismatch", "array_score_mismatch", "batch_filter_mismatch",
    "batch_score_mismatch", "make_node", "make_pod", "plugin_api_violations", "run_end_to_end",
}  # fmt: skip

REPORT_API = {
    "POD_GROUP_LABEL", "REPORT_VERSION", "ZONE_LABEL", "AttemptLog", "AttemptRecord",
    "ClusterWatch", "LatencyRecord", "NodeRecord", "PodDetails", "ReasonRecord", "ReportModel",
    "SimulationReport", "SummaryRecord", "compact_attempt", "expand_attempt", "format_amount",
    "html_document", "json_document", "model_schema", "published_schema", "render_html",
    "render_page", "report_schema", "schema_text", "tile_map", "write_csv",
}  # fmt: skip

COMPARE_API = {
    "DEFAULT_CONFIG", "METRICS", "ComparisonReport", "RunMetrics", "Variant", "allocation_maps",
    "compare", "comparison_rows", "comparison_schema", "placements", "render_comparison_html",
    "run_metrics", "variants", "zone_skew",
}  # fmt: skip

SWEEP_API = {
    "KEY_METRICS", "SWEEP_API_VERSION", "SWEEP_COLUMNS", "SWEEP_KIND", "ClusterInput",
    "DaskError", "Progress", "Run", "SweepReport", "SweepRun", "SweepSpec", "TaskResult",
    "cluster_inputs", "load_sweep", "render_sweep_html", "sweep", "sweep_rows", "sweep_schema",
    "write_sweep_csv",
}  # fmt: skip

PUBLIC_APIS = {
    "kubesched.api": API_API,
    "kubesched.compare": COMPARE_API,
    "kubesched.api.field": FIELD_API,
    "kubesched.api.validation": VALIDATION_API,
    "kubesched.config": CONFIG_API,
    "kubesched.framework": FRAMEWORK_API,
    "kubesched.framework.preemption": PREEMPTION_API,
    "kubesched.hookspecs": HOOKSPECS_API,
    "kubesched.report": REPORT_API,
    "kubesched.sweep": SWEEP_API,
    "kubesched.testing": TESTING_API,
    "kubesched.workloads": WORKLOADS_API,
}


@pytest.mark.parametrize("module", sorted(PUBLIC_APIS))
def test_public_names_are_pinned(module: str) -> None:
    assert set(importlib.import_module(module).__all__) == PUBLIC_APIS[module]


@pytest.mark.parametrize("module", sorted(PUBLIC_APIS))
def test_every_public_name_exists(module: str) -> None:
    mod = importlib.import_module(module)
    for name in mod.__all__:
        assert getattr(mod, name, None) is not None, name


def test_the_testing_kit_exports_every_contract() -> None:
    contracts = importlib.import_module("kubesched.testing.contracts")
    assert set(contracts.__all__) <= TESTING_API | {"PluginUnderTest", "applies_to"}


def test_extension_points_are_upstreams() -> None:
    assert list(kubesched.framework.EXTENSION_POINTS) == [
        "QueueSort", "PreEnqueue", "PreFilter", "Filter", "PostFilter", "PreScore", "Score",
        "Reserve", "Permit", "PreBind", "Bind", "PostBind",
    ]  # fmt: skip
