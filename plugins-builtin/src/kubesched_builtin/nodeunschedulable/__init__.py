"""NodeUnschedulable: filters out cordoned nodes (`spec.unschedulable`)."""

from kubesched_builtin.nodeunschedulable.plugin import (
    ERR_REASON_NODE_NOT_FOUND,
    ERR_REASON_UNSCHEDULABLE,
    NodeUnschedulable,
)

__all__ = ["ERR_REASON_NODE_NOT_FOUND", "ERR_REASON_UNSCHEDULABLE", "NodeUnschedulable"]
