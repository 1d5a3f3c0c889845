"""The event broadcaster on virtual time: series, retries, the queue bound and shutdown, as
client-go's events library (tools/events/event_broadcaster.go) behaves."""

from __future__ import annotations

import asyncio
import gc
import itertools
import logging
from collections import deque
from collections.abc import Callable, Coroutine, Iterable
from typing import Any, TypeVar

import pytest

from kubesched.clock import VirtualClock, VirtualTimeLoop
from kubesched.cluster import EventWriteError, KubeEvent, ObjectRef
from kubesched.cluster.memory import MemoryCluster, default_kinds
from kubesched.scheduler import ClusterEventRecorder
from kubesched.scheduler._broadcaster import FINISH_TIME, MAX_TRIES_PER_EVENT, REFRESH_TIME
from kubesched.testing import make_pod

T = TypeVar("T")

RETRY = EventWriteError("connection failed", retry=True)
REFUSED = EventWriteError("403 Forbidden: events is forbidden")
EXISTS = EventWriteError('409 AlreadyExists: events "p.1" already exists', already_exists=True)


class ScriptedCluster(MemoryCluster):
    """The memory cluster, whose event writes first fail as scripted (None: succeed)."""

    def __init__(self, clock: VirtualClock, failures: Iterable[Exception | None] = ()) -> None:
        super().__init__(default_kinds(), clock)
        self.failures: deque[Exception | None] = deque(failures)
        self.tries: list[tuple[float, KubeEvent]] = []
        self.fail_always: Exception | None = None
        self.blocked: asyncio.Event | None = None

    async def record_event(self, event: KubeEvent) -> None:
        self.tries.append((self.clock.now(), event))
        if self.blocked is not None:
            await self.blocked.wait()
        failure = self.failures.popleft() if self.failures else self.fail_always
        if failure is not None:
            raise failure
        await super().record_event(event)


def virtual(scenario: Callable[[VirtualClock], Coroutine[Any, Any, T]]) -> T:
    clock = VirtualClock()
    loop = VirtualTimeLoop(clock)
    try:
        return loop.run_until_complete(scenario(clock))
    finally:
        loop.close()


def recorder_on(cluster: ScriptedCluster, clock: VirtualClock, **options: Any) -> Any:
    broadcaster = ClusterEventRecorder(cluster, clock, hostname="host1", **options)
    return broadcaster, broadcaster.for_profile("default-scheduler")


POD = make_pod("p").obj()


def test_a_profile_recorder_reports_as_its_scheduler_name_with_references() -> None:
    async def scenario(clock: VirtualClock) -> None:
        cluster = ScriptedCluster(clock)
        broadcaster, _ = recorder_on(cluster, clock)
        pod = POD.model_copy(
            update={"metadata": POD.metadata.model_copy(update={"resource_version": "12"})}
        )
        preemptor = make_pod("big").obj()
        broadcaster.for_profile("gpu-scheduler").event(
            pod, "Normal", "Preempted", "Preempting", "Preempted by pod u on node n1", preemptor
        )
        await broadcaster.flush()
        (event,) = cluster.events()
        assert (event.reporting_controller, event.reporting_instance) == (
            "gpu-scheduler",
            "gpu-scheduler-host1",
        )
        assert event.regarding == ObjectRef("v1", "Pod", "default", "p", pod.metadata.uid, "12")
        assert event.related == ObjectRef.of(preemptor)
        assert event.name.startswith("p.") and event.event_time == clock.micro_time()

    virtual(scenario)


def test_an_unsupported_event_type_is_not_recorded(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario(clock: VirtualClock) -> None:
        cluster = ScriptedCluster(clock)
        broadcaster, recorder = recorder_on(cluster, clock)
        recorder.event(POD, "Error", "Oops", "Scheduling", "m")
        await broadcaster.flush()
        assert cluster.events() == []

    virtual(scenario)
    assert "Unsupported event type: 'Error'" in caplog.text


def test_names_stay_unique_when_the_clock_stands_still() -> None:
    async def scenario(clock: VirtualClock) -> None:
        cluster = ScriptedCluster(clock)
        broadcaster, recorder = recorder_on(cluster, clock)
        for reason in ("A", "B", "C"):
            recorder.event(POD, "Normal", reason, "Binding", "m")
        await broadcaster.flush()
        names = [e.name for e in cluster.events()]
        assert len(set(names)) == 3 and [e.reason for e in cluster.events()] == ["A", "B", "C"]

    virtual(scenario)


def test_isomorphic_events_form_a_series_patched_at_the_first_repeat() -> None:
    """recordToSink: the first repeat writes count 2; later ones only count; the note is
    not compared."""

    async def scenario(clock: VirtualClock) -> None:
        cluster = ScriptedCluster(clock)
        broadcaster, recorder = recorder_on(cluster, clock)
        for note in ("0/1 nodes are available", "0/2 nodes are available", "again"):
            recorder.event(POD, "Warning", "FailedScheduling", "Scheduling", note)
            await broadcaster.flush()
            await asyncio.sleep(10)
        writes = [(t, e.series.count if e.series else None) for t, e in cluster.tries]
        assert writes == [(0.0, None), (10.0, 2)]
        (event,) = cluster.events()
        assert event.message == "0/1 nodes are available"
        assert event.series is not None and event.series.count == 2
        assert event.series.last_observed == 10.0

    virtual(scenario)


VARIATIONS: list[tuple[str, dict[str, Any]]] = [
    ("type", {"event_type": "Normal"}),
    ("action", {"action": "Binding"}),
    ("reason", {"reason": "Other"}),
    ("regarding resourceVersion", {"obj": "rv"}),
    ("related", {"related": "preemptor"}),
]


@pytest.mark.parametrize(("what", "change"), VARIATIONS, ids=[v[0] for v in VARIATIONS])
def test_events_differing_in_a_key_field_are_not_isomorphic(
    what: str, change: dict[str, Any]
) -> None:
    """getKey: type, action, reason, reportingController, reportingInstance, regarding (its
    resourceVersion included) and related."""

    async def scenario(clock: VirtualClock) -> None:
        cluster = ScriptedCluster(clock)
        broadcaster, recorder = recorder_on(cluster, clock)
        first: dict[str, Any] = {
            "obj": POD,
            "event_type": "Warning",
            "reason": "FailedScheduling",
            "action": "Scheduling",
            "message": "m",
            "related": None,
        }
        second = first | change
        if second["obj"] == "rv":
            meta = POD.metadata.model_copy(update={"resource_version": "99"})
            second["obj"] = POD.model_copy(update={"metadata": meta})
        if second["related"] == "preemptor":
            second["related"] = make_pod("big").obj()
        recorder.event(**first)
        recorder.event(**second)
        await broadcaster.flush()
        assert [e.series for e in cluster.events()] == [None, None]

    virtual(scenario)


def test_the_reporting_controller_is_part_of_the_key() -> None:
    async def scenario(clock: VirtualClock) -> None:
        cluster = ScriptedCluster(clock)
        broadcaster, _ = recorder_on(cluster, clock)
        for profile in ("default-scheduler", "other", "default-scheduler"):
            broadcaster.for_profile(profile).event(POD, "Normal", "Scheduled", "Binding", "m")
        await broadcaster.flush()
        counts = [(e.reporting_controller, e.series and e.series.count) for e in cluster.events()]
        assert counts == [("default-scheduler", 2), ("other", None)]

    virtual(scenario)


def test_a_series_finishes_after_six_idle_minutes_with_its_final_count() -> None:
    """finishSeries (every 6 minutes): the count so far is written and the series
    forgotten, so the next repeat starts a new Event."""

    async def scenario(clock: VirtualClock) -> None:
        cluster = ScriptedCluster(clock)
        broadcaster, recorder = recorder_on(cluster, clock)
        broadcaster.start()
        for _ in range(4):
            recorder.event(POD, "Warning", "FailedScheduling", "Scheduling", "m")
            await asyncio.sleep(1)
        await asyncio.sleep(2 * FINISH_TIME)
        (event,) = cluster.events()
        assert event.series is not None and event.series.count == 4
        assert cluster.tries[-1][0] == 2 * FINISH_TIME  # the first check after 6 idle min
        recorder.event(POD, "Warning", "FailedScheduling", "Scheduling", "m")
        await broadcaster.flush()
        assert [e.series and e.series.count for e in cluster.events()] == [4, None]
        await broadcaster.shutdown()

    virtual(scenario)


def test_without_timers_the_due_finish_checks_run_before_the_next_event() -> None:
    """A simulation runs no timers of its own: the checks due are run when an event comes,
    with the outcome the timer would have had."""

    async def scenario(clock: VirtualClock) -> None:
        cluster = ScriptedCluster(clock)
        broadcaster, recorder = recorder_on(cluster, clock)
        other = make_pod("other").obj()
        for _ in range(3):
            recorder.event(POD, "Warning", "FailedScheduling", "Scheduling", "m")
        await broadcaster.flush()
        assert [e.series and e.series.count for e in cluster.events()] == [2]
        clock.advance(FINISH_TIME + 1)  # the check at 6 min: last seen at 0, not before 0
        recorder.event(other, "Normal", "Scheduled", "Binding", "m")
        await broadcaster.flush()
        assert [e.series and e.series.count for e in cluster.events()] == [2, None]
        clock.advance(FINISH_TIME)  # the check at 12 min writes the final count
        recorder.event(other, "Normal", "Pulled", "Binding", "not isomorphic")
        await broadcaster.flush()
        assert [e.series and e.series.count for e in cluster.events()] == [3, None, None]
        recorder.event(POD, "Warning", "FailedScheduling", "Scheduling", "m")
        await broadcaster.flush()
        assert [e.involved_name for e in cluster.events()] == ["p", "other", "other", "p"]

    virtual(scenario)


def test_open_series_are_written_again_every_thirty_minutes() -> None:
    async def scenario(clock: VirtualClock) -> None:
        cluster = ScriptedCluster(clock)
        broadcaster, recorder = recorder_on(cluster, clock)
        broadcaster.start()
        for _ in range(int(REFRESH_TIME // 60) + 1):  # a repeat every minute
            recorder.event(POD, "Warning", "FailedScheduling", "Scheduling", "m")
            await asyncio.sleep(60)
        refreshes = [t for t, e in cluster.tries if e.series and e.series.count > 2]
        assert refreshes == [REFRESH_TIME]
        await broadcaster.shutdown()

    virtual(scenario)


def test_a_write_that_may_succeed_later_is_retried_ten_seconds_apart(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario(clock: VirtualClock) -> None:
        cluster = ScriptedCluster(clock, [RETRY, RETRY])
        broadcaster, recorder = recorder_on(cluster, clock)
        recorder.event(POD, "Normal", "Scheduled", "Binding", "m")
        await broadcaster.flush()
        times = [t for t, _ in cluster.tries]
        assert len(times) == 3 and len(cluster.events()) == 1
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert all(10.0 <= g <= 12.5 for g in gaps), gaps  # wait.Jitter(10 s, 0.25)
        assert broadcaster.dropped == 0

    virtual(scenario)
    assert caplog.text.count("Unable to write event (may retry after sleeping)") == 2


def test_a_write_is_dropped_after_twelve_tries(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario(clock: VirtualClock) -> None:
        cluster = ScriptedCluster(clock)
        cluster.fail_always = RETRY
        broadcaster, recorder = recorder_on(cluster, clock)
        recorder.event(POD, "Normal", "Scheduled", "Binding", "m")
        await broadcaster.flush()
        assert len(cluster.tries) == MAX_TRIES_PER_EVENT
        assert broadcaster.dropped == 1 and not broadcaster.busy

    virtual(scenario)
    assert "Unable to write event (retry limit exceeded!)" in caplog.text


@pytest.mark.parametrize(
    ("failure", "series", "tries", "logged"),
    [
        (REFUSED, False, 1, "Server rejected event (will not retry!)"),
        (EXISTS, False, 1, ""),
        (EXISTS, True, 2, "Unable to write event (may retry after sleeping)"),
        (RuntimeError("Session is closed"), False, 1, "Unable to write event (will not retry!)"),
    ],
    ids=["refused", "exists", "series-exists", "closed-session"],
)
def test_what_is_retried_and_what_is_dropped(
    caplog: pytest.LogCaptureFixture,
    failure: Exception,
    series: bool,
    tries: int,
    logged: str,
) -> None:
    """recordEvent: a StatusError is dropped, except AlreadyExists for a series (its patch
    raced the create); anything unexpected is dropped, never raised out of a task."""

    async def scenario(clock: VirtualClock) -> None:
        cluster = ScriptedCluster(clock)
        broadcaster, recorder = recorder_on(cluster, clock)
        recorder.event(POD, "Normal", "Scheduled", "Binding", "m")
        await broadcaster.flush()
        cluster.failures.append(failure)
        cluster.tries.clear()
        recorder.event(POD, "Normal", "Scheduled" if series else "Other", "Binding", "m")
        await broadcaster.flush()
        assert len(cluster.tries) == tries
        assert broadcaster.dropped == (0 if series else 1)

    with caplog.at_level(logging.DEBUG, "kubesched.events"):
        virtual(scenario)
        gc.collect()
    if logged:
        assert logged in caplog.text
    assert "Task exception was never retrieved" not in caplog.text


def test_at_most_a_thousand_events_wait_and_the_rest_are_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario(clock: VirtualClock) -> None:
        cluster = ScriptedCluster(clock)
        cluster.blocked = asyncio.Event()
        broadcaster, recorder = recorder_on(cluster, clock)
        for n in range(1003):
            recorder.event(make_pod(f"p{n}").obj(), "Normal", "Scheduled", "Binding", "m")
        assert broadcaster.pending == 1000 and broadcaster.dropped == 3
        cluster.blocked.set()
        await broadcaster.flush()
        assert len(cluster.events()) == 1000

    virtual(scenario)
    assert caplog.text.count("too many queued events, dropped event") == 3


def test_shutdown_waits_its_time_then_drops_what_is_left_with_a_count(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario(clock: VirtualClock) -> None:
        cluster = ScriptedCluster(clock)
        cluster.fail_always = RETRY
        broadcaster, recorder = recorder_on(cluster, clock)
        for reason in ("A", "B"):
            recorder.event(POD, "Normal", reason, "Binding", "m")
        assert await broadcaster.shutdown(5.0) == 2
        assert clock.now() == 5.0 and not broadcaster.busy
        recorder.event(POD, "Normal", "C", "Binding", "m")  # after shutdown: a logged drop
        await broadcaster.flush()
        assert broadcaster.dropped == 3 and cluster.events() == []
        await asyncio.sleep(60)
        assert len(cluster.tries) == 2  # no retry after shutdown

    virtual(scenario)
    assert "Dropped 2 event(s) not written before shutdown" in caplog.text
    assert "the event broadcaster is shut down" in caplog.text


def test_a_core_v1_event_is_not_aggregated_and_first_retries_sooner() -> None:
    async def scenario(clock: VirtualClock) -> None:
        cluster = ScriptedCluster(clock, [RETRY])
        broadcaster, _ = recorder_on(cluster, clock)
        legacy = broadcaster.legacy("default-scheduler")
        lease = ObjectRef("coordination.k8s.io/v1", "Lease", "kube-system", "kube-scheduler")
        legacy.event(lease, "Normal", "LeaderElection", "me became leader")
        legacy.event(lease, "Normal", "LeaderElection", "me became leader")
        await broadcaster.flush()
        events = cluster.events()
        assert [(e.legacy, e.series, e.reporting_instance, e.action) for e in events] == [
            (True, None, "", ""),
            (True, None, "", ""),
        ]
        first_retry = max(t for t, _ in cluster.tries)
        assert first_retry < 10.0  # tools/record: the first wait is random within 10 s

    virtual(scenario)
