"""The text format of /metrics as client_golang writes it (prometheus/common expfmt
text_create.go, client_golang registry Gather), and the labels kubesched gives informer
events and sampled plugin durations.
"""

from __future__ import annotations

import math

import pytest

pytest.importorskip("prometheus_client", reason="needs the kube extra (prometheus_client)")

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from kubesched.api import Pod
from kubesched.cluster import WatchEvent
from kubesched.framework import CycleState
from kubesched.run import SchedulerMetrics, exponential_buckets, exposition, go_float
from kubesched.run._metrics import _pod_event_label
from kubesched.testing import make_pod


@pytest.mark.parametrize(
    ("value", "text"),
    [
        # strconv.FormatFloat(f, 'g', -1, 64), with writeFloat's special cases
        (1.0, "1"),
        (0.0, "0"),
        (-1.0, "-1"),
        (2.0, "2"),
        (0.25, "0.25"),
        (16.384, "16.384"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (0.000015, "1.5e-05"),
        (100000.0, "100000"),
        (999999.0, "999999"),
        (1000000.0, "1e+06"),
        (1234567.0, "1.234567e+06"),
        (120037376.0, "1.20037376e+08"),
        (2.0**64 - 1, "1.8446744073709552e+19"),
        (-0.5, "-0.5"),
        (-1234567.0, "-1.234567e+06"),
        (1.5000000000000002e-05, "1.5000000000000002e-05"),
        (math.inf, "+Inf"),
        (-math.inf, "-Inf"),
        (math.nan, "NaN"),
    ],
)
def test_go_float(value: float, text: str) -> None:
    assert go_float(value) == text


def test_exponential_buckets_multiply_step_by_step_as_go_does() -> None:
    # metrics.go ExponentialBuckets(0.00001, 1.5, 20): the floats Go computes
    buckets = exponential_buckets(0.00001, 1.5, 20)
    assert buckets[1] == 1.5000000000000002e-05
    assert buckets[6] == 0.00011390625000000003
    assert buckets[6] != 0.00001 * 1.5**6
    assert exponential_buckets(0.001, 2, 15)[-1] == 16.384


def test_exposition_orders_and_writes_families_as_client_golang() -> None:
    registry = CollectorRegistry()
    hist = Histogram("b_seconds", "Histo.", ["zone", "app"], buckets=[0.5, 1], registry=registry)
    hist.labels("z2", "x").observe(0.7)
    hist.labels("z1", "y").observe(2)
    counter = Counter("a_events", "Help with \\ and\nnewline.", ["code"], registry=registry)
    counter.labels('say "hi"\n').inc(3)
    Gauge("c_empty", "Never set.", ["l"], registry=registry)  # a vector without series
    text = exposition(registry).decode()
    assert text == (
        "# HELP a_events_total Help with \\\\ and\\nnewline.\n"
        "# TYPE a_events_total counter\n"
        'a_events_total{code="say \\"hi\\"\\n"} 3\n'
        "# HELP b_seconds Histo.\n"
        "# TYPE b_seconds histogram\n"
        # series by label values (app sorts before zone), `le` last, then _sum, _count
        'b_seconds_bucket{app="x",zone="z2",le="0.5"} 0\n'
        'b_seconds_bucket{app="x",zone="z2",le="1"} 1\n'
        'b_seconds_bucket{app="x",zone="z2",le="+Inf"} 1\n'
        'b_seconds_sum{app="x",zone="z2"} 0.7\n'
        'b_seconds_count{app="x",zone="z2"} 1\n'
        'b_seconds_bucket{app="y",zone="z1",le="0.5"} 0\n'
        'b_seconds_bucket{app="y",zone="z1",le="1"} 0\n'
        'b_seconds_bucket{app="y",zone="z1",le="+Inf"} 1\n'
        'b_seconds_sum{app="y",zone="z1"} 2\n'
        'b_seconds_count{app="y",zone="z1"} 1\n'
    )


def test_scheduler_metrics_have_no_created_series_and_print_integers() -> None:
    metrics = SchedulerMetrics()
    metrics.kubesched_attempt_failed(
        pod=make_pod("p").obj(), profile="prof", code="Error", message=""
    )
    text = exposition(metrics.registry).decode()
    assert "_created" not in text
    assert 'scheduler_schedule_attempts_total{profile="prof",result="error"} 1\n' in text
    assert "scheduler_preemption_attempts_total 0\n" in text


def _pod(node: str = "", scheduler: str = "default-scheduler", phase: str = "") -> Pod:
    pod = make_pod("p").obj()
    spec = pod.spec.model_copy(update={"node_name": node, "scheduler_name": scheduler})
    status = pod.status.model_copy(update={"phase": phase or pod.status.phase})
    return pod.model_copy(update={"spec": spec, "status": status})


@pytest.mark.parametrize(
    ("kind", "old", "new", "label"),
    [
        # eventhandlers.go: the cache's handlers for assigned pods, the queue's for
        # unassigned pods of our profiles, none for other schedulers' pending pods
        ("ADDED", None, _pod(node="n1"), "AssignedPodAdd"),
        ("ADDED", None, _pod(), "UnscheduledPodAdd"),
        ("ADDED", None, _pod(scheduler="other"), None),
        ("ADDED", None, _pod(node="n1", phase="Succeeded"), None),
        ("MODIFIED", _pod(), _pod(node="n1"), "AssignedPodAdd"),
        ("MODIFIED", _pod(node="n1"), _pod(node="n1"), "AssignedPodUpdate"),
        ("MODIFIED", _pod(), _pod(), "UnscheduledPodUpdate"),
        ("MODIFIED", _pod(scheduler="other"), _pod(scheduler="other"), None),
        ("MODIFIED", _pod(node="n1"), _pod(node="n1", phase="Failed"), "AssignedPodDelete"),
        ("DELETED", None, _pod(node="n1"), "AssignedPodDelete"),
        ("DELETED", None, _pod(), "UnscheduledPodDelete"),
        ("DELETED", None, _pod(scheduler="other"), None),
    ],
)
def test_pod_events_are_labelled_by_the_handler_upstream_runs(
    kind: str, old: Pod | None, new: Pod, label: str | None
) -> None:
    event = WatchEvent(kind, "Pod", new, old)  # type: ignore[arg-type]
    assert _pod_event_label(event, lambda p: p.spec.scheduler_name == "default-scheduler") == label


def test_plugin_durations_are_sampled_once_per_cycle_at_ten_percent() -> None:
    plugins = SchedulerMetrics().plugins
    plugins.rng.seed(7)
    states = [CycleState() for _ in range(2000)]
    for state in states:
        plugins.sample(state)
        plugins.sample(state)  # a second PreFilter run in the cycle does not redraw
    sampled = [s for s in states if s.read("kubesched.run/record-plugin-metrics")]
    assert 150 < len(sampled) < 250  # 10 % of 2000, give or take
    clone = sampled[0].clone()  # the binding cycle and dry runs follow the cycle
    plugins.sample(clone)
    assert clone.read("kubesched.run/record-plugin-metrics") is True
