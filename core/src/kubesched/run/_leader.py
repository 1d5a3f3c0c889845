"""Leader election over a Lease: one replica schedules, the others wait to take over.

Upstream: client-go tools/leaderelection/leaderelection.go (tryAcquireOrRenew, acquire,
renew, release, Check), with the leaderElection settings of the KubeSchedulerConfiguration
(leaseDuration 15 s, renewDeadline 10 s, retryPeriod 2 s). As upstream:

- a follower retries every retryPeriod (with jitter up to 1.2 x retryPeriod) and takes the
  Lease once its record has not changed for leaseDuration, measured on this replica's own
  clock from when it last saw the record change (so clocks need not agree);
- the leader renews every retryPeriod; when it cannot renew for renewDeadline it has lost,
  and must stop at once (kube-scheduler exits);
- every write carries the Lease's resourceVersion, so two replicas cannot both win;
- becoming leader and ceasing to lead are recorded as Events on the Lease (resourcelock
  LeaseLock.RecordEvent: Normal, reason LeaderElection, "<identity> became leader" and
  "<identity> stopped leading"), when an `event_recorder` is set.

Time comes from an injected Clock, so tests run the algorithm on virtual time.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final, Protocol

from kubesched._errors import ConfigError
from kubesched.clock import Clock
from kubesched.cluster import ObjectRef
from kubesched.cluster.kube import LeaderElectionRecord

__all__ = [
    "JITTER_FACTOR",
    "LeaderElector",
    "LeaderMetricsAdapter",
    "LeaseLock",
    "LegacyRecorder",
]

_log = logging.getLogger("kubesched.run")

JITTER_FACTOR: Final = 1.2
"""client-go leaderelection.JitterFactor."""


class LeaseLock(Protocol):
    """Where the election record lives (a coordination.k8s.io/v1 Lease in `run`)."""

    identity: str

    def describe(self) -> str: ...

    def reference(self) -> ObjectRef | None:
        """The object the record lives in, as last read or written (None before)."""
        ...

    async def get(self) -> LeaderElectionRecord | None:
        """The current record, None when there is none yet; raises on other failures."""
        ...

    async def create(self, record: LeaderElectionRecord) -> None:
        """Create the record; raises (ConflictError) when it already exists."""
        ...

    async def update(self, record: LeaderElectionRecord) -> None:
        """Replace the record last read; raises (ConflictError) when it changed since."""
        ...


class LegacyRecorder(Protocol):
    """A core/v1 event recorder (client-go tools/record EventRecorder.Eventf)."""

    def event(self, obj: Any, event_type: str, reason: str, message: str) -> None: ...


class LeaderMetricsAdapter(Protocol):
    """What leader election tells its metrics (client-go leaderelection metrics.go)."""

    def leader_on(self) -> None: ...

    def leader_off(self) -> None: ...


class LeaderElector:
    """Acquires, renews and releases leadership through a LeaseLock."""

    def __init__(
        self,
        lock: LeaseLock,
        *,
        lease_duration: float,
        renew_deadline: float,
        retry_period: float,
        clock: Clock,
        rng: random.Random | None = None,
    ) -> None:
        # client-go NewLeaderElector's checks
        if lease_duration <= renew_deadline:
            raise ConfigError(
                "leaseDuration must be greater than renewDeadline", path="leaderElection"
            )
        if renew_deadline <= JITTER_FACTOR * retry_period:
            raise ConfigError(
                f"renewDeadline must be greater than retryPeriod*JitterFactor ({JITTER_FACTOR})",
                path="leaderElection",
            )
        if retry_period <= 0:
            raise ConfigError("retryPeriod must be greater than zero", path="leaderElection")
        self.lock = lock
        self.lease_duration = lease_duration
        self.renew_deadline = renew_deadline
        self.retry_period = retry_period
        self.clock = clock
        self._rng = rng or random.Random()
        self._observed = LeaderElectionRecord()
        self._observed_time = float("-inf")
        self._reported_leader = ""
        self.event_recorder: LegacyRecorder | None = None
        """Where "became leader" and "stopped leading" are recorded (kube-scheduler: the
        first profile's schedulerName as the source component)."""
        self.metrics: LeaderMetricsAdapter | None = None
        """Told when this replica becomes leader and when renewing ends by itself (client-go
        leaderelection's leaderMetricsAdapter: leaderOn, leaderOff)."""
        self.on_stopped_leading: Callable[[], None] | None = None
        """Called when renewing ends by itself (the Lease lost or not renewed in time, or a
        failure), in the same step of the event loop as the decision: client-go's Run
        cancels the leading context right there, so work in flight stops before it can
        act for a Lease another replica may take next. Not called when renewing is
        cancelled (a shutdown stops its work itself)."""

    # -- state --------------------------------------------------------------------------
    @property
    def observed_record(self) -> LeaderElectionRecord:
        return self._observed

    def leader(self) -> str:
        """The identity of the last observed leader, "" when none was seen."""
        return self._observed.holder_identity

    def is_leader(self) -> bool:
        return self._observed.holder_identity == self.lock.identity

    def _lease_valid(self, now: float) -> bool:
        return self._observed_time + self._observed.lease_duration_seconds > now

    def _observe(self, record: LeaderElectionRecord) -> None:
        self._observed = record
        self._observed_time = self.clock.now()

    def check(self, max_tolerable_expired_lease: float = 20.0) -> str | None:
        """The healthz watchdog: an error when this replica leads but has not renewed for
        longer than leaseDuration plus the tolerance (it should have stopped)."""
        if not self.is_leader():
            return None
        if (
            self.clock.now() - self._observed_time
            > self.lease_duration + max_tolerable_expired_lease
        ):
            return f"failed election to renew leadership on lease {self.lock.describe()}"
        return None

    # -- the algorithm ------------------------------------------------------------------
    async def try_acquire_or_renew(self) -> bool:
        """One attempt to take or keep the Lease; True when this replica holds it now."""
        now = self.clock.now()
        wall = self.clock.micro_time()  # Lease times are MicroTime
        record = LeaderElectionRecord(
            holder_identity=self.lock.identity,
            lease_duration_seconds=int(self.lease_duration),
            acquire_time=wall,
            renew_time=wall,
        )
        # 1. the leader's fast path: write assuming the record it saw last is current
        if self.is_leader() and self._lease_valid(now):
            fast = replace(
                record,
                acquire_time=self._observed.acquire_time,
                leader_transitions=self._observed.leader_transitions,
            )
            try:
                await self.lock.update(fast)
            except Exception as exc:
                _log.info(
                    "Failed to update lock optimistically: %s, falling back to slow path", exc
                )
            else:
                self._observe(fast)
                return True
        # 2. read (or create) the record
        try:
            current = await self.lock.get()
        except Exception as exc:
            _log.error("Error retrieving resource lock %s: %s", self.lock.describe(), exc)
            return False
        if current is None:
            try:
                await self.lock.create(record)
            except Exception as exc:
                _log.error("Error initially creating leader election record: %s", exc)
                return False
            self._observe(record)
            return True
        # 3. someone else's valid lease: wait
        if current != self._observed:
            self._observe(current)
        if current.holder_identity and self._lease_valid(now) and not self.is_leader():
            return False
        # 4. take it over, or renew it on the slow path
        if self.is_leader():
            record = replace(
                record,
                acquire_time=current.acquire_time,
                leader_transitions=current.leader_transitions,
            )
        else:
            record = replace(record, leader_transitions=current.leader_transitions + 1)
        try:
            await self.lock.update(record)
        except Exception as exc:
            _log.error("Failed to update lock: %s", exc)
            return False
        self._observe(record)
        return True

    def _report_transition(self) -> None:
        leader = self._observed.holder_identity
        if leader != self._reported_leader:
            self._reported_leader = leader
            if leader:
                _log.info("New leader elected: %s", leader)

    async def acquire(self) -> None:
        """Return once this replica holds the Lease (retrying every retryPeriod+jitter)."""
        _log.info("Attempting to acquire leader lease %s...", self.lock.describe())
        while True:
            acquired = await self.try_acquire_or_renew()
            self._report_transition()
            if acquired:
                self._record_event("became leader")
                _log.info("Successfully acquired lease %s", self.lock.describe())
                if self.metrics is not None:
                    self.metrics.leader_on()
                return
            jitter = self._rng.random() * JITTER_FACTOR * self.retry_period
            await asyncio.sleep(self.retry_period + jitter)

    def _record_event(self, what: str) -> None:
        # resourcelock LeaseLock.RecordEvent
        if self.event_recorder is None:
            return
        subject = self.lock.reference()
        if subject is None:
            return
        message = f"{self.lock.identity} {what}"
        self.event_recorder.event(subject, "Normal", "LeaderElection", message)

    async def renew(self) -> None:
        """Keep the Lease; return when it could not be renewed within renewDeadline. Either
        way, and when cancelled, "stopped leading" is recorded (renew's deferred
        RecordEvent); returning or failing, not a cancel, calls `on_stopped_leading` and
        is the metrics' leader_off."""
        try:
            await self._renew_recorded()
        except asyncio.CancelledError:
            raise
        except Exception:
            self._stopped_leading()
            raise
        self._stopped_leading()

    async def _renew_recorded(self) -> None:
        try:
            await self._renew()
        finally:
            self._record_event("stopped leading")

    def _stopped_leading(self) -> None:
        # leaderelection.go Run: the leading context's cancel, then OnStoppedLeading
        if self.on_stopped_leading is not None:
            self.on_stopped_leading()
        if self.metrics is not None:
            self.metrics.leader_off()

    async def _renew(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            deadline = loop.time() + self.renew_deadline
            renewed = False
            while not renewed:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    break
                try:
                    # asyncio.timeout, not wait_for: 3.11's wait_for can swallow a cancel
                    async with asyncio.timeout(remaining):
                        renewed = await self.try_acquire_or_renew()
                except TimeoutError:
                    break
                if not renewed:
                    await asyncio.sleep(min(self.retry_period, max(0.0, deadline - loop.time())))
            self._report_transition()
            if not renewed:
                _log.error("Failed to renew lease %s: timed out", self.lock.describe())
                return
            await asyncio.sleep(self.retry_period)

    async def release(self) -> bool:
        """Give the Lease up (holder cleared, duration 1 s), if this replica holds it."""
        if not self.is_leader():
            return True
        wall = self.clock.micro_time()  # Lease times are MicroTime
        record = LeaderElectionRecord(
            holder_identity="",
            lease_duration_seconds=1,
            acquire_time=wall,
            renew_time=wall,
            leader_transitions=self._observed.leader_transitions,
        )
        try:
            await self.lock.update(record)
        except Exception as exc:
            _log.error("Failed to release lock: %s", exc)
            return False
        self._observe(record)
        return True
