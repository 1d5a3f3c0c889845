"""PrioritySort: the default QueueSort plugin."""

from kubesched_builtin.queuesort.plugin import PrioritySort

__all__ = ["PrioritySort"]
