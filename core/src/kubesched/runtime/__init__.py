"""Running plugins: the Framework (one per profile), plugin discovery, pluggy hooks."""

from kubesched.runtime._cycle_recording import (
    CYCLE_RECORDER,
    CycleRecorder,
    ScoredNode,
    recorder_of,
)
from kubesched.runtime._fast_runners import RowScoring
from kubesched.runtime._framework import Framework, NodePluginScores, PodNominator
from kubesched.runtime._hooks import make_plugin_manager
from kubesched.runtime._profiles import FrameworkFactory, build_profiles
from kubesched.runtime._registry import (
    ENTRY_POINT_GROUP,
    DiscoveredPlugin,
    PluginRegistry,
)
from kubesched.runtime._waiting_pods import (
    MAX_PERMIT_TIMEOUT,
    WaitingPodImpl,
    WaitingPodsMap,
)

__all__ = [
    "CYCLE_RECORDER",
    "ENTRY_POINT_GROUP",
    "MAX_PERMIT_TIMEOUT",
    "CycleRecorder",
    "DiscoveredPlugin",
    "Framework",
    "FrameworkFactory",
    "NodePluginScores",
    "PluginRegistry",
    "PodNominator",
    "RowScoring",
    "ScoredNode",
    "WaitingPodImpl",
    "WaitingPodsMap",
    "build_profiles",
    "make_plugin_manager",
    "recorder_of",
]
