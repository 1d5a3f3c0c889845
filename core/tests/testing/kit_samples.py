"""Sample plugins for the conformance kit's own tests: one that keeps every contract of its
points, and deliberately broken ones, each breaking one contract.

None has a `kubesched.plugins` entry point, so the entry-point check fails for all of them
(that is the "missing entry point" sample); the tests select the checks they are about.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, ClassVar

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, BeforeValidator, ConfigDict

from kubesched.api import Pod
from kubesched.framework import (
    ActionType,
    BindPlugin,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    NodeColumns,
    NodeInfo,
    PermitPlugin,
    PodInfo,
    PreEnqueuePlugin,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
    QueuedPodInfo,
    QueueSortPlugin,
    ReservePlugin,
    ScorePlugin,
    Status,
)

_NODE_EVENTS = [ClusterEventWithHint(ClusterEvent(EventResource.Node, ActionType.All))]


class _Events(EnqueueExtensions):
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return list(_NODE_EVENTS)


class LabelFilter(FilterPlugin, ScorePlugin, ReservePlugin, _Events):
    """Keeps every contract: filters on the node label `tier` the pod names (also in one
    batch call), prefers nodes with more free pods (also in one batch call), reserves by pod
    uid."""

    name: ClassVar[str] = "LabelFilter"

    def __init__(self, args: BaseModel, handle: Any) -> None:
        super().__init__(args, handle)
        self.reserved: dict[str, str] = {}

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        want = pod.metadata.labels.get("tier")
        node = node_info.node
        if want is None or (node is not None and node.metadata.labels.get("tier") == want):
            return None
        return Status.unresolvable(f"node(s) didn't have tier {want}")

    def filter_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        return [self.filter(state, pod, n) for n in nodes]

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        free = node_info.allocatable.allowed_pod_number - len(node_info.pods)
        return max(0, min(100, free)), None

    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        free = np.fromiter(
            (n.allocatable.allowed_pod_number - len(n.pods) for n in nodes), np.int64, len(nodes)
        )
        return np.clip(free, 0, 100).tolist(), None

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.reserved[pod.metadata.uid] = node_name
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        self.reserved.pop(pod.metadata.uid, None)


class MutatingFilter(FilterPlugin, _Events):
    """Writes a label onto the pod it is asked about."""

    name: ClassVar[str] = "MutatingFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        pod.metadata.labels["seen-by"] = node_info.name
        return None


class NodeMutatingFilter(FilterPlugin, _Events):
    """Charges the node for the pod while filtering."""

    name: ClassVar[str] = "NodeMutatingFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node_info.requested.milli_cpu += 1
        return None


class FlakyFilter(FilterPlugin, _Events):
    """Rejects every other node it is asked about, whichever it is."""

    name: ClassVar[str] = "FlakyFilter"

    def __init__(self, args: BaseModel, handle: Any) -> None:
        super().__init__(args, handle)
        self.calls = 0

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        self.calls += 1
        return Status.unschedulable("odd call") if self.calls % 2 else None


class ScoreOf150(ScorePlugin):
    """Scores every node 150, with no NormalizeScore to bring it into range."""

    name: ClassVar[str] = "ScoreOf150"

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        return 150, None


class FailingUnreserve(ReservePlugin, _Events):
    """Unreserve fails for a pod it did not reserve."""

    name: ClassVar[str] = "FailingUnreserve"

    def __init__(self, args: BaseModel, handle: Any) -> None:
        super().__init__(args, handle)
        self.reserved: dict[str, str] = {}

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.reserved[pod.metadata.uid] = node_name
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        del self.reserved[pod.metadata.uid]


class LeakyReserve(ReservePlugin, _Events):
    """Unreserve forgets to release what Reserve took."""

    name: ClassVar[str] = "LeakyReserve"

    def __init__(self, args: BaseModel, handle: Any) -> None:
        super().__init__(args, handle)
        self.taken: list[str] = []

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.taken.append(node_name)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None


class LongPermit(PermitPlugin, _Events):
    """Holds every pod for an hour."""

    name: ClassVar[str] = "LongPermit"

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        return Status.wait("holding"), 3600.0


class SyncBinder(BindPlugin):
    """Binds synchronously: not a coroutine."""

    name: ClassVar[str] = "SyncBinder"

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:  # type: ignore[override]
        return Status.skip()


class Silent(FilterPlugin):
    """Rejects pods but does not say which events could change that."""

    name: ClassVar[str] = "Silent"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("never") if pod.metadata.labels.get("app") == "a" else None


class LaxArgs(BaseModel):
    """Takes unknown fields, and turns anything into a label."""

    model_config = ConfigDict(extra="allow")

    weight: int = 1
    label: Annotated[str, BeforeValidator(str)] = ""


class LaxArgsFilter(FilterPlugin, _Events):
    """Its Args accept unknown fields."""

    name: ClassVar[str] = "LaxArgsFilter"
    Args: ClassVar[type[BaseModel]] = LaxArgs

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


class SkipThenReject(PreFilterPlugin, FilterPlugin, _Events):
    """Skips at PreFilter, yet its Filter rejects every node."""

    name: ClassVar[str] = "SkipThenReject"

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        return None, Status.skip()

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("rejected anyway")


class _Counting(PreFilterExtensions):
    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        state.write("count", state.read("count") + 1)
        return None

    def remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None:
        return None  # forgets to take the pod back off the count


class StickyExtensions(PreFilterPlugin, FilterPlugin, _Events):
    """Counts pods in PreFilter; RemovePod does not undo AddPod."""

    name: ClassVar[str] = "StickyExtensions"

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        state.write("count", sum(len(n.pods) for n in nodes))
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        return _Counting()

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.unschedulable("odd count") if state.read("count") % 2 else None


class WrongVectorized(FilterPlugin, _Events):
    """Its vectorized Filter lets every node through; its Filter rejects cordoned ones."""

    name: ClassVar[str] = "WrongVectorized"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        if node is not None and node.spec.unschedulable:
            return Status.unresolvable("cordoned")
        return None

    def filter_vectorized(
        self, state: CycleState, pod: Pod, columns: NodeColumns
    ) -> npt.NDArray[np.bool_]:
        return np.ones(len(columns.names), dtype=bool)


class WrongBatchScore(ScorePlugin):
    """Its batch Score forgets the pods already on each node; its Score counts them."""

    name: ClassVar[str] = "WrongBatchScore"

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        free = node_info.allocatable.allowed_pod_number - len(node_info.pods)
        return max(0, min(100, free)), None

    def score_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        return [max(0, min(100, n.allocatable.allowed_pod_number)) for n in nodes], None


class WrongBatchFilter(FilterPlugin, _Events):
    """Its batch Filter forgets the pods already on each node; its Filter keeps the pod off
    nodes that run any."""

    name: ClassVar[str] = "WrongBatchFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if node_info.pods:
            return Status.unschedulable("node(s) were busy")
        return None

    def filter_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        return [None for _ in nodes]


class NoReasonGate(PreEnqueuePlugin, _Events):
    """Holds back every pod without saying why: they are lost in a run."""

    name: ClassVar[str] = "NoReasonGate"

    def pre_enqueue(self, pod: Pod) -> Status | None:
        return Status(Code.UnschedulableAndUnresolvable)


class RandomSort(QueueSortPlugin):
    """Not an order: every pod comes before every other."""

    name: ClassVar[str] = "RandomSort"

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return True
