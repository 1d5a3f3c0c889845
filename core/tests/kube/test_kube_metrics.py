"""`kubesched run`'s /metrics as an operator of kube-scheduler v1.34 reads it, after a small
scheduling run against the fake API server: every family upstream shows, with its HELP text
(component-base's stability prefix included), TYPE, label names and samples; numbers as
client_golang writes them; no `_created` series.

Upstream: pkg/scheduler/metrics/metrics.go (and the v1.34 metrics reference),
component-base metrics/prometheus/restclient and clientgo/leaderelection, client_golang's
process collector.
"""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")
pytest.importorskip("prometheus_client", reason="needs the kube extra (prometheus_client)")

from kube_helpers import add_ready_node, eventually, fake_server, run
from kube_metrics_helpers import Family, metrics_runner, parse, scrape

from kubesched.run import Runner
from kubesched.testing.apiserver import FakeApiServer, node_raw, pod_raw

PROFILE = "default-scheduler"

# (name, TYPE, HELP as kube-scheduler v1.34 writes it, label names)
FAMILIES: list[tuple[str, str, str, set[str]]] = [
    (
        "scheduler_schedule_attempts_total",
        "counter",
        (
            "[STABLE] Number of attempts to schedule pods, by the result. 'unschedulable' "
            "means a pod could not be scheduled, while 'error' means an internal scheduler "
            "problem."
        ),
        {"profile", "result"},
    ),
    (
        "scheduler_scheduling_attempt_duration_seconds",
        "histogram",
        "[STABLE] Scheduling attempt latency in seconds (scheduling algorithm + binding)",
        {"profile", "result"},
    ),
    (
        "scheduler_scheduling_algorithm_duration_seconds",
        "histogram",
        "[ALPHA] Scheduling algorithm latency in seconds",
        set(),
    ),
    (
        "scheduler_pod_scheduling_attempts",
        "histogram",
        "[STABLE] Number of attempts to successfully schedule a pod.",
        set(),
    ),
    (
        "scheduler_pod_scheduling_sli_duration_seconds",
        "histogram",
        (
            "[BETA] E2e latency for a pod being scheduled, from the time the pod enters the "
            "scheduling queue and might involve multiple scheduling attempts."
        ),
        {"attempts"},
    ),
    (
        "scheduler_framework_extension_point_duration_seconds",
        "histogram",
        "[STABLE] Latency for running all plugins of a specific extension point.",
        {"extension_point", "profile", "status"},
    ),
    (
        "scheduler_plugin_execution_duration_seconds",
        "histogram",
        "[ALPHA] Duration for running a plugin at a specific extension point.",
        {"extension_point", "plugin", "status"},
    ),
    (
        "scheduler_plugin_evaluation_total",
        "counter",
        (
            "[ALPHA] Number of attempts to schedule pods by each plugin and the extension "
            "point (available only in PreFilter, Filter, PreScore, and Score)."
        ),
        {"extension_point", "plugin", "profile"},
    ),
    (
        "scheduler_permit_wait_duration_seconds",
        "histogram",
        "[ALPHA] Duration of waiting on permit.",
        {"result"},
    ),
    (
        "scheduler_preemption_attempts_total",
        "counter",
        "[STABLE] Total preemption attempts in the cluster till now",
        set(),
    ),
    (
        "scheduler_preemption_victims",
        "histogram",
        "[STABLE] Number of selected preemption victims",
        set(),
    ),
    (
        "scheduler_pending_pods",
        "gauge",
        (
            "[STABLE] Number of pending pods, by the queue type. 'active' means number of "
            "pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' "
            "means number of pods in unschedulablePods that the scheduler attempted to "
            "schedule and failed; 'gated' is the number of unschedulable pods that the "
            "scheduler never attempted to schedule because they are gated."
        ),
        {"queue"},
    ),
    (
        "scheduler_queue_incoming_pods_total",
        "counter",
        "[STABLE] Number of pods added to scheduling queues by event and queue type.",
        {"event", "queue"},
    ),
    (
        "scheduler_unschedulable_pods",
        "gauge",
        (
            "[ALPHA] The number of unschedulable pods broken down by plugin name. A pod will "
            "increment the gauge for all plugins that caused it to not schedule and so this "
            "metric have meaning only when broken down by plugin."
        ),
        {"plugin", "profile"},
    ),
    (
        "scheduler_queueing_hint_execution_duration_seconds",
        "histogram",
        "[ALPHA] Duration for running a queueing hint function of a plugin.",
        {"event", "hint", "plugin"},
    ),
    (
        "scheduler_inflight_events",
        "gauge",
        "[ALPHA] Number of events currently tracked in the scheduling queue.",
        {"event"},
    ),
    (
        "scheduler_cache_size",
        "gauge",
        "[ALPHA] Number of nodes, pods, and assumed (bound) pods in the scheduler cache.",
        {"type"},
    ),
    (
        "scheduler_event_handling_duration_seconds",
        "histogram",
        "[ALPHA] Event handling latency in seconds.",
        {"event"},
    ),
    (
        "leader_election_master_status",
        "gauge",
        (
            "[ALPHA] Gauge of if the reporting system is master of the relevant lease, 0 "
            "indicates backup, 1 indicates master. 'name' is the string used to identify the "
            "lease. Please make sure to group by name."
        ),
        {"name"},
    ),
    (
        "rest_client_requests_total",
        "counter",
        "[ALPHA] Number of HTTP requests, partitioned by status code, method, and host.",
        {"code", "host", "method"},
    ),
    (
        "rest_client_request_duration_seconds",
        "histogram",
        "[ALPHA] Request latency in seconds. Broken down by verb, and host.",
        {"host", "verb"},
    ),
    (
        "rest_client_rate_limiter_duration_seconds",
        "histogram",
        ("[ALPHA] Client side rate limiter latency in seconds. Broken down by verb, and host."),
        {"host", "verb"},
    ),
    (
        "process_cpu_seconds_total",
        "counter",
        "Total user and system CPU time spent in seconds.",
        set(),
    ),
    (
        "process_open_fds",
        "gauge",
        "Number of open file descriptors.",
        set(),
    ),
    (
        "process_max_fds",
        "gauge",
        "Maximum number of open file descriptors.",
        set(),
    ),
    (
        "process_virtual_memory_bytes",
        "gauge",
        "Virtual memory size in bytes.",
        set(),
    ),
    (
        "process_virtual_memory_max_bytes",
        "gauge",
        "Maximum amount of virtual memory available in bytes.",
        set(),
    ),
    (
        "process_resident_memory_bytes",
        "gauge",
        "Resident memory size in bytes.",
        set(),
    ),
    (
        "process_start_time_seconds",
        "gauge",
        "Start time of the process since unix epoch in seconds.",
        set(),
    ),
]


def bound_to(server: FakeApiServer, name: str) -> str:
    pod = server.get("v1/pods", f"default/{name}")
    return "" if pod is None else str(pod.get("spec", {}).get("nodeName") or "")


async def small_run(server: FakeApiServer, runner: Runner) -> dict[str, Family]:
    """`fits` binds at once; `too-big` is rejected (KubeTestCpuFit), then binds on `n2`
    when it arrives (NodeAdd, a queueing hint); `held` waits at Permit until deleted."""
    add_ready_node(server, node_raw("n1", cpu="2"))
    server.add("v1/pods", pod_raw("fits", cpu="1"))
    server.add("v1/pods", pod_raw("too-big", cpu="4"))
    held = pod_raw("held")
    held["metadata"]["labels"] = {"hold": "yes"}
    server.add("v1/pods", held)
    running = asyncio.get_running_loop().create_task(runner.run())
    await eventually(lambda: bound_to(server, "fits") == "n1", "fits bound")
    await eventually(
        lambda: bool(server.requests_to("PATCH", "/pods/too-big/status")), "too-big rejected"
    )
    await eventually(lambda: runner.scheduler.waiting_pod_count() == 1, "held waits")
    add_ready_node(server, node_raw("n2", cpu="8"))
    await eventually(lambda: bound_to(server, "too-big") == "n2", "too-big bound")
    server.remove("v1/pods", "default/held")
    await eventually(lambda: runner.scheduler.waiting_pod_count() == 0, "held rejected")
    await eventually(lambda: runner.scheduler.cache.assumed_pod_count() == 0, "binds confirmed")
    status, headers, text = await scrape(runner)
    assert status == 200
    # promhttp's answer (expfmt.Negotiate: text 0.0.4 with the name escaping scheme)
    content_type = "text/plain; version=0.0.4; charset=utf-8; escaping=underscores"
    assert headers["Content-Type"] == content_type
    runner.request_shutdown()
    assert await running == 0
    assert "_created" not in text
    return parse(text)


def test_every_upstream_family_is_served_with_its_help_type_and_labels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # no early pops from backoff: too-big's attempts are decided by the events alone
    monkeypatch.setenv("KUBESCHED_FEATURE_GATES", "SchedulerPopFromBackoffQ=false")

    async def scenario() -> dict[str, Family]:
        async with fake_server() as server:
            return await small_run(server, metrics_runner(server))

    families = run(scenario)
    for name, kind, help_text, labels in FAMILIES:
        assert name in families, name
        family = families[name]
        assert (family.type, family.help) == (kind, help_text), name
        assert family.samples, name
        assert family.label_names() == labels, name


def test_a_small_run_is_counted_where_upstream_counts_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBESCHED_FEATURE_GATES", "SchedulerPopFromBackoffQ=false")

    async def scenario() -> tuple[dict[str, Family], str]:
        async with fake_server() as server:
            families = await small_run(server, metrics_runner(server))
            return families, server.url.removeprefix("http://")

    families, host = run(scenario)
    attempts = families["scheduler_schedule_attempts_total"]
    assert attempts.value(attempts.name, result="scheduled", profile=PROFILE) == 2
    # too-big once; held when its wait at Permit was cut short
    assert attempts.value(attempts.name, result="unschedulable", profile=PROFILE) == 2
    tries = families["scheduler_pod_scheduling_attempts"]
    assert tries.value("scheduler_pod_scheduling_attempts_count") == 2
    assert tries.value("scheduler_pod_scheduling_attempts_sum") == 1 + 2
    sli = families["scheduler_pod_scheduling_sli_duration_seconds"]
    assert sli.value(sli.name + "_count", attempts="1") == 1
    assert sli.value(sli.name + "_count", attempts="2") == 1
    algorithm = families["scheduler_scheduling_algorithm_duration_seconds"]
    assert algorithm.value(algorithm.name + "_count") == 3  # fits, held, too-big on n2
    incoming = families["scheduler_queue_incoming_pods_total"]
    assert incoming.value(incoming.name, queue="active", event="UnscheduledPodAdd") == 3
    assert incoming.value(incoming.name, queue="unschedulable", event="ScheduleAttemptFailure") == 1
    moved = [s for s in incoming.samples if s.labels["event"] == "NodeAdd"]
    assert [s.number for s in moved] == [1]
    hints = families["scheduler_queueing_hint_execution_duration_seconds"]
    hint = hints.value(hints.name + "_count", plugin="KubeTestCpuFit", event="NodeAdd")
    assert hint >= 1
    stuck = families["scheduler_unschedulable_pods"]
    assert stuck.value(stuck.name, plugin="KubeTestCpuFit", profile=PROFILE) == 0
    evaluations = families["scheduler_plugin_evaluation_total"]
    filters = evaluations.value(
        evaluations.name, plugin="KubeTestCpuFit", extension_point="Filter", profile=PROFILE
    )
    assert filters >= 4  # n1 for fits, held, too-big; n1 and n2 for too-big's retry
    plugin_time = families["scheduler_plugin_execution_duration_seconds"]
    for plugin, point, status in [
        ("KubeTestCpuFit", "Filter", "Success"),
        ("KubeTestCpuFit", "Filter", "Unschedulable"),
        ("KubeTestRecorder", "Reserve", "Success"),
        ("KubeTestRecorder", "Unreserve", "Success"),
        ("KubeTestHold", "Permit", "Wait"),
        ("KubeTestBinder", "Bind", "Success"),
    ]:
        sample = plugin_time.name + "_count"
        assert plugin_time.value(sample, plugin=plugin, extension_point=point, status=status) >= 1
    permit = families["scheduler_permit_wait_duration_seconds"]
    assert permit.value(permit.name + "_count", result="Unschedulable") == 1
    cache = families["scheduler_cache_size"]
    assert cache.value(cache.name, type="nodes") == 2
    assert cache.value(cache.name, type="pods") == 2
    assert cache.value(cache.name, type="assumed_pods") == 0
    events = families["scheduler_event_handling_duration_seconds"]
    seen = {s.labels["event"] for s in events.samples}
    assert {
        "NodeAdd",
        "NodeUpdate",
        "UnscheduledPodAdd",
        "AssignedPodAdd",
        "UnscheduledPodDelete",
    } <= seen
    inflight = families["scheduler_inflight_events"]
    assert inflight.value(inflight.name, event="PodPopped") == 0
    assert (
        families["leader_election_master_status"].value(
            "leader_election_master_status", name="kube-scheduler"
        )
        == 1
    )
    requests = families["rest_client_requests_total"]
    assert requests.value(requests.name, code="201", method="POST", host=host) >= 3
    assert {s.labels["host"] for s in requests.samples} == {host}
    limiter = families["rest_client_rate_limiter_duration_seconds"]
    assert limiter.value(limiter.name + "_count", verb="POST", host=host) >= 3


def test_numbers_are_written_as_client_golang_writes_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBESCHED_FEATURE_GATES", "SchedulerPopFromBackoffQ=false")

    async def scenario() -> dict[str, Family]:
        async with fake_server() as server:
            return await small_run(server, metrics_runner(server))

    families = run(scenario)
    for family in families.values():
        for sample in family.samples:
            assert not sample.value.endswith(".0"), (sample.name, sample.value)
            bound = sample.labels.get("le")
            assert bound is None or not bound.endswith(".0"), (sample.name, bound)
    victims = families["scheduler_preemption_victims"]
    assert [s.labels["le"] for s in victims.samples if s.name.endswith("_bucket")] == [
        "1", "2", "4", "8", "16", "32", "64", "+Inf",
    ]  # fmt: skip
    assert victims.value("scheduler_preemption_victims_count") == 0
    # ExponentialBuckets(0.00001, 1.5, 20) multiplies step by step: Go's floats, as Go
    # prints them (a kube-scheduler scrape shows le="1.5000000000000002e-05")
    plugin_time = families["scheduler_plugin_execution_duration_seconds"]
    bounds = [s.labels["le"] for s in plugin_time.samples if s.name.endswith("_bucket")][:21]
    assert bounds[:3] == ["1e-05", "1.5000000000000002e-05", "2.2500000000000005e-05"]
    assert bounds[6] == "0.00011390625000000003"
    assert bounds[19:] == ["0.02216837820053101", "+Inf"]


def test_a_preemption_is_counted_with_its_victims() -> None:
    pytest.importorskip("kubesched_builtin", reason="DefaultPreemption")
    from kube_helpers import PLUGINS, Binder, CpuFit, Sort

    from kubesched.config import parse_config, resolve
    from kubesched.runtime import PluginRegistry
    from kubesched_builtin.defaultpreemption import DefaultPreemption

    registry = PluginRegistry.of(*PLUGINS, DefaultPreemption)
    names = [Sort.name, CpuFit.name, Binder.name, DefaultPreemption.name]
    cfg = parse_config(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [
                {
                    "schedulerName": PROFILE,
                    "plugins": {"multiPoint": {"enabled": [{"name": n} for n in names]}},
                }
            ],
        }
    )
    resolved = resolve(cfg, registry)

    async def scenario() -> dict[str, Family]:
        async with fake_server() as server:
            server.add(
                "scheduling.k8s.io/v1/priorityclasses",
                {"metadata": {"name": "high"}, "value": 1000},
            )
            add_ready_node(server, node_raw("n1", cpu="2"))
            server.add("v1/pods", pod_raw("low", cpu="2"))
            runner = metrics_runner(server, config=resolved, plugins=registry.plugins)
            running = asyncio.get_running_loop().create_task(runner.run())
            await eventually(lambda: bound_to(server, "low") == "n1", "low bound")
            high = pod_raw("high", cpu="2")
            high["spec"]["priorityClassName"] = "high"
            server.add("v1/pods", high)
            await eventually(
                lambda: bool(server.requests_to("DELETE", "/pods/low")), "low preempted"
            )
            families = parse((await scrape(runner))[2])
            runner.request_shutdown()
            assert await running == 0
            return families

    families = run(scenario)
    attempts = families["scheduler_preemption_attempts_total"]
    assert attempts.value(attempts.name) >= 1  # each DefaultPreemption PostFilter call
    victims = families["scheduler_preemption_victims"]
    assert victims.value(victims.name + "_count") == 1
    assert victims.value(victims.name + "_sum") == 1
    assert victims.value(victims.name + "_bucket", le="1") == 1
