"""The plugin contract: one base class per extension point of KEP-624.

Upstream: staging/src/k8s.io/kube-scheduler/framework/interface.go. A plugin class
inherits the bases of the points it implements; the framework places it at each of them.
Returning None means Success. Anything a plugin raises becomes an Error status naming it.

A plugin class is its own factory: the framework calls `PluginClass(args, handle)` with
`args` an instance of the class's `Args` model (validated from `pluginConfig`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from pydantic import BaseModel, ConfigDict

from kubesched.api import Pod
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._events import ClusterEventWithHint
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._pod_info import PodInfo, QueuedPodInfo
from kubesched.framework._results import (
    NodeScore,
    NodeToStatus,
    PostFilterResult,
    PreFilterResult,
)
from kubesched.framework._snapshot import Snapshot
from kubesched.framework._status import Status

if TYPE_CHECKING:
    from kubesched.clock import Clock

__all__ = [
    "EXTENSION_POINTS",
    "MAX_NODE_SCORE",
    "MAX_TOTAL_SCORE",
    "MIN_NODE_SCORE",
    "BindPlugin",
    "EnqueueExtensions",
    "EventRecorder",
    "FilterPlugin",
    "Handle",
    "NoArgs",
    "PermitPlugin",
    "Plugin",
    "PluginFactory",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PreBindPlugin",
    "PreEnqueuePlugin",
    "PreFilterExtensions",
    "PreFilterPlugin",
    "PreScorePlugin",
    "QueueSortPlugin",
    "ReservePlugin",
    "ScorePlugin",
    "WaitingPod",
    "extension_points_of",
]

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
MAX_TOTAL_SCORE = 2**63 - 1


class NoArgs(BaseModel):
    """Args of a plugin that takes none: any field is an error."""

    model_config = ConfigDict(extra="forbid")


class Plugin:
    """Base of every plugin.

    Subclasses set `name` (the name profiles use, equal to the entry point's name) and,
    when they take arguments, `Args` (a pydantic model; unknown fields should be forbidden).
    """

    name: ClassVar[str] = ""
    Args: ClassVar[type[BaseModel]] = NoArgs

    def __init__(self, args: BaseModel, handle: Handle) -> None:
        self.args = args
        self.handle = handle


class EnqueueExtensions:
    """Declares which cluster events may make a pod this plugin rejected schedulable.

    Honoured for PreEnqueue, PreFilter, Filter, Reserve and Permit plugins. A plugin that
    rejects pods but does not declare this is registered for every event.
    """

    def events_to_register(self) -> list[ClusterEventWithHint]:
        raise NotImplementedError


class QueueSortPlugin(Plugin):
    """Orders the active queue; exactly one per profile (and the same in all profiles)."""

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        raise NotImplementedError


class PreEnqueuePlugin(Plugin):
    """Gate before the active queue. A non-success keeps the pod in the unschedulable pool
    (gated) until an event it registered for lets it try again."""

    def pre_enqueue(self, pod: Pod) -> Status | None:
        raise NotImplementedError


class PreFilterExtensions(Protocol):
    """Incremental updates of PreFilter state when a pod is added to or removed from a
    node hypothetically (nominated pods, preemption dry runs)."""

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None: ...

    def remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None: ...


class PreFilterPlugin(Plugin):
    """Runs once per cycle before Filter.

    Skip disables this plugin's Filter (and extensions) for the cycle. A PreFilterResult
    narrows the nodes Filter looks at (intersected across plugins; empty = unschedulable).
    UnschedulableAndUnresolvable stops at once; Unschedulable is remembered while the other
    PreFilter plugins still run; either marks every node with that status.
    """

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        raise NotImplementedError

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return None


class FilterPlugin(Plugin):
    """Whether the pod can run on a node. The first non-success ends that node."""

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        raise NotImplementedError


class PostFilterPlugin(Plugin):
    """Runs when no node fits (e.g. preemption). The first Success wins; its result may
    nominate a node. The pod is not scheduled in this cycle either way."""

    def post_filter(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        raise NotImplementedError


class PreScorePlugin(Plugin):
    """Runs once before Score with the feasible nodes; Skip disables this plugin's Score."""

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        raise NotImplementedError


class ScorePlugin(Plugin):
    """Ranks feasible nodes. After `normalize_score` (if overridden) every score must lie
    in [0, 100]; it is then multiplied by the plugin's weight."""

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        raise NotImplementedError

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        """Rewrite `scores` in place. The base does nothing and is not called."""
        return None


class ReservePlugin(Plugin):
    """Claims resources for the chosen node before binding. On any later failure every
    Reserve plugin's `unreserve` runs, in reverse order: it must be idempotent, must not
    fail, and must cope with a `reserve` that never ran."""

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        raise NotImplementedError

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        raise NotImplementedError


class PermitPlugin(Plugin):
    """Approves, rejects or holds (Wait, with a timeout in seconds, at most 15 minutes) the
    pod before binding. Any rejection wins; a held pod binds once every plugin that said
    Wait has allowed it through the Handle's waiting pods."""

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        raise NotImplementedError


class PreBindPlugin(Plugin):
    """Binding cycle: prepares the bind (e.g. provisions volumes). Failure unreserves."""

    async def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        raise NotImplementedError


class BindPlugin(Plugin):
    """Binds the pod. Skip passes to the next Bind plugin; the first Success ends Bind."""

    async def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        raise NotImplementedError


class PostBindPlugin(Plugin):
    """Informational, after a successful bind."""

    async def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        raise NotImplementedError


EXTENSION_POINTS: dict[str, type[Plugin]] = {
    "QueueSort": QueueSortPlugin,
    "PreEnqueue": PreEnqueuePlugin,
    "PreFilter": PreFilterPlugin,
    "Filter": FilterPlugin,
    "PostFilter": PostFilterPlugin,
    "PreScore": PreScorePlugin,
    "Score": ScorePlugin,
    "Reserve": ReservePlugin,
    "Permit": PermitPlugin,
    "PreBind": PreBindPlugin,
    "Bind": BindPlugin,
    "PostBind": PostBindPlugin,
}
"""Extension point name (as in KubeSchedulerConfiguration, capitalised) → base class."""


def extension_points_of(plugin: type[Any]) -> list[str]:
    """The extension points a plugin class implements, in EXTENSION_POINTS order."""
    if not isinstance(plugin, type):
        return []
    return [name for name, base in EXTENSION_POINTS.items() if issubclass(plugin, base)]


PluginFactory = Callable[[BaseModel, "Handle"], Plugin]


class WaitingPod(Protocol):
    """A pod held at Permit."""

    @property
    def pod(self) -> Pod: ...

    def get_pending_plugins(self) -> list[str]: ...

    def allow(self, plugin: str) -> None:
        """That plugin lets the pod go; it binds once no plugin is pending."""
        ...

    def reject(self, plugin: str, message: str) -> bool:
        """Reject the pod (first signal wins); False when it was already decided."""
        ...


class EventRecorder(Protocol):
    def event(self, obj: Any, event_type: str, reason: str, action: str, message: str) -> None:
        """Record an Event (`Normal`/`Warning`) about `obj`, as kube-scheduler does."""
        ...


class Handle(Protocol):
    """What a plugin can reach of the framework that runs it."""

    @property
    def profile_name(self) -> str: ...

    @property
    def snapshot(self) -> Snapshot:
        """The current cycle's snapshot (node infos by name and in order)."""
        ...

    @property
    def cluster(self) -> Any:
        """The `kubesched.cluster.Cluster` being scheduled (memory or real API server)."""
        ...

    @property
    def clock(self) -> Clock: ...

    @property
    def event_recorder(self) -> EventRecorder: ...

    def iterate_over_waiting_pods(self, callback: Callable[[WaitingPod], None]) -> None: ...

    def get_waiting_pod(self, uid: str) -> WaitingPod | None: ...

    def reject_waiting_pod(self, uid: str) -> bool: ...

    def run_filter_plugins_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status: ...

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status: ...

    def run_pre_filter_extension_remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status: ...

    def activate(self, pods: Sequence[Pod]) -> None:
        """Move these pods (if unschedulable or backing off) to the active queue."""
        ...

    def run_pre_filter_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status, set[str]]:
        """The profile's PreFilter runner (result, status, rejecting plugins); for plugins
        that evaluate hypothetical placements (preemption, gang feasibility)."""
        ...

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
        """The profile's Filter runner on one node (without nominated pods)."""
        ...

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """Pods nominated to this node (by preemption) that are not bound yet."""
        ...

    def plugins_at(self, extension_point: str) -> list[str]:
        """The plugin names this profile runs at an extension point ("Permit", ...)."""
        ...
