"""The plugin API: what a plugin implements and what it is given.

Extension-point base classes, Code/Status, CycleState, PodInfo/NodeInfo/Snapshot, cluster
events, Diagnosis/FitError (why no node fits) and the Handle protocol; and
`kubesched.framework.preemption`, the evaluator a preemption PostFilter plugin drives.
Nothing here runs plugins; that is `kubesched.runtime`. Imports only `kubesched.api`,
kubesched's errors and `kubesched.clock` (for typing).
"""

from kubesched.framework._cycle_state import CycleState, StateData, StateNotFoundError
from kubesched.framework._events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
    QueueingHintFn,
)
from kubesched.framework._fit_error import Diagnosis, FitError
from kubesched.framework._interface import (
    EXTENSION_POINTS,
    MAX_NODE_SCORE,
    MAX_TOTAL_SCORE,
    MIN_NODE_SCORE,
    ArrayFilterPlugin,
    ArrayNormalizeScorePlugin,
    ArrayScorePlugin,
    BatchFilterPlugin,
    BatchScorePlugin,
    BindPlugin,
    EnqueueExtensions,
    EventRecorder,
    FilterExplainer,
    FilterPlugin,
    Handle,
    NoArgs,
    PermitPlugin,
    Plugin,
    PluginArgs,
    PluginFactory,
    PostBindPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreemptionVictimGuard,
    PreEnqueuePlugin,
    PreFilterExtensions,
    PreFilterPlugin,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    RowMask,
    Rows,
    RowScores,
    ScorePlugin,
    WaitingPod,
    extension_points_of,
    mask_is_exact,
)
from kubesched.framework._node_info import (
    HostPortInfo,
    ImageStateSummary,
    NodeInfo,
    next_generation,
)
from kubesched.framework._pod_info import PodInfo, QueuedPodInfo
from kubesched.framework._resource import Resource
from kubesched.framework._results import (
    NodeScore,
    NodeToStatus,
    NominatingInfo,
    NominatingMode,
    PostFilterResult,
    PreFilterResult,
    StatusBuilder,
)
from kubesched.framework._snapshot import NodeColumns, Snapshot
from kubesched.framework._status import Code, Status, is_success

API_VERSION = (0, 4)
"""The plugin API's (major, minor): minor grows with additions, major with breaking changes
(before 1.0 a minor may break; 0.4: typed args, PluginArgs, abstract extension-point methods,
the array forms ArrayFilterPlugin/ArrayScorePlugin/ArrayNormalizeScorePlugin, see
docs/writing-a-plugin.md)."""

__all__ = [
    "API_VERSION",
    "EXTENSION_POINTS",
    "MAX_NODE_SCORE",
    "MAX_TOTAL_SCORE",
    "MIN_NODE_SCORE",
    "ActionType",
    "ArrayFilterPlugin",
    "ArrayNormalizeScorePlugin",
    "ArrayScorePlugin",
    "BatchFilterPlugin",
    "BatchScorePlugin",
    "BindPlugin",
    "ClusterEvent",
    "ClusterEventWithHint",
    "Code",
    "CycleState",
    "Diagnosis",
    "EnqueueExtensions",
    "EventRecorder",
    "EventResource",
    "FilterExplainer",
    "FilterPlugin",
    "FitError",
    "Handle",
    "HostPortInfo",
    "ImageStateSummary",
    "NoArgs",
    "NodeColumns",
    "NodeInfo",
    "NodeScore",
    "NodeToStatus",
    "NominatingInfo",
    "NominatingMode",
    "PermitPlugin",
    "Plugin",
    "PluginArgs",
    "PluginFactory",
    "PodInfo",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PostFilterResult",
    "PreBindPlugin",
    "PreEnqueuePlugin",
    "PreFilterExtensions",
    "PreFilterPlugin",
    "PreFilterResult",
    "PreScorePlugin",
    "PreemptionVictimGuard",
    "QueueSortPlugin",
    "QueuedPodInfo",
    "QueueingHint",
    "QueueingHintFn",
    "ReservePlugin",
    "Resource",
    "RowMask",
    "RowScores",
    "Rows",
    "ScorePlugin",
    "Snapshot",
    "StateData",
    "StateNotFoundError",
    "Status",
    "StatusBuilder",
    "WaitingPod",
    "extension_points_of",
    "is_success",
    "mask_is_exact",
    "next_generation",
]
