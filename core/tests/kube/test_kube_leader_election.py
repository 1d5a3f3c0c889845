"""Leader election: client-go's TestTryAcquireOrRenew cases, then whole elections of two
replicas on virtual time (an in-memory lock), then the real Lease on the fake server.

Needs the `kube` extra: skipped without it.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import fake_server, run

from kubesched import ConfigError, ConflictError
from kubesched.clock import VirtualClock, VirtualTimeLoop, WallClock
from kubesched.cluster.kube import (
    ApiError,
    KubeLeaseLock,
    LeaderElectionRecord,
    Transport,
)
from kubesched.run import LeaderElector

T = TypeVar("T")


@dataclass
class Store:
    record: LeaderElectionRecord | None = None
    version: int = 0
    down: bool = False
    """The API server is unreachable: every call fails."""


@dataclass
class MemoryLock:
    """A Lease in memory with optimistic concurrency, shared by the replicas' locks."""

    identity: str
    store: Store
    actions: list[str] = field(default_factory=list)
    refuse: set[str] = field(default_factory=set)
    """Calls this replica's client gets an error for (a network partition of one)."""
    _seen: int = -1

    def describe(self) -> str:
        return "kube-system/kubesched"

    def _check(self, verb: str) -> None:
        self.actions.append(verb)
        if self.store.down or verb in self.refuse:
            raise ApiError(0, "", "connection refused")

    async def get(self) -> LeaderElectionRecord | None:
        self._check("get")
        self._seen = self.store.version
        return self.store.record

    async def create(self, record: LeaderElectionRecord) -> None:
        self._check("create")
        if self.store.record is not None:
            raise ConflictError("leases", "kubesched", "already exists")
        self.store.record, self.store.version = record, self.store.version + 1
        self._seen = self.store.version

    async def update(self, record: LeaderElectionRecord) -> None:
        self._check("update")
        if self._seen != self.store.version:
            raise ConflictError("leases", "kubesched", "the object has been modified")
        self.store.record, self.store.version = record, self.store.version + 1
        self._seen = self.store.version


def virtual(scenario: Callable[[VirtualTimeLoop], Awaitable[T]]) -> T:
    loop = VirtualTimeLoop(VirtualClock(start=1000.0))
    try:
        return loop.run_until_complete(scenario(loop))
    finally:
        loop.close()


def elector(lock: MemoryLock, clock: VirtualClock, *, seed: int = 0) -> LeaderElector:
    import random

    return LeaderElector(
        lock,
        lease_duration=10.0,
        renew_deadline=8.0,
        retry_period=2.0,
        clock=clock,
        rng=random.Random(seed),
    )


# upstream leaderelection_test.go testTryAcquireOrRenew, for leases; the elector is "baz"
BING = LeaderElectionRecord(holder_identity="bing", lease_duration_seconds=10)
CASES = [
    # name, stored record, observed record, observed how long ago (None: never),
    # expected success, expected actions, expected holder, expected transitions
    ("acquire from no object", None, None, None, True, ["get", "create"], "baz", 0),
    (
        "acquire from object without a holder",
        LeaderElectionRecord(),
        None,
        None,
        True,
        ["get", "update"],
        "baz",
        1,
    ),
    (
        "acquire from led, unacked object",
        BING,
        BING,
        1000.0,
        True,
        ["get", "update"],
        "baz",
        1,
    ),
    (
        "acquire from empty led, acked object",
        LeaderElectionRecord(holder_identity="", lease_duration_seconds=10),
        None,
        0.0,
        True,
        ["get", "update"],
        "baz",
        1,
    ),
    ("don't acquire from led, acked object", BING, None, None, False, ["get"], "bing", 0),
    (
        "renew already acquired object",
        LeaderElectionRecord(holder_identity="baz", lease_duration_seconds=10),
        LeaderElectionRecord(holder_identity="baz", lease_duration_seconds=10),
        0.0,
        True,
        ["update"],  # the leader's fast path writes without reading
        "baz",
        0,
    ),
]


@pytest.mark.parametrize(
    ("stored", "observed", "ago", "success", "actions", "holder", "transitions"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_try_acquire_or_renew(
    stored: LeaderElectionRecord | None,
    observed: LeaderElectionRecord | None,
    ago: float | None,
    success: bool,
    actions: list[str],
    holder: str,
    transitions: int,
) -> None:
    async def scenario(loop: VirtualTimeLoop) -> None:
        store = Store(record=stored, version=1 if stored else 0)
        lock = MemoryLock("baz", store)
        lock._seen = store.version
        le = elector(lock, loop.clock)
        if observed is not None:
            le._observed = observed
        if ago is not None:
            le._observed_time = loop.clock.now() - ago
        assert await le.try_acquire_or_renew() is success
        assert lock.actions == actions
        assert le.leader() == holder
        assert le.observed_record.leader_transitions == transitions

    virtual(scenario)


def test_a_led_lease_is_acquired_once_it_stays_unrenewed_for_its_duration() -> None:
    # upstream "acquire from led object with the lease duration seconds": first seen, then
    # taken once leaseDurationSeconds passed without the record changing
    async def scenario(loop: VirtualTimeLoop) -> list[bool]:
        store = Store(record=LeaderElectionRecord("bing", 3), version=1)
        le = elector(MemoryLock("baz", store), loop.clock)
        first = await le.try_acquire_or_renew()
        loop.clock.advance(2.9)
        second = await le.try_acquire_or_renew()
        loop.clock.advance(0.2)
        third = await le.try_acquire_or_renew()
        return [first, second, third]

    assert virtual(scenario) == [False, False, True]


def test_the_durations_are_checked_as_client_go_does() -> None:
    lock = MemoryLock("a", Store())
    with pytest.raises(ConfigError, match="leaseDuration must be greater than renewDeadline"):
        LeaderElector(lock, lease_duration=10, renew_deadline=10, retry_period=2, clock=WallClock())
    with pytest.raises(ConfigError, match="retryPeriod\\*JitterFactor"):
        LeaderElector(lock, lease_duration=15, renew_deadline=2, retry_period=2, clock=WallClock())


def test_second_replica_stays_passive_until_the_leader_stops_renewing() -> None:
    async def scenario(loop: VirtualTimeLoop) -> tuple[float, float, int]:
        store = Store()
        a = elector(MemoryLock("a", store), loop.clock, seed=1)
        b = elector(MemoryLock("b", store), loop.clock, seed=2)
        await a.acquire()
        started = loop.clock.now()
        renewing = loop.create_task(a.renew())
        b_acquiring = loop.create_task(b.acquire())
        await asyncio.sleep(120)  # two minutes of a healthy leader
        assert not b_acquiring.done() and not b.is_leader()
        assert store.record is not None and store.record.holder_identity == "a"
        assert store.record.renew_time is not None and store.record.acquire_time is not None
        assert store.record.renew_time > store.record.acquire_time
        crashed = loop.clock.now()
        renewing.cancel()  # the leader dies without releasing
        await b_acquiring
        assert b.is_leader() and store.record.holder_identity == "b"
        assert a.is_leader()  # a's own (stale) view; it is gone anyway
        return started, loop.clock.now() - crashed, store.record.leader_transitions

    _, takeover, transitions = virtual(scenario)
    # b must see the record unchanged for leaseDuration (10 s), polling every 2-4.4 s
    assert 10.0 <= takeover <= 10.0 + 2.0 + 2.0 * 2.2
    assert transitions == 1


def test_a_leader_that_cannot_renew_stops_after_the_renew_deadline() -> None:
    async def scenario(loop: VirtualTimeLoop) -> float:
        store = Store()
        lock = MemoryLock("a", store)
        a = elector(lock, loop.clock)
        await a.acquire()
        renewing = loop.create_task(a.renew())
        await asyncio.sleep(30)
        assert not renewing.done()
        lock.refuse = {"get", "update"}
        cut = loop.clock.now()
        await renewing
        return loop.clock.now() - cut

    lost_after = virtual(scenario)
    # the renewal under way when the cut happened may have just succeeded (up to one
    # retry period), then renewDeadline (8 s) of failing retries
    assert 8.0 <= lost_after <= 8.0 + 2.0 + 2.0


def test_a_leader_that_lost_the_race_stops_and_another_leads() -> None:
    async def scenario(loop: VirtualTimeLoop) -> None:
        store = Store()
        a = elector(MemoryLock("a", store), loop.clock)
        await a.acquire()
        # someone else overwrites the Lease (an operator, a split brain healed)
        store.record = LeaderElectionRecord("intruder", 10, leader_transitions=1)
        store.version += 1
        await asyncio.wait_for(a.renew(), timeout=60)
        assert a.leader() == "intruder" and not a.is_leader()

    virtual(scenario)


def test_release_lets_the_other_replica_take_over_at_once() -> None:
    async def scenario(loop: VirtualTimeLoop) -> float:
        store = Store()
        a = elector(MemoryLock("a", store), loop.clock)
        b = elector(MemoryLock("b", store), loop.clock)
        await a.acquire()
        b_acquiring = loop.create_task(b.acquire())
        await asyncio.sleep(5)
        assert await a.release()
        assert store.record is not None
        assert (store.record.holder_identity, store.record.lease_duration_seconds) == ("", 1)
        released = loop.clock.now()
        await b_acquiring
        return loop.clock.now() - released

    # an empty holder is free at once: b takes it at its next retry (2 to 4.4 s)
    assert virtual(scenario) <= 2.0 * 2.2


def test_watchdog_fails_a_leader_that_stopped_renewing() -> None:
    async def scenario(loop: VirtualTimeLoop) -> list[str | None]:
        store = Store()
        a = elector(MemoryLock("a", store), loop.clock)
        results = [a.check()]  # not leading: healthy
        await a.acquire()
        results.append(a.check())
        loop.clock.advance(10 + 20 + 1)  # leaseDuration + tolerance + 1 s without renewal
        results.append(a.check())
        return results

    assert virtual(scenario) == [
        None,
        None,
        "failed election to renew leadership on lease kube-system/kubesched",
    ]


def test_elections_through_a_real_lease_on_the_fake_server() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            locks = [
                KubeLeaseLock(Transport.for_host(server.url), "kube-system", "kubesched", name)
                for name in ("a", "b")
            ]
            a, b = (
                LeaderElector(
                    lock, lease_duration=15, renew_deadline=10, retry_period=2, clock=WallClock()
                )
                for lock in locks
            )
            try:
                assert await a.try_acquire_or_renew()
                assert not await b.try_acquire_or_renew()
                assert b.leader() == "a"
                assert await a.try_acquire_or_renew()  # renew
                lease = server.get("coordination.k8s.io/v1/leases", "kube-system/kubesched")
                assert lease is not None
                spec = lease["spec"]
                assert (spec["holderIdentity"], spec["leaseDurationSeconds"]) == ("a", 15)
                # metav1.MicroTime: six fractional digits of real microseconds, as upstream
                assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", spec["renewTime"])
                assert await a.release()
                assert await b.try_acquire_or_renew()
                lease = server.get("coordination.k8s.io/v1/leases", "kube-system/kubesched")
                assert lease is not None
                assert lease["spec"]["holderIdentity"] == "b"
                assert lease["spec"]["leaseTransitions"] == 1
            finally:
                for lock in locks:
                    await lock._transport.close()

    run(scenario)
