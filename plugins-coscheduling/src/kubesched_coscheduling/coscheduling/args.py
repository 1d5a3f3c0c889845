"""CoschedulingArgs: the plugin's `pluginConfig` args.

Upstream: scheduler-plugins apis/config/v1/types.go and defaults.go (CoschedulingArgs),
apis/config/validation/validation_pluginargs.go (ValidateCoschedulingArgs). The three
upstream args keep their names, defaults and validation messages, so a scheduler-plugins
configuration loads unchanged; two args are kubesched's own.
"""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel, ConfigDict, model_validator
from pydantic.alias_generators import to_camel

__all__ = ["DEFAULT_MAX_BACKOFF_SECONDS", "CoschedulingArgs", "group_backoff_seconds"]

DEFAULT_MAX_BACKOFF_SECONDS: Final = 10
"""kube-scheduler's podMaxBackoffSeconds default: a group backs off no longer than a pod."""


class CoschedulingArgs(BaseModel):
    """Args of Coscheduling."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

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

    @model_validator(mode="after")
    def _validate(self) -> CoschedulingArgs:
        errors = validation_errors(self)
        if errors:
            # upstream utilerrors.Aggregate: one error alone, several as "[a, b]"
            raise ValueError(errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]")
        return self


def _invalid(path: str, value: int, detail: str) -> str:
    return f"{path}: Invalid value: {value}: {detail}"


def validation_errors(args: CoschedulingArgs) -> list[str]:
    """Every problem with the args, as upstream field errors; empty when valid."""
    errs: list[str] = []
    # upstream says "greater than 0" but accepts 0
    if args.permit_waiting_time_seconds < 0:
        errs.append(
            _invalid(
                "permitWaitingTimeSeconds",
                args.permit_waiting_time_seconds,
                "must be greater than 0",
            )
        )
    if args.pod_group_backoff_seconds < 0:
        errs.append(
            _invalid(
                "podGroupBackoffSeconds", args.pod_group_backoff_seconds, "must be greater than 0"
            )
        )
    if not 0 <= args.pod_group_reject_percentage <= 100:
        errs.append(
            _invalid(
                "podGroupRejectPercentage",
                args.pod_group_reject_percentage,
                "must be between 0 and 100",
            )
        )
    if args.pod_group_max_backoff_seconds < 0:
        errs.append(
            _invalid(
                "podGroupMaxBackoffSeconds",
                args.pod_group_max_backoff_seconds,
                "must not be negative",
            )
        )
    if args.max_waiting_pod_groups < 0:
        errs.append(
            _invalid("maxWaitingPodGroups", args.max_waiting_pod_groups, "must not be negative")
        )
    return errs


def group_backoff_seconds(args: CoschedulingArgs, failures: int) -> float:
    """The group backoff after `failures` consecutive failed attempts (>= 1):
    initial * 2^(failures-1), capped."""
    initial = args.pod_group_backoff_seconds or 1
    cap = max(args.pod_group_max_backoff_seconds, initial)
    if failures <= 0:
        return 0.0
    return float(min(initial * 2 ** min(failures - 1, 32), cap))
