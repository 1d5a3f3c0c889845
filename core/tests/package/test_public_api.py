"""The public names of the plugin API, pinned: a change here is an API change to review."""

from __future__ import annotations

import kubesched.framework

FRAMEWORK_API = {
    "API_VERSION", "EXTENSION_POINTS", "MAX_NODE_SCORE", "MAX_TOTAL_SCORE", "MIN_NODE_SCORE",
    "ActionType", "BatchFilterPlugin", "BatchScorePlugin", "BindPlugin", "ClusterEvent",
    "ClusterEventWithHint",
    "Code", "CycleState", "Diagnosis", "EnqueueExtensions", "EventRecorder", "EventResource",
    "FilterExplainer", "FilterPlugin", "FitError", "Handle",
    "HostPortInfo", "ImageStateSummary", "NoArgs", "NodeColumns", "NodeInfo", "NodeScore",
    "NodeToStatus", "NominatingInfo", "NominatingMode", "PermitPlugin", "Plugin", "PluginArgs",
    "PluginFactory", "PodInfo", "PostBindPlugin", "PostFilterPlugin", "PostFilterResult",
    "PreBindPlugin", "PreEnqueuePlugin", "PreFilterExtensions", "PreFilterPlugin",
    "PreFilterResult", "PreScorePlugin", "PreemptionVictimGuard", "QueueSortPlugin",
    "QueuedPodInfo", "QueueingHint",
    "QueueingHintFn", "ReservePlugin", "Resource", "ScorePlugin", "Snapshot", "StateData",
    "StateNotFoundError", "Status", "WaitingPod", "extension_points_of", "is_success",
    "next_generation",
}  # fmt: skip


def test_framework_public_names_are_pinned() -> None:
    assert set(kubesched.framework.__all__) == FRAMEWORK_API


def test_every_public_name_exists() -> None:
    for name in kubesched.framework.__all__:
        assert hasattr(kubesched.framework, name), name


def test_extension_points_are_upstreams() -> None:
    assert list(kubesched.framework.EXTENSION_POINTS) == [
        "QueueSort", "PreEnqueue", "PreFilter", "Filter", "PostFilter", "PreScore", "Score",
        "Reserve", "Permit", "PreBind", "Bind", "PostBind",
    ]  # fmt: skip
