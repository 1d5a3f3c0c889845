"""What the plugin remembers per PodGroup, the reservation slots, and the backoff timers.

None of this counts members: the quorum is always read from the scheduler's own state
(the snapshot, the cluster and the framework's waiting pods). What is kept here is what no
one else knows: a group's Permit deadline, its failures and backoff, its last failure time
(for QueueSort), its packing plan, and which groups hold members waiting at Permit.

Timers run on the event loop's clock. A simulation must not stop while a group backoff
could still change the outcome, so the table also acts as an embedded-cluster controller
(`busy()`): it is busy while a backoff timer is pending for a group whose cluster changed
since its attempt began (a retry on an unchanged cluster would fail the same way, the
rule core applies to pods backing off).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubesched.clock import Clock
from kubesched_coscheduling.coscheduling.feasibility import Plan

__all__ = ["GroupState", "GroupTable"]


@dataclass
class GroupState:
    """One PodGroup, as this profile's plugin sees it."""

    holding: bool = False
    """Members of the group wait at Permit: it holds a reservation slot."""
    deadline: float | None = None
    """When the waiting members are rejected: the first waiter's Permit time + timeout."""
    failures: int = 0
    """Failed attempts since the quorum was last reached."""
    backoff_until: float | None = None
    last_failure: float | None = None
    """Clock time of the last failure; QueueSort orders the group by it (upstream #949)."""
    cause: str = ""
    """Why the last attempt failed, in words."""
    changes_at_attempt: int = 0
    """`GroupTable.changes` when the attempt began (or, after a failure, once the group's
    own release was counted)."""
    parked: bool = False
    """The group timed out waiting for members this profile does not place (another
    scheduler's, or gated ones): it retries when its members or its PodGroup change, not
    on a timer or on resources freed elsewhere."""
    permitted_until: float | None = None
    """The `minResources` check passed and is trusted until then (upstream permittedPG)."""
    plan: Plan | None = None
    wakeup: asyncio.TimerHandle | None = None

    def backing_off(self, now: float) -> bool:
        return self.backoff_until is not None and now < self.backoff_until


class GroupTable:
    """Group states, reservation slots and backoff timers of one profile's plugin."""

    def __init__(
        self, clock: Clock, max_holders: int, on_wakeup: Callable[[str], None], name: str
    ) -> None:
        self._clock = clock
        self._max_holders = max_holders
        self._on_wakeup = on_wakeup
        self._states: dict[str, GroupState] = {}
        self._holders: dict[str, None] = {}
        self._blocked: dict[str, None] = {}
        self.changes = 0
        """Cluster changes seen (pods, nodes, PodGroups; status-only updates excluded),
        plus reservations released by failed groups."""
        self.name = name

    # -- states -------------------------------------------------------------------------
    def get(self, key: str) -> GroupState:
        state = self._states.get(key)
        if state is None:
            state = self._states[key] = GroupState()
        return state

    def peek(self, key: str) -> GroupState | None:
        return self._states.get(key)

    def drop(self, key: str) -> list[str]:
        """Forget a group (its PodGroup was deleted); returns the groups its slot frees."""
        state = self._states.pop(key, None)
        if state is not None and state.wakeup is not None:
            state.wakeup.cancel()
        self._blocked.pop(key, None)
        return self.release(key)

    # -- reservation slots --------------------------------------------------------------
    def blocking_holder(self, key: str) -> str | None:
        """The group whose slot keeps `key` from holding members at Permit, or None."""
        if self._max_holders == 0 or key in self._holders:
            return None
        if len(self._holders) < self._max_holders:
            return None
        return next(iter(self._holders))

    def acquire(self, key: str) -> None:
        self._holders[key] = None
        self._blocked.pop(key, None)

    def block(self, key: str) -> None:
        """`key` was turned away for want of a slot; it is woken when one frees."""
        self._blocked[key] = None

    def release(self, key: str) -> list[str]:
        """Free the group's slot; returns the groups that were waiting for one, oldest
        first (they are to be activated)."""
        if key not in self._holders:
            return []
        del self._holders[key]
        if not self._blocked:
            return []
        waiting = list(self._blocked)
        self._blocked.clear()
        return waiting

    def holders(self) -> list[str]:
        return list(self._holders)

    # -- backoff timers -----------------------------------------------------------------
    def schedule_wakeup(self, key: str, state: GroupState) -> None:
        """Wake the group's members when its backoff ends (no timer without a loop)."""
        if state.wakeup is not None:
            state.wakeup.cancel()
            state.wakeup = None
        if state.backoff_until is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        state.wakeup = loop.call_at(state.backoff_until, self._fire, key)

    def cancel_wakeup(self, state: GroupState) -> None:
        if state.wakeup is not None:
            state.wakeup.cancel()
            state.wakeup = None

    def _fire(self, key: str) -> None:
        state = self._states.get(key)
        if state is None:
            return
        state.wakeup = None
        state.backoff_until = None
        self._on_wakeup(key)

    # -- as an embedded-cluster controller ----------------------------------------------
    def start(self, cluster: Any) -> None:
        """Nothing to watch: the plugin feeds the table."""

    def busy(self) -> bool:
        return any(
            s.wakeup is not None and not s.parked and s.changes_at_attempt != self.changes
            for s in self._states.values()
        )
