"""What a run must end with beyond its pods bound: gangs bound whole (and how long each
took to reach its quorum), claims bound.

Pure functions of what the run recorded and of the cluster's objects, so they are tested
without a scheduler.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from kubesched_bench.spec import Gang

__all__ = [
    "describe_gang_shortfalls",
    "describe_unbound_claims",
    "gang_shortfalls",
    "time_to_quorum",
    "unbound_claims",
]

_SHOWN: Final = 5
"""How many gangs or claims an error message names before `... and N more`."""


def _listed(items: Sequence[str]) -> str:
    shown = ", ".join(items[:_SHOWN])
    more = len(items) - _SHOWN
    return f"{shown}, ... and {more} more" if more > 0 else shown


def gang_shortfalls(gangs: Iterable[Gang], bound: Iterable[str]) -> list[str]:
    """One line per gang not bound whole (`ns/gang-007: 4 of 10 members bound,
    minMember 10`); empty when every member of every gang is bound."""
    bound_keys = set(bound)
    lines: list[str] = []
    for gang in gangs:
        count = sum(1 for m in gang.members if m in bound_keys)
        if count < len(gang.members):
            lines.append(
                f"{gang.key}: {count} of {len(gang.members)} members bound, "
                f"minMember {gang.min_member}"
            )
    return lines


def describe_gang_shortfalls(lines: Sequence[str], gangs: int) -> str:
    """`gang_shortfalls`' lines as one sentence, for an error message."""
    return f"{len(lines)} of {gangs} gangs were not bound whole: {_listed(lines)}"


def time_to_quorum(
    gangs: Iterable[Gang], created: Mapping[str, float], bound_at: Mapping[str, float]
) -> dict[str, float]:
    """Seconds from each gang's first member created to its `min_member`-th member
    bound, by gang key; gangs that never reached quorum are left out."""
    result: dict[str, float] = {}
    for gang in gangs:
        binds = sorted(bound_at[m] for m in gang.members if m in bound_at)
        starts = [created[m] for m in gang.members if m in created]
        if len(binds) < gang.min_member or not starts:
            continue
        result[gang.key] = binds[gang.min_member - 1] - min(starts)
    return result


def unbound_claims(claims: Iterable[str], stored: Iterable[Any]) -> list[str]:
    """The claims of `claims` (`namespace/name`) that are not bound in `stored` (the
    cluster's PersistentVolumeClaims): missing, without `spec.volumeName`, or not in
    phase Bound. Each with why, e.g. `sched-measured/pvc-pod-00004 (phase Pending)`."""
    by_key = {f"{c.metadata.namespace or 'default'}/{c.metadata.name}": c for c in stored}
    problems: list[str] = []
    for key in claims:
        claim = by_key.get(key)
        if claim is None:
            problems.append(f"{key} (not found)")
        elif not claim.spec.volume_name or claim.status.phase != "Bound":
            volume = claim.spec.volume_name or "-"
            problems.append(f"{key} (phase {claim.status.phase}, volume {volume})")
    return problems


def describe_unbound_claims(problems: Sequence[str], total: int) -> str:
    """`unbound_claims`' result as one sentence, for an error message."""
    return f"{len(problems)} of {total} claims did not end bound: {_listed(problems)}"
