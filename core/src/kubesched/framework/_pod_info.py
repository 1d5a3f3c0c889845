"""PodInfo and QueuedPodInfo: a pod with what the scheduler computes from it once."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Final

from kubesched.api import CPU, MEMORY, Pod, PodAffinityTerm, node_non_zero_requests, pod_requests
from kubesched.features import feature_enabled
from kubesched.framework._resource import Resource

__all__ = ["PodInfo", "QueuedPodInfo"]

_FROM_CONTAINERS: Final = (
    "request_amounts",
    "scoring_request_amounts",
    "requests",
    "non_zero_requests",
    "host_ports",
)
"""Derived values read from containers, init containers, overhead and pod-level resources."""
_FROM_AFFINITY: Final = ("required_affinity_terms", "required_anti_affinity_terms", "has_affinity")
"""Derived values read from `spec.affinity`."""


class PodInfo:
    """A pod plus values derived from it that Filter and Score read for every node.

    Upstream: pkg/scheduler/framework/types.go (PodInfo). Derived values are computed on
    first use and kept; a changed pod gets a new PodInfo.
    """

    __slots__ = ("__dict__", "pod")

    def __init__(self, pod: Pod) -> None:
        self.pod: Pod = pod

    @classmethod
    def of(cls, pod: Pod) -> PodInfo:
        """The PodInfo of `pod` that the scheduling cycle shares: the one last `share`d (or
        made here) when it holds this very pod object, else a new one, shared from then on.

        Plugins get the pod, not the cycle's PodInfo; reading derived values through this
        computes them once per cycle instead of once per plugin (a pod is replaced, never
        changed in place, so values derived from the same object stay right). A pod with
        pod-level resources always gets a new one: its requests depend on the
        PodLevelResources gate, read anew each time."""
        if pod.spec.resources is not None:
            return cls(pod)
        shared = _shared[0]
        if shared is not None and shared.pod is pod:
            return shared
        info = _shared[0] = cls(pod)
        return info

    def share(self) -> None:
        """Make this the PodInfo `PodInfo.of` answers for its pod (the scheduler does this
        with the queued pod's PodInfo when a cycle starts)."""
        _shared[0] = self

    def updated(self, pod: Pod) -> PodInfo:
        """A PodInfo of `pod`, a later version of this one's pod (the assumed copy with its
        node set, the bound pod the informer brings), keeping the derived values this one
        computed whose inputs `pod` shares with it (the same objects: API objects are
        replaced, never changed in place); the rest is computed on first use, as usual.

        Upstream assumes `podInfo.DeepCopy()` of the scheduling cycle's PodInfo instead of
        computing it again (pkg/scheduler/schedule_one.go, assume)."""
        new = PodInfo(pod)
        derived = self.__dict__
        if not derived:
            return new
        before, after = self.pod.spec, pod.spec
        kept = new.__dict__
        if (
            before.containers is after.containers
            and before.init_containers is after.init_containers
            and before.overhead is after.overhead
            and before.resources is after.resources
        ):
            for name in _FROM_CONTAINERS:
                if name in derived:
                    kept[name] = derived[name]
        if before.affinity is after.affinity:
            for name in _FROM_AFFINITY:
                if name in derived:
                    kept[name] = derived[name]
        return new

    @cached_property
    def request_amounts(self) -> dict[str, int]:
        """Effective requests by resource name (`pod_requests`): pod-level where set
        (PodLevelResources), else containers, init containers and sidecars; plus overhead.
        Shared: read, never change."""
        return pod_requests(self.pod, pod_level=self._pod_level())

    @cached_property
    def scoring_request_amounts(self) -> dict[str, int]:
        """`request_amounts` with the scoring defaults (100m CPU, 200Mi memory) for a
        container that requests none (`pod_requests(non_zero=True)`), as NodeResourcesFit
        scores. Shared: read, never change."""
        return pod_requests(self.pod, non_zero=True, pod_level=self._pod_level())

    @cached_property
    def requests(self) -> Resource:
        """`request_amounts` as a Resource."""
        return Resource.from_mapping(self.request_amounts)

    @cached_property
    def non_zero_requests(self) -> Resource:
        """CPU and memory with the scoring defaults (100m, 200Mi) where nothing is requested,
        as NodeInfo.non_zero_requested counts them (upstream PodInfo.CalculateResource)."""
        if not self._pod_level():
            # without pod-level requests both fill each container's missing CPU and memory
            # with the defaults: the same sums as `scoring_request_amounts`, kept from there
            amounts = self.scoring_request_amounts
            return Resource.from_mapping({CPU: amounts.get(CPU, 0), MEMORY: amounts.get(MEMORY, 0)})
        return Resource.from_mapping(node_non_zero_requests(self.pod, pod_level=True))

    def _pod_level(self) -> bool:
        # whether pod-level requests count; the gate is read only for a pod that has them
        # (reading it is most of the cost for one that does not)
        return self.pod.spec.resources is not None and feature_enabled("PodLevelResources")

    @cached_property
    def host_ports(self) -> tuple[tuple[str, str, int], ...]:
        """(hostIP, protocol, hostPort) of every port the pod binds on its node.

        upstream schedutil.GetHostPorts: sidecars (restartable init containers) hold their
        host ports for the pod's whole life, like app containers."""
        spec = self.pod.spec
        containers = (
            *(i for i in spec.init_containers if i.restart_policy == "Always"),
            *spec.containers,
        )
        return tuple(
            (p.host_ip, p.protocol, p.host_port)
            for c in containers
            for p in c.ports
            if p.host_port > 0
        )

    @cached_property
    def required_affinity_terms(self) -> list[PodAffinityTerm]:
        aff = self.pod.spec.affinity
        if aff is None or aff.pod_affinity is None:
            return []
        return aff.pod_affinity.required_during_scheduling_ignored_during_execution

    @cached_property
    def required_anti_affinity_terms(self) -> list[PodAffinityTerm]:
        aff = self.pod.spec.affinity
        if aff is None or aff.pod_anti_affinity is None:
            return []
        return aff.pod_anti_affinity.required_during_scheduling_ignored_during_execution

    @cached_property
    def has_affinity(self) -> bool:
        aff = self.pod.spec.affinity
        return aff is not None and (
            aff.pod_affinity is not None or aff.pod_anti_affinity is not None
        )

    @property
    def key(self) -> str:
        return self.pod.key

    @property
    def uid(self) -> str:
        return self.pod.metadata.uid

    def __repr__(self) -> str:
        return f"PodInfo({self.pod.key})"


_shared: list[PodInfo | None] = [None]
"""The PodInfo `PodInfo.of` answers for its pod (one slot: the current cycle's pod)."""


@dataclass(eq=False)
class QueuedPodInfo:
    """A pod in the scheduling queue, with its attempt history.

    Upstream: pkg/scheduler/framework/types.go (QueuedPodInfo).
    """

    pod_info: PodInfo
    timestamp: float = 0.0
    """When the pod was last added to the queue (for PrioritySort ties and backoff)."""
    initial_attempt_timestamp: float | None = None
    attempts: int = 0
    unschedulable_count: int = 0
    """Failed attempts that were rejections (v1.34 backoff counts these)."""
    consecutive_errors_count: int = 0
    """Consecutive attempts that ended in Error (v1.34 error backoff counts these)."""
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    gated: bool = False
    gating_plugin: str = ""

    @property
    def pod(self) -> Pod:
        return self.pod_info.pod

    @property
    def key(self) -> str:
        return self.pod_info.pod.key

    @property
    def uid(self) -> str:
        return self.pod_info.pod.metadata.uid
