"""CoschedulingArgs: the plugin's `pluginConfig` args.

Upstream: scheduler-plugins apis/config/v1/types.go and defaults.go (CoschedulingArgs),
apis/config/validation/validation_pluginargs.go (ValidateCoschedulingArgs). The three
upstream args keep their names, defaults and validation messages, so a scheduler-plugins
configuration loads unchanged; two args are kubesched's own.
"""

from __future__ import annotations

from typing import Final

from kubesched.api.field import ErrorList, invalid
from kubesched.framework import PluginArgs

__all__ = ["DEFAULT_MAX_BACKOFF_SECONDS", "CoschedulingArgs", "group_backoff_seconds"]

DEFAULT_MAX_BACKOFF_SECONDS: Final = 10
"""kube-scheduler's podMaxBackoffSeconds default: a group backs off no longer than a pod."""


class CoschedulingArgs(PluginArgs):
    """Args of Coscheduling."""

    permit_waiting_time_seconds: int = 60
    """How long members wait at Permit when their PodGroup sets no scheduleTimeoutSeconds
    (0 means 60 s, as upstream)."""
    pod_group_backoff_seconds: int = 0
    """The first group backoff after a failed attempt; it doubles with each consecutive
    failure up to `podGroupMaxBackoffSeconds`. 0 means 1 s (upstream: 0 disables the
    group backoff, leaving each member to its own pod backoff)."""
    pod_group_reject_percentage: int = 10
    """PostFilter leaves waiting siblings alone when the missing share of minMember is at
    most this percentage (upstream's "optimistic" tolerance)."""
    pod_group_max_backoff_seconds: int = DEFAULT_MAX_BACKOFF_SECONDS
    """kubesched: the cap of the doubling group backoff (never below
    `podGroupBackoffSeconds`, so a value set alone behaves as upstream's fixed window)."""
    max_waiting_pod_groups: int = 1
    """kubesched: how many PodGroups of the profile may hold members waiting at Permit at
    once; the others wait their turn without holding anything (0: no limit)."""

    def validation_errors(self) -> ErrorList:
        errs: ErrorList = []
        # upstream says "greater than 0" but accepts 0
        for name, value in (
            ("permitWaitingTimeSeconds", self.permit_waiting_time_seconds),
            ("podGroupBackoffSeconds", self.pod_group_backoff_seconds),
        ):
            if value < 0:
                errs.append(invalid(name, value, "must be greater than 0"))
        percentage = self.pod_group_reject_percentage
        if not 0 <= percentage <= 100:
            errs.append(
                invalid("podGroupRejectPercentage", percentage, "must be between 0 and 100")
            )
        for name, value in (
            ("podGroupMaxBackoffSeconds", self.pod_group_max_backoff_seconds),
            ("maxWaitingPodGroups", self.max_waiting_pod_groups),
        ):
            if value < 0:
                errs.append(invalid(name, value, "must not be negative"))
        return errs


def group_backoff_seconds(args: CoschedulingArgs, failures: int) -> float:
    """The group backoff after `failures` consecutive failed attempts (>= 1):
    initial * 2^(failures-1), capped."""
    initial = args.pod_group_backoff_seconds or 1
    cap = max(args.pod_group_max_backoff_seconds, initial)
    if failures <= 0:
        return 0.0
    return float(min(initial * 2 ** min(failures - 1, 32), cap))
