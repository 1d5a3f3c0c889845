"""Taint predicates shared by the plugins that look at node taints.

Upstream: pkg/scheduler/framework/plugins/helper/taint.go (DoNotScheduleTaintsFilterFunc).
"""

from __future__ import annotations

from kubesched.api import Taint

__all__ = ["is_do_not_schedule_taint"]


def is_do_not_schedule_taint(taint: Taint) -> bool:
    """Whether the taint keeps pods that do not tolerate it off the node: NoSchedule and
    NoExecute do, PreferNoSchedule only lowers the node's score."""
    return taint.effect in ("NoSchedule", "NoExecute")
