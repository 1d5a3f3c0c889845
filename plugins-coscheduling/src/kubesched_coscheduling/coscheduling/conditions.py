"""The `Scheduled` condition the plugin writes on a PodGroup, so a person can read why.

Reasons: `Unschedulable` (the members cannot all be placed; the message says which member
fits nowhere and why), `WaitingForReservation` (another group holds members at Permit),
`WaitingForQuorum` (members wait at Permit), `BackingOff` (an attempt failed; the message
says why and when it retries) and, with status True, `QuorumReached`. True is never set
back to False (KEP-4671's rule for its PodGroupInitiallyScheduled condition).

Writes are asynchronous (a task on the running loop), skipped when nothing changed, and
touch only this condition of the freshest stored object.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final, Literal

from kubesched.clock import Clock
from kubesched_coscheduling.podgroup import (
    CONDITION_SCHEDULED,
    PodGroup,
    PodGroupCondition,
    PodGroupStatus,
    set_condition,
    update_status,
)

__all__ = [
    "BACKING_OFF",
    "QUORUM_REACHED",
    "UNSCHEDULABLE",
    "WAITING_FOR_QUORUM",
    "WAITING_FOR_RESERVATION",
    "ConditionWriter",
]

UNSCHEDULABLE: Final = "Unschedulable"
WAITING_FOR_RESERVATION: Final = "WaitingForReservation"
WAITING_FOR_QUORUM: Final = "WaitingForQuorum"
BACKING_OFF: Final = "BackingOff"
QUORUM_REACHED: Final = "QuorumReached"


class ConditionWriter:
    """Writes the `Scheduled` condition of PodGroups through the cluster."""

    def __init__(self, cluster: Any, clock: Clock) -> None:
        self._cluster = cluster
        self._clock = clock
        self._last: dict[str, tuple[str, str, str]] = {}
        self._tasks: set[asyncio.Task[bool]] = set()

    def write(self, key: str, status: Literal["True", "False"], reason: str, message: str) -> None:
        wanted = (status, reason, message)
        if self._last.get(key) == wanted or self._cluster is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # called outside a loop (a unit test): nothing to write with
        self._last[key] = wanted
        namespace, _, name = key.partition("/")
        condition = PodGroupCondition(
            type=CONDITION_SCHEDULED, status=status, reason=reason, message=message
        )
        now = self._clock.wall_time()

        def change(current: PodGroup) -> PodGroupStatus | None:
            existing = current.status.condition(CONDITION_SCHEDULED)
            if existing is not None and existing.status == "True" and status == "False":
                return None
            return set_condition(current.status.model_copy(deep=True), condition, now)

        task = loop.create_task(update_status(self._cluster, namespace, name, change))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def forget(self, key: str) -> None:
        """The PodGroup was deleted: a new one of that name starts afresh."""
        self._last.pop(key, None)

    def busy(self) -> bool:
        return bool(self._tasks)
