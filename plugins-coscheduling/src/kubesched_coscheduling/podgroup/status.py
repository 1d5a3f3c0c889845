"""Writing a PodGroup's status: read the latest version, change one part, retry on conflict.

Two writers share the status: the status controller (phase, counts, start time, owners)
and the Coscheduling plugin (the `Scheduled` condition). Each changes only its own fields
of the freshest stored object, so neither undoes the other; a write that changes nothing
is not sent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any, Final

from kubesched import ConflictError, NotFoundError
from kubesched_coscheduling.names import POD_GROUP_KIND
from kubesched_coscheduling.podgroup.types import PodGroup, PodGroupCondition, PodGroupStatus

__all__ = ["MAX_ATTEMPTS", "set_condition", "update_status"]

_log = logging.getLogger("kubesched_coscheduling")

MAX_ATTEMPTS: Final = 5
"""Conflicting writes retried before giving up (the next change writes again)."""

StatusChange = Callable[[PodGroup], PodGroupStatus | None]
"""change(current_pod_group) -> its new status (the change may edit a copy of the current
status), or None when nothing needs writing. The PodGroup given must not be mutated."""


async def update_status(cluster: Any, namespace: str, name: str, change: StatusChange) -> bool:
    """Apply `change` to the stored PodGroup's status and write it; True when written.

    A PodGroup that is gone is left alone; a conflict (someone wrote in between) re-reads
    and re-applies, up to MAX_ATTEMPTS times."""
    for _ in range(MAX_ATTEMPTS):
        current: PodGroup | None = cluster.get(POD_GROUP_KIND, name, namespace)
        if current is None:
            return False
        new_status = change(current)
        if new_status is None or new_status == current.status:
            return False
        try:
            await cluster.update(current.model_copy(update={"status": new_status}))
        except ConflictError:
            continue
        except NotFoundError:
            return False
        return True
    _log.warning("PodGroup %s/%s: status write kept conflicting; left for later", namespace, name)
    return False


def set_condition(
    status: PodGroupStatus, condition: PodGroupCondition, now: datetime
) -> PodGroupStatus | None:
    """The status with `condition` set by type, or None when it is already so.

    lastTransitionTime moves only when the condition's status changes."""
    current = status.condition(condition.type)
    if (
        current is not None
        and current.status == condition.status
        and current.reason == condition.reason
        and current.message == condition.message
    ):
        return None
    transition = (
        current.last_transition_time
        if current is not None and current.status == condition.status
        else now
    )
    new = condition.model_copy(update={"last_transition_time": transition})
    others = [c for c in status.conditions if c.type != condition.type]
    if current is None:
        status.conditions = [*others, new]
    else:
        status.conditions = [new if c.type == condition.type else c for c in status.conditions]
    return status
