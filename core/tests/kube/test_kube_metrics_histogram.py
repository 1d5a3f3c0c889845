"""The per-plugin duration histogram: many equal observations in one update, exposed as
prometheus_client's Histogram exposes the same observations one by one."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

pytest.importorskip("prometheus_client", reason="needs the kube extra (prometheus_client)")

from hypothesis import given
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Histogram

from kubesched.framework import CycleState, Status
from kubesched.run import SchedulerMetrics, exponential_buckets, exposition
from kubesched.run._metrics_histogram import HistogramVec

_BOUNDS = exponential_buckets(0.00001, 1.5, 20)
_LABELS = ["plugin", "extension_point", "status"]

# values on, just beside and between the bounds, each observed once ...
_single = st.tuples(
    st.sampled_from(["A", "B"]),
    st.one_of(
        st.sampled_from(_BOUNDS),
        st.sampled_from(_BOUNDS).map(lambda b: math.nextafter(b, math.inf)),
        st.floats(0, 0.05, allow_nan=False),
    ),
    st.just(1),
)
# ... and multiples of 2**-30 observed many times at once
_repeated = st.tuples(
    st.sampled_from(["A", "B"]),
    st.integers(0, 2**25).map(lambda k: k * 2.0**-30),
    st.integers(1, 600),
)


@given(st.lists(st.one_of(_single, _repeated), max_size=30))
def test_observing_n_times_at_once_is_exposed_as_n_observations(
    observations: list[tuple[str, float, int]],
) -> None:
    ours, theirs = CollectorRegistry(), CollectorRegistry()
    bulk = HistogramVec("d_seconds", "Durations.", _LABELS, buckets=_BOUNDS, registry=ours)
    one_by_one = Histogram("d_seconds", "Durations.", _LABELS, buckets=_BOUNDS, registry=theirs)
    for plugin, value, n in observations:
        bulk.labels(plugin, "Filter", "Success").observe(value, n)
        child = one_by_one.labels(plugin, "Filter", "Success")
        for _ in range(n):
            child.observe(value)
    # the same lines; a sum is n * value rounded once rather than n roundings
    mine, expected = exposition(ours).decode(), exposition(theirs).decode()
    assert _without_sums(mine) == _without_sums(expected)
    assert _sums(mine) == pytest.approx(_sums(expected), rel=1e-12)


def _without_sums(text: str) -> list[str]:
    return [line for line in text.splitlines() if "_sum{" not in line]


def _sums(text: str) -> dict[str, float]:
    pairs = (line.rsplit(" ", 1) for line in text.splitlines() if "_sum{" in line)
    return {series: float(value) for series, value in pairs}


def test_a_label_set_asked_for_is_exposed_at_zero_and_the_same_child_is_kept() -> None:
    registry = CollectorRegistry()
    bulk = HistogramVec("d_seconds", "Durations.", ["status"], buckets=[0.5, 1], registry=registry)
    assert bulk.labels("Success") is bulk.labels("Success")
    assert bulk.labels(7) is bulk.labels("7")  # values as str of them, as prometheus_client
    text = exposition(registry).decode()
    assert 'd_seconds_bucket{status="Success",le="+Inf"} 0\n' in text
    assert 'd_seconds_count{status="Success"} 0\n' in text
    assert text.count('d_seconds_count{status="7"} 0\n') == 1
    assert bulk._upper_bounds == [0.5, 1, math.inf]
    with pytest.raises(ValueError, match="d_seconds"):
        bulk.labels("Success", "extra")
    with pytest.raises(ValueError, match=r"Duplicated"):  # one name per registry
        HistogramVec("d_seconds", "Again.", ["status"], buckets=[1], registry=registry)


def _counts(metrics: SchedulerMetrics, plugin: str, point: str) -> dict[str, int]:
    text = exposition(metrics.registry).decode()
    prefix = "scheduler_plugin_execution_duration_seconds_count{"
    counts = {}
    for line in text.splitlines():
        if line.startswith(prefix) and f'plugin="{plugin}"' in line and point in line:
            status = line.split('status="')[1].split('"')[0]
            counts[status] = int(line.rsplit(" ", 1)[1])
    return counts


def test_a_sampled_batch_call_observes_each_node_with_its_status() -> None:
    metrics = SchedulerMetrics()
    plugins = metrics.plugins
    state = CycleState()
    plugins.sample_percent = 100
    plugins.sample(state)
    statuses = [None, Status.unschedulable("no"), None, Status.as_error("boom"), None]

    def filter_nodes(state: CycleState, pod: Any, nodes: list[str]) -> list[Status | None]:
        return statuses

    def score_nodes(state: CycleState, pod: Any, nodes: list[str]) -> tuple[list[int], None]:
        return [1] * len(nodes), None

    def filter_mask(state: CycleState, pod: Any, columns: Any, rows: Any) -> Any:
        return np.array([True, False, True])

    nodes = ["a", "b", "c", "d", "e"]
    plugins.batch_filter(filter_nodes, "F", "prof")(state, None, nodes)
    plugins.batch_score(score_nodes, "S", "prof")(state, None, nodes)
    plugins.array_filter(filter_mask, "M", "prof")(state, None, None, np.arange(3))
    assert _counts(metrics, "F", "Filter") == {"Success": 3, "Unschedulable": 1, "Error": 1}
    assert _counts(metrics, "S", "Score") == {"Success": 5}
    assert _counts(metrics, "M", "Filter") == {"Success": 2}  # the rows the mask passes
    assert plugins.evaluations == {
        ("F", "Filter", "prof"): 5,
        ("S", "Score", "prof"): 5,
        ("M", "Filter", "prof"): 2,
    }
    # not sampled: counted, not timed
    quiet = CycleState()
    plugins.sample_percent = 0
    plugins.sample(quiet)
    plugins.batch_score(score_nodes, "S", "prof")(quiet, None, nodes)
    assert _counts(metrics, "S", "Score") == {"Success": 5}
    assert plugins.evaluations[("S", "Score", "prof")] == 10
