"""The plugin contract: one base class per extension point of KEP-624.

Upstream: staging/src/k8s.io/kube-scheduler/framework/interface.go. A plugin class
inherits the bases of the points it implements; the framework places it at each of them.
Each base's methods without a default are abstract: a plugin class that leaves one out
cannot be instantiated, and discovery reports it as broken, naming the method.
Returning None means Success. Anything a plugin raises becomes an Error status naming it.

A plugin class is its own factory: the framework calls `PluginClass(args, handle)` with
`args` an instance of the class's `Args` model (validated from `pluginConfig`). The bases
are generic in that model, so `FilterPlugin[MyArgs]` types `self.args` as `MyArgs` and
makes `MyArgs` the class's `Args`.
"""

from __future__ import annotations

from abc import ABCMeta, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Generic,
    Protocol,
    Self,
    cast,
    get_args,
    get_origin,
    runtime_checkable,
)

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, model_validator
from pydantic.alias_generators import to_camel
from typing_extensions import TypeVar  # a default for the type parameter (PEP 696)

from kubesched.api import Pod
from kubesched.api.field import ErrorList, aggregate
from kubesched.framework._cycle_state import CycleState
from kubesched.framework._events import ClusterEvent, ClusterEventWithHint
from kubesched.framework._node_columns import NodeColumns
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
    "ArrayFilterPlugin",
    "ArrayNormalizeScorePlugin",
    "ArrayScorePlugin",
    "BatchFilterPlugin",
    "BatchScorePlugin",
    "BindPlugin",
    "EnqueueExtensions",
    "EventRecorder",
    "FilterExplainer",
    "FilterPlugin",
    "Handle",
    "NoArgs",
    "PermitPlugin",
    "Plugin",
    "PluginArgs",
    "PluginFactory",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PreBindPlugin",
    "PreEnqueuePlugin",
    "PreFilterExtensions",
    "PreFilterPlugin",
    "PreScorePlugin",
    "PreemptionVictimGuard",
    "QueueSortPlugin",
    "ReservePlugin",
    "RowMask",
    "RowScores",
    "Rows",
    "ScorePlugin",
    "WaitingPod",
    "extension_points_of",
    "mask_is_exact",
]

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
MAX_TOTAL_SCORE = 2**63 - 1

Rows = npt.NDArray[np.intp]
"""Rows of the cycle's `Snapshot.columns` (`NodeColumns`): the nodes an array form answers
for, in the order given (row i is `snapshot.node_info_list[i]`)."""
RowMask = npt.NDArray[np.bool_]
"""One bool per row given: an array Filter's answer (True: the pod may run there)."""
RowScores = npt.NDArray[np.int64]
"""One int64 per row given: an array Score's (or NormalizeScore's) answer."""


class PluginArgs(BaseModel):
    """Base of a plugin's `Args` (what its `pluginConfig[].args` holds).

    Fields are written in camelCase in files (`bindTimeoutSeconds` for
    `bind_timeout_seconds`), may be given by either name in Python, and an unknown field is
    an error. After parsing, `set_defaults` fills in what was left out and
    `validation_errors` reports every problem at once; the framework refuses the args with
    the aggregate of those errors (upstream: each plugin's SetDefaults_<Plugin>Args and
    Validate<Plugin>Args in pkg/scheduler/apis/config). Nested models of the args use the
    same `PluginArgs.model_config`.
    """

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    def set_defaults(self) -> None:
        """Fill in defaults that depend on other fields or settings; the base sets none."""

    def validation_errors(self) -> ErrorList:
        """Every problem with the (defaulted) args as `kubesched.api.field` errors, paths
        relative to the args; empty when valid (the base's case)."""
        return []

    @model_validator(mode="after")
    def _default_and_validate(self) -> Self:
        self.set_defaults()
        errors = self.validation_errors()
        if errors:
            # upstream utilerrors.Aggregate: one error alone, several as "[a, b]"
            raise ValueError(aggregate(errors))
        return self


class NoArgs(PluginArgs):
    """Args of a plugin that takes none: any field is an error."""


ArgsT = TypeVar("ArgsT", bound=BaseModel, default=BaseModel, covariant=True)
"""The type of a plugin's args; a base used without it (`FilterPlugin`) means `BaseModel`."""


class Plugin(Generic[ArgsT], metaclass=ABCMeta):
    """Base of every plugin, generic in its args model.

    Subclasses set `name` (the name profiles use, equal to the entry point's name) and,
    when they take arguments, name the args model as the type parameter of every base
    they inherit (`class MyPlugin(FilterPlugin[MyArgs], ScorePlugin[MyArgs])`): `self.args`
    is then typed `MyArgs`, and `Args` (the model the framework validates `pluginConfig`
    with) is set to it. Setting `Args` by hand still works; a plugin without args needs
    neither (its `Args` is `NoArgs`).
    """

    name: ClassVar[str] = ""
    Args: ClassVar[type[BaseModel]] = NoArgs

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = _args_parameter(cls)
        if declared is None:
            return
        if "Args" in cls.__dict__ and cls.__dict__["Args"] is not declared:
            raise TypeError(
                f"{cls.__qualname__}: Args is {cls.Args.__name__} but its bases are "
                f"parameterized with {declared.__name__}"
            )
        cls.Args = declared

    def __init__(self, args: ArgsT, handle: Handle) -> None:
        # the one check of the args' type (the framework builds them from `Args`); None
        # stands for the defaults (plugins built by hand, e.g. in tests)
        expected = type(self).Args
        if args is None:
            args = cast(ArgsT, expected())
        if not isinstance(args, expected):
            raise TypeError(
                f"plugin {self.name or type(self).__qualname__!r} wants args of type "
                f"{expected.__name__}, got {type(args).__name__}"
            )
        self.args: ArgsT = args
        self.handle = handle


def _args_parameter(cls: type) -> type[BaseModel] | None:
    """The args model a class's own bases are parameterized with (`FilterPlugin[X]`)."""
    found: list[type[BaseModel]] = []
    for base in cls.__dict__.get("__orig_bases__", ()):
        origin = get_origin(base)
        if isinstance(origin, type) and issubclass(origin, Plugin):
            found += [a for a in get_args(base) if isinstance(a, type) and issubclass(a, BaseModel)]
    if len(set(found)) > 1:
        names = " and ".join(dict.fromkeys(a.__name__ for a in found))
        raise TypeError(f"{cls.__qualname__}: its bases are parameterized with {names}")
    return found[0] if found else None


class EnqueueExtensions(metaclass=ABCMeta):
    """Declares which cluster events may make a pod this plugin rejected schedulable.

    Honoured for PreEnqueue, PreFilter, Filter, Reserve and Permit plugins. A plugin that
    rejects pods but does not declare this is registered for every event.
    """

    @abstractmethod
    def events_to_register(self) -> list[ClusterEventWithHint]:
        raise NotImplementedError


class QueueSortPlugin(Plugin[ArgsT]):
    """Orders the active queue; exactly one per profile (and the same in all profiles)."""

    @abstractmethod
    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        raise NotImplementedError


class PreEnqueuePlugin(Plugin[ArgsT]):
    """Gate before the active queue. A non-success keeps the pod in the unschedulable pool
    (gated) until an event it registered for lets it try again."""

    @abstractmethod
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


class PreFilterPlugin(Plugin[ArgsT]):
    """Runs once per cycle before Filter.

    Skip disables this plugin's Filter (and extensions) for the cycle. A PreFilterResult
    narrows the nodes Filter looks at (intersected across plugins; empty = unschedulable).
    UnschedulableAndUnresolvable stops at once; Unschedulable is remembered while the other
    PreFilter plugins still run; either marks every node with that status.
    """

    @abstractmethod
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        raise NotImplementedError

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return None


class FilterPlugin(Plugin[ArgsT]):
    """Whether the pod can run on a node. The first non-success ends that node."""

    @abstractmethod
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        raise NotImplementedError


@runtime_checkable
class BatchFilterPlugin(Protocol):
    """Optional capability of a Filter plugin: filter many nodes in one call.

    Not in upstream, where the framework calls Filter once per node (in parallel). A Python
    call per node and plugin is most of a cycle's Filter cost, so a Filter plugin may also
    define `filter_nodes`; the framework then calls it on a chunk of nodes at a time (those
    of the chunk that every earlier plugin let through) instead of `filter` on each. It
    must return, for each node in the order given, exactly what `filter` returns on it: None
    (or Success) where the pod may run, otherwise a Status with the same code and reasons.
    Filter must be pure (as upstream requires), so the framework may ask about a few nodes
    beyond those it ends up using; their answers are discarded. When `filter_nodes` raises,
    the framework asks `filter` node by node for that call instead, so where `filter` would
    raise on a node, `filter_nodes` should raise too. The nodes given may be copies that
    are not the snapshot's (on the fast path, a node with its nominated pods added, when no
    PreFilter extension runs in the cycle). The nominated-node shortcut, explanations and
    `Handle.run_filter_plugins` keep calling `filter`. The conformance kit checks the two
    agree.
    """

    def filter_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> Sequence[Status | None]: ...


@runtime_checkable
class ArrayFilterPlugin(Protocol):
    """Optional capability of a Filter plugin (plugin API 0.4): answer for a block of the
    snapshot's nodes with a boolean mask computed on its `NodeColumns`.

    Not in upstream (where the framework calls Filter once per node, in parallel). In the
    scheduler's node search (the fast path), the framework calls `filter_mask` with the
    cycle's state, the pod, `handle.snapshot.columns` and the rows of a block of candidate
    nodes (those every earlier Filter plugin let through), and reads True where the pod may
    run. Statuses are built only for the rows answered False, and by `filter` itself: the
    framework asks `filter` on each such node for its Status and reasons (the diagnosis,
    PostFilter and preemption read them), and trusts `filter` where the two disagree. So a
    mask may only be wrong by rejecting too much, which costs speed, never a decision; it
    must never pass a node `filter` would reject. When `filter_mask` raises, the framework
    asks `filter` node by node for that block. Nodes with nominated pods, the nominated-node
    shortcut, explanations, preemption's dry runs and `Handle.run_filter_plugins` keep
    calling `filter`, as does the per-node path (`--no-fast-path`, KUBESCHED_FAST_PATH=0).
    The conformance kit checks that mask and `filter` agree on generated clusters.

    A plugin whose mask never rejects more than `filter` does may say so with a class
    attribute `filter_mask_exact = True` (`mask_is_exact`): every row it answers False,
    `filter` rejects with Unschedulable or UnschedulableAndUnresolvable (never Pending,
    an Error or a raise). The framework then calls `filter` on those rows only when their
    statuses are read (`NodeToStatus.defer`): for an unschedulable pod's diagnosis, not
    for a pod the search places. The conformance kit checks that promise too.
    """

    def filter_mask(
        self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows
    ) -> RowMask: ...


def mask_is_exact(plugin: object) -> bool:
    """Whether an ArrayFilterPlugin's `filter_mask` rejects only what `filter` rejects (its
    class sets `filter_mask_exact = True`)."""
    return getattr(plugin, "filter_mask_exact", False) is True


@runtime_checkable
class ArrayScorePlugin(Protocol):
    """Optional capability of a Score plugin (plugin API 0.4): score a block of the
    snapshot's nodes as an int64 array computed on its `NodeColumns`.

    In the fast path the framework calls `score_array` once per cycle with the feasible
    nodes' rows and reads one raw score per row (before NormalizeScore), or, with a
    non-success status, fails the cycle as `score` failing on a node would. It must answer
    exactly what `score` does node by node. When `score_array` raises, the framework scores
    node by node with `score` instead (so an error reads as the per-node path's). The
    conformance kit checks the two agree.
    """

    def score_array(
        self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows
    ) -> tuple[RowScores, Status | None]: ...


@runtime_checkable
class ArrayNormalizeScorePlugin(Protocol):
    """Optional capability of a Score plugin with `normalize_score` (plugin API 0.4):
    normalize the raw scores of the rows as an array.

    The fast path calls it instead of building a `NodeScore` per node; it returns the
    normalized scores (a new array or `scores` changed in place) and a status, exactly what
    `normalize_score` leaves in the NodeScores and returns. When it raises, the framework
    calls `normalize_score` instead.
    """

    def normalize_score_array(
        self, state: CycleState, pod: Pod, scores: RowScores
    ) -> tuple[RowScores, Status | None]: ...


@runtime_checkable
class FilterExplainer(Protocol):
    """Optional capability of a Filter plugin: say in detail why it rejected a node.

    Only explanations use it (`kubesched simulate --explain POD`): for an explained pod,
    on each node where this plugin's `filter` did not succeed, the framework calls
    `explain_filter` with the same cycle state and shows the lines beside the verdict
    (the `details` of the node in JSON). The Status reasons stay as they are (they are
    upstream's, often aggregated across nodes); the lines may name objects, e.g. which
    claim failed and why. Never called during real scheduling; must not change `state`
    or anything else; an exception is shown as a line, never fails the explanation.
    """

    def explain_filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> list[str]: ...


class PostFilterPlugin(Plugin[ArgsT]):
    """Runs when no node fits (e.g. preemption). The first Success wins; its result may
    nominate a node. The pod is not scheduled in this cycle either way."""

    @abstractmethod
    def post_filter(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        raise NotImplementedError


class PreScorePlugin(Plugin[ArgsT]):
    """Runs once before Score with the feasible nodes; Skip disables this plugin's Score."""

    @abstractmethod
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        raise NotImplementedError


class ScorePlugin(Plugin[ArgsT]):
    """Ranks feasible nodes. After `normalize_score` (if overridden) every score must lie
    in [0, 100]; it is then multiplied by the plugin's weight."""

    @abstractmethod
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        raise NotImplementedError

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        """Rewrite `scores` in place. The base does nothing and is not called."""
        return None


@runtime_checkable
class BatchScorePlugin(Protocol):
    """Optional capability of a Score plugin: score all the cycle's nodes in one call.

    Not in upstream, where the framework calls Score once per node (in parallel). A Python
    call per node and plugin is most of a cycle's cost, so a Score plugin may also define
    `score_nodes`; the framework then calls it once per cycle instead of `score` on each
    node. It must answer exactly what `score` would, node by node in the order given:
    the raw scores (before NormalizeScore, which still runs as usual), one int per node,
    or, when `score` would fail on some node, the status `score` returns on the first
    such node (the cycle then fails with it, as upstream RunScorePlugins does). The
    conformance kit checks the two agree. Plugins without it keep the per-node path.
    """

    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[Sequence[int], Status | None]: ...


class ReservePlugin(Plugin[ArgsT]):
    """Claims resources for the chosen node before binding. On any later failure every
    Reserve plugin's `unreserve` runs, in reverse order: it must be idempotent, must not
    fail, and must cope with a `reserve` that never ran."""

    @abstractmethod
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        raise NotImplementedError

    @abstractmethod
    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        raise NotImplementedError


class PermitPlugin(Plugin[ArgsT]):
    """Approves, rejects or holds (Wait, with a timeout in seconds, at most 15 minutes) the
    pod before binding. Any rejection wins; a held pod binds once every plugin that said
    Wait has allowed it through the Handle's waiting pods."""

    @abstractmethod
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        raise NotImplementedError


class PreBindPlugin(Plugin[ArgsT]):
    """Binding cycle: prepares the bind (e.g. provisions volumes). Failure unreserves."""

    @abstractmethod
    async def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        raise NotImplementedError


class BindPlugin(Plugin[ArgsT]):
    """Binds the pod. Skip passes to the next Bind plugin; the first Success ends Bind."""

    @abstractmethod
    async def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        raise NotImplementedError


class PostBindPlugin(Plugin[ArgsT]):
    """Informational, after a successful bind."""

    @abstractmethod
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


@runtime_checkable
class PreemptionVictimGuard(Protocol):
    """Keeps pods from being preempted whatever their priority (not an extension point).

    A plugin of the profile implements it when evicting some pods would break what it
    guarantees, e.g. a gang plugin whose running group must keep `minMember` members
    (Volcano's gang `preemptableFn` is the model). DefaultPreemption asks every plugin of
    its profile that implements it, on each node of its dry run, before it removes the
    potential victims: a protected pod stays on the node, is never a victim, and a node
    where the preemptor would fit only by evicting protected pods is no candidate; its
    status then gives the guard's reason. Once it has picked a node, it tells every guard
    which victims it is evicting there (evictions are asynchronous: the next cycle may
    still see them). Without a guard in the profile, preemption is upstream's.
    """

    def protected_victims(
        self, preemptor: Pod, node_info: NodeInfo, victims: Sequence[PodInfo]
    ) -> dict[str, str]:
        """Of `victims` (the node's pods the preemptor could evict, least important
        first), those that must stay: pod UID -> reason (one short sentence, the same for
        every pod protected for the same cause). The guard must assume that every victim
        it leaves unprotected is evicted, together; `node_info` is a copy. Must not fail
        and must not change anything."""
        ...

    def victims_chosen(self, preemptor: Pod, node_name: str, victims: Sequence[Pod]) -> None:
        """These victims are being evicted from `node_name` for `preemptor`: count them
        as gone from now on, though the cluster may still show them for a while."""
        ...


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
    def event(
        self,
        obj: Any,
        event_type: str,
        reason: str,
        action: str,
        message: str,
        related: Any = None,
    ) -> None:
        """Record an Event (`Normal`/`Warning`) about `obj`, naming `related` when given
        (upstream Eventf(regarding, related, ...): a Preempted event names the preemptor),
        as kube-scheduler does. Never raises; the Event is written in the background."""
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
    def fast_path(self) -> bool:
        """Whether the scheduler running this profile takes the fast path (Filter and Score
        on arrays; `--no-fast-path` or KUBESCHED_FAST_PATH=0 turn it off). Read it in
        `__init__` for shortcuts of the plugin's own that must follow the same switch."""
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

    def report_cluster_event(self, event: ClusterEvent, old: Any, new: Any) -> None:
        """A change the plugin saw in state of its own that no informer reports, e.g. an
        assumption undone in an assume cache by Unreserve (nothing was written to the API,
        so no watch event follows). The scheduler handles it as an informer event of
        `event.resource`: pods rejected by plugins that registered for it are offered to
        their queueing hints (called with `old`, `new`) and may leave the unschedulable
        pool. May be called from any extension point, including Unreserve; does nothing
        where no scheduler runs the framework. (Upstream has this for DRA only: the
        ResourceClaim assume cache's event handlers, pkg/scheduler/eventhandlers.go.)"""
        ...

    @property
    def plugins(self) -> Mapping[str, Plugin]:
        """This profile's plugin instances by name, one per plugin whatever the points it
        runs at (complete once the profile is built, so read it in a cycle, not in
        `__init__`); for plugins that consult others through optional protocols such as
        `PreemptionVictimGuard`."""
        ...
