"""NodePorts keeps a pod off nodes where a host port it asks for is already taken.

Upstream: pkg/scheduler/framework/plugins/nodeports/node_ports.go (v1.34) and
pkg/scheduler/util (GetHostPorts). The ports that count are the `hostPort`s of the app
containers and of sidecars (init containers with `restartPolicy: Always`). A port conflicts
with the same protocol and port on the same host IP, and `0.0.0.0` (or no IP) conflicts with
every IP. A conflict is Unschedulable: evicting the pod holding the port would free it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from kubesched.api import ContainerPort, Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    CycleState,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    HostPortInfo,
    NodeColumns,
    NodeInfo,
    PreFilterPlugin,
    PreFilterResult,
    QueueingHint,
    RowMask,
    Rows,
    StateData,
    Status,
)
from kubesched_builtin.names import NODE_PORTS

__all__ = ["ERR_REASON", "PRE_FILTER_STATE_KEY", "NodePorts", "fits_ports", "host_ports"]

PRE_FILTER_STATE_KEY: Final = "PreFilter" + NODE_PORTS
ERR_REASON: Final = "node(s) didn't have free ports for the requested pod ports"


def host_ports(pod: Pod) -> list[ContainerPort]:
    """The container ports of the pod that bind a host port: sidecars' first, then the app
    containers' (upstream GetHostPorts)."""
    ports: list[ContainerPort] = []
    for init in pod.spec.init_containers:
        if init.restart_policy == "Always":  # runs for the pod's whole life
            ports += [p for p in init.ports if p.host_port > 0]
    for container in pod.spec.containers:
        ports += [p for p in container.ports if p.host_port > 0]
    return ports


def fits_ports(wanted: Sequence[ContainerPort], in_use: HostPortInfo) -> bool:
    """Whether none of the wanted host ports conflicts with the ports in use."""
    return not any(in_use.conflicts(p.host_ip, p.protocol, p.host_port) for p in wanted)


@dataclass(frozen=True)
class PreFilterState:
    """The pod's host ports; other pods do not change them."""

    ports: tuple[ContainerPort, ...]

    def clone(self) -> StateData:
        return self


class NodePorts(PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    """Filter: the node must have every host port the pod asks for free."""

    name: ClassVar[str] = NODE_PORTS

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        ports = host_ports(pod)
        if not ports:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, PreFilterState(tuple(ports)))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        data = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(data, PreFilterState):
            return Status.as_error(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        if not fits_ports(data.ports, node_info.used_ports):
            return Status.unschedulable(ERR_REASON)
        return None

    def filter_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Filter of each node in one call (BatchFilterPlugin): PreFilter's state is read
        once."""
        data = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(data, PreFilterState):
            return [self.filter(state, pod, info) for info in nodes]
        ports = data.ports
        return [
            None if fits_ports(ports, info.used_ports) else Status.unschedulable(ERR_REASON)
            for info in nodes
        ]

    def filter_mask(self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows) -> RowMask:
        """Filter on the snapshot's columns (ArrayFilterPlugin): a node no pod uses a host
        port on passes; the others are left to `filter` (False here: which ports conflict
        is not in the columns)."""
        if not isinstance(state.get(PRE_FILTER_STATE_KEY), PreFilterState):
            raise LookupError(PRE_FILTER_STATE_KEY)  # `filter` gives the Error
        return ~columns.has_host_ports[rows]

    # -- EnqueueExtensions ---------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        # upstream with queueing hints on: a pod holding a port going away, or a new node.
        # Ports of a pod are immutable, so pod updates never matter.
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.Pod, ActionType.Delete),
                self.is_schedulable_after_pod_deleted,
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.Node, ActionType.Add)),
        ]

    def is_schedulable_after_pod_deleted(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when the deleted pod was placed (or nominated) and held a host port this
        pod wants."""
        if not isinstance(old_obj, Pod):
            return QueueingHint.Queue
        if not old_obj.spec.node_name and not old_obj.status.nominated_node_name:
            return QueueingHint.QueueSkip
        freed = host_ports(old_obj)
        if not freed:
            return QueueingHint.QueueSkip
        in_use = HostPortInfo()
        for p in freed:
            in_use.add(p.host_ip, p.protocol, p.host_port)
        if fits_ports(host_ports(pod), in_use):
            return QueueingHint.QueueSkip  # no port in common
        return QueueingHint.Queue
