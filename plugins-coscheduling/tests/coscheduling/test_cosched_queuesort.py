"""QueueSort: priority, then the group's creation (or last failure) time, then ns/name.

Cases from scheduler-plugins pkg/coscheduling/coscheduling_test.go (TestLess,
TestLessAfterScheduleFailure): times[] = now + {0, 1, 2, 3, -2, -1} s; pg1 (namespace1)
created at times[2], pg2/pg3/pg4 (namespace2) at times[3]/times[4]/times[5].
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from cosched_helpers import Env, gang_pod, pod_group

from kubesched.framework import PodInfo, QueuedPodInfo

NOW = 100.0
TIMES = [NOW + d for d in (0, 1, 2, 3, -2, -1)]
NS1, NS2 = "namespace1", "namespace2"
LOW, HIGH = 10, 100


@pytest.fixture(scope="module")
def env() -> Iterator[Env]:
    groups = [
        pod_group("pg1", 5, namespace=NS1, created=TIMES[2]),
        pod_group("pg2", 5, namespace=NS2, created=TIMES[3]),
        pod_group("pg3", 5, namespace=NS2, created=TIMES[4]),
        pod_group("pg4", 5, namespace=NS2, created=TIMES[5]),
    ]
    e = Env(groups, now=NOW + 10)
    yield e
    e.close()


def qpi(
    ns: str, name: str, prio: int, group: str | None = None, t: float | None = None
) -> QueuedPodInfo:
    pod = gang_pod(name, group, namespace=ns, priority=prio)
    return QueuedPodInfo(PodInfo(pod), timestamp=0.0, initial_attempt_timestamp=t)


CASES = [
    ("p1.priority less than p2.priority", qpi(NS1, "pod1", LOW), qpi(NS2, "pod2", HIGH), False),
    ("p1.priority greater than p2.priority", qpi(NS1, "pod1", HIGH), qpi(NS2, "pod2", LOW), True),
    (
        "equal priority. p1 is added to schedulingQ earlier than p2",
        qpi(NS1, "pod1", HIGH, t=TIMES[0]),
        qpi(NS2, "pod2", HIGH, t=TIMES[1]),
        True,
    ),
    (
        "equal priority. p2 is added to schedulingQ earlier than p1",
        qpi(NS1, "pod1", HIGH, t=TIMES[1]),
        qpi(NS2, "pod2", HIGH, t=TIMES[0]),
        False,
    ),
    (
        "p1.priority less than p2.priority, p1 belongs to podGroup1",
        qpi(NS1, "pod1", LOW, "pg1"),
        qpi(NS2, "pod2", HIGH),
        False,
    ),
    (
        "p1.priority greater than p2.priority, p1 belongs to podGroup1",
        qpi(NS1, "pod1", HIGH, "pg1"),
        qpi(NS2, "pod2", LOW),
        True,
    ),
    (
        # pg3 lives in namespace2: pod1 (namespace1) falls back to its own timestamp
        "equal priority. p1 is added to schedulingQ earlier than p2, p1 belongs to podGroup3",
        qpi(NS1, "pod1", HIGH, "pg3", t=TIMES[0]),
        qpi(NS2, "pod2", HIGH, t=TIMES[1]),
        True,
    ),
    (
        "equal priority. p2 is added to schedulingQ earlier than p1, p1 belongs to podGroup3",
        qpi(NS1, "pod1", HIGH, "pg3", t=TIMES[1]),
        qpi(NS2, "pod2", HIGH, t=TIMES[0]),
        False,
    ),
    (
        "p1.priority less than p2.priority, p1 belongs to podGroup1 and p2 to podGroup2",
        qpi(NS1, "pod1", LOW, "pg1"),
        qpi(NS2, "pod2", HIGH, "pg2"),
        False,
    ),
    (
        "p1.priority greater than p2.priority, p1 belongs to podGroup1 and p2 to podGroup2",
        qpi(NS1, "pod1", HIGH, "pg1"),
        qpi(NS2, "pod2", LOW, "pg2"),
        True,
    ),
    (
        "equal priority. p1 added earlier, p1 belongs to podGroup1 and p2 to podGroup2",
        qpi(NS1, "pod1", HIGH, "pg1", t=TIMES[0]),
        qpi(NS2, "pod2", HIGH, "pg2", t=TIMES[1]),
        True,
    ),
    (
        "equal priority. p2 added earlier, p1 belongs to podGroup4 and p2 to podGroup3",
        qpi(NS1, "pod1", HIGH, "pg4", t=TIMES[1]),
        qpi(NS2, "pod2", HIGH, "pg3", t=TIMES[0]),
        False,
    ),
    (
        "equal priority and creation time, p1 belongs to podGroup1 and p2 to podGroup2",
        qpi(NS1, "pod1", HIGH, "pg1", t=TIMES[0]),
        qpi(NS2, "pod2", HIGH, "pg2", t=TIMES[0]),
        True,
    ),
    (
        "equal priority and creation time, p2 belong to podGroup2",
        qpi(NS1, "pod1", HIGH, t=TIMES[0]),
        qpi(NS2, "pod2", HIGH, "pg2", t=TIMES[0]),
        True,
    ),
]


@pytest.mark.parametrize(
    ("p1", "p2", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_less(env: Env, p1: QueuedPodInfo, p2: QueuedPodInfo, expected: bool) -> None:
    assert env.plugin.less(p1, p2) is expected


def test_same_group_members_are_ordered_by_namespace_and_name(env: Env) -> None:
    a = qpi(NS2, "w-01", HIGH, "pg2", t=TIMES[1])
    b = qpi(NS2, "w-02", HIGH, "pg2", t=TIMES[0])
    assert env.plugin.less(a, b) and not env.plugin.less(b, a)


def test_missing_initial_attempt_falls_back_to_the_queue_timestamp(env: Env) -> None:
    early = QueuedPodInfo(PodInfo(gang_pod("a", None, priority=1)), timestamp=5.0)
    late = QueuedPodInfo(PodInfo(gang_pod("b", None, priority=1)), timestamp=6.0)
    assert env.plugin.less(early, late) and not env.plugin.less(late, early)


def test_less_after_schedule_failure() -> None:
    """TestLessAfterScheduleFailure: pg1 older than pg2 sorts first; after a failure of
    pg1 is recorded, pg2 does; once pg1 reaches its quorum, creation order is back."""
    env = Env([pod_group("pg1", 1, created=10.0), pod_group("pg2", 1, created=20.0)], now=50.0)
    try:
        p1, p2 = qpi("default", "p1", 0, "pg1"), qpi("default", "p2", 0, "pg2")
        assert env.plugin.less(p1, p2)

        env.plugin._outcomes.fail_group("default/pg1", "rejected", "a test failure")
        assert not env.plugin.less(p1, p2) and env.plugin.less(p2, p1)

        state = env.plugin._groups.get("default/pg1")
        pg = env.cluster.get("PodGroup", "pg1", "default")
        env.call(lambda: env.plugin._outcomes.reach_quorum("default/pg1", state, pg))
        assert env.plugin.less(p1, p2)
    finally:
        env.close()
