"""PrioritySort, from upstream queuesort/priority_sort_test.go."""

from __future__ import annotations

import pytest
from builtin_helpers import make_pod
from fakes import fake_handle

from kubesched.framework import NoArgs, PodInfo, QueuedPodInfo
from kubesched_builtin.queuesort import PrioritySort

LOW, HIGH = 0, 1000
T1, T2 = 100.0, 200.0


def _queued(priority: int | None, timestamp: float) -> QueuedPodInfo:
    builder = make_pod("p")
    if priority is not None:
        builder.priority(priority)
    return QueuedPodInfo(PodInfo(builder.obj()), timestamp=timestamp)


@pytest.mark.parametrize(
    ("name", "p1", "p2", "expected"),
    [
        ("p1.priority less than p2.priority", _queued(LOW, T1), _queued(HIGH, T1), False),
        ("p1.priority greater than p2.priority", _queued(HIGH, T1), _queued(LOW, T1), True),
        (
            "equal priority, p1 added to the queue earlier",
            _queued(HIGH, T1),
            _queued(HIGH, T2),
            True,
        ),
        (
            "equal priority, p2 added to the queue earlier",
            _queued(HIGH, T2),
            _queued(HIGH, T1),
            False,
        ),
        ("unset priority counts as 0", _queued(None, T2), _queued(LOW, T1), False),
        ("unset priority below a positive one", _queued(None, T1), _queued(1, T2), False),
    ],
)
def test_less(name: str, p1: QueuedPodInfo, p2: QueuedPodInfo, expected: bool) -> None:
    plugin = PrioritySort(NoArgs(), fake_handle())
    assert plugin.less(p1, p2) is expected


def test_less_orders_a_queue() -> None:
    plugin = PrioritySort(NoArgs(), fake_handle())
    pods = [_queued(0, 3.0), _queued(5, 2.0), _queued(5, 1.0), _queued(-1, 0.0)]
    ordered = sorted(pods, key=lambda q: sum(plugin.less(other, q) for other in pods))
    assert [(q.pod.priority, q.timestamp) for q in ordered] == [
        (5, 1.0),
        (5, 2.0),
        (0, 3.0),
        (-1, 0.0),
    ]
