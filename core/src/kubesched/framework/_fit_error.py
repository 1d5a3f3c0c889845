"""Diagnosis and FitError: why no node fits, in the words kube-scheduler uses.

Upstream: pkg/scheduler/framework/types.go (FitError.Error, Diagnosis). The message is what
users see in the PodScheduled condition and the FailedScheduling event, e.g.
`0/5 nodes are available: 3 Insufficient cpu, 2 node(s) were unschedulable.` The PreFilter
message and the histogram each end with a full stop; the PostFilter message is appended as
it is (v1.34 adds no full stop to it), so a preemption message that is itself a FitError
ends with exactly one: `... preemption: 0/2 nodes are available: 2 Preemption is not helpful
for scheduling.`
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from kubesched.api import Pod
from kubesched.framework._results import NodeToStatus
from kubesched.framework._status import Code, Status

__all__ = ["Diagnosis", "FitError", "status_reasons"]


def status_reasons(status: Status) -> list[str]:
    """Upstream Status.Reasons(): the error's text first, then the reasons."""
    reasons = list(status.reasons)
    if status.error is not None:
        reasons.insert(0, str(status.error))
    return reasons


@dataclass
class Diagnosis:
    """Why the nodes were rejected in one scheduling cycle: each node's status, the plugins
    that rejected the pod (the queue wakes it on their events) and the messages PreFilter
    and PostFilter gave."""

    node_to_status: NodeToStatus = field(default_factory=NodeToStatus)
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""

    def add_plugin_status(self, status: Status) -> None:
        """Record the plugin of a rejection (upstream Diagnosis.AddPluginStatus)."""
        if not status.plugin or not status.is_rejected:
            return
        if status.code is Code.Pending:
            self.pending_plugins.add(status.plugin)
        self.unschedulable_plugins.add(status.plugin)


class FitError(Exception):
    """No node could take the pod. Raised by the scheduler's node search; a PostFilter
    plugin (e.g. preemption) may build one for its own message."""

    def __init__(self, pod: Pod, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        super().__init__()
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis

    def histogram(self) -> Counter[str]:
        """How many nodes gave each reason (nodes without a status count under the
        absent-nodes status)."""
        d = self.diagnosis
        # nodes mostly share their reasons: count each list of reasons once, then spread
        alike: Counter[tuple[str, ...]] = Counter(
            tuple(status_reasons(status)) if status.error is not None else status.reasons
            for _, status in d.node_to_status.items()
        )
        reasons: Counter[str] = Counter()
        for listed, nodes in alike.items():
            for reason in listed:
                reasons[reason] += nodes
        absent = self.num_all_nodes - len(d.node_to_status)
        if absent > 0:
            for reason in status_reasons(d.node_to_status.absent_status):
                reasons[reason] += absent
        return reasons

    def __str__(self) -> str:
        msg = f"0/{self.num_all_nodes} nodes are available:"
        d = self.diagnosis
        if d.pre_filter_msg:
            msg += f" {d.pre_filter_msg}."
        else:
            parts = sorted(f"{count} {reason}" for reason, count in self.histogram().items())
            if parts:
                msg += f" {', '.join(parts)}."
        if d.post_filter_msg:
            msg += f" {d.post_filter_msg}"
        return msg
