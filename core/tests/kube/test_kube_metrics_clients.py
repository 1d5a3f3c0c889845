"""What `kubesched run` shows of its clients and configuration: client-go's rest_client
metrics per request, leader election's master status, and /configz.

Upstream: component-base metrics/prometheus/restclient (client-go tools/metrics),
clientgo/leaderelection with client-go's leaderelection.go, component-base configz and
cmd/kube-scheduler/app/server.go.
"""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")
pytest.importorskip("prometheus_client", reason="needs the kube extra (prometheus_client)")

from kube_helpers import FAST, add_ready_node, eventually, fake_server, run
from kube_metrics_helpers import metrics_runner, parse, scrape

from kubesched import ConflictError
from kubesched.cluster.kube import ApiError, KubeCluster, RateLimiter, Transport
from kubesched.cluster.memory import default_kinds
from kubesched.run import SchedulerMetrics, exposition
from kubesched.testing.apiserver import node_raw, pod_raw

LEASE = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubesched"
LEADER = "leader_election_master_status"


def test_rest_client_metrics_count_binding_posts_by_code() -> None:
    async def scenario() -> tuple[str, SchedulerMetrics]:
        metrics = SchedulerMetrics()
        Transport.observe_requests(metrics.rest)  # this task and the informers it starts
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1"))
            for name in ("a", "b"):
                server.add("v1/pods", pod_raw(name))
            transport = Transport.for_host(server.url, rate_limiter=RateLimiter(1000.0, 1000))
            cluster = KubeCluster(transport, default_kinds(), settings=FAST)
            try:
                cluster.watch("Pod", lambda ev: None)
                await cluster.wait_for_sync()
                server.fail("POST", "/api/v1/namespaces/default/pods/b/binding", 409, "Conflict")
                await cluster.bind(cluster.get("Pod", "a", "default"), "n1")
                with pytest.raises(ConflictError):
                    await cluster.bind(cluster.get("Pod", "b", "default"), "n1")
            finally:
                await cluster.close()
            nobody = Transport.for_host("http://127.0.0.1:9")
            with pytest.raises(ApiError):
                await nobody.request("GET", "/api/v1/nodes")
            await nobody.close()
            return server.url.removeprefix("http://"), metrics

    host, metrics = run(scenario)
    requests = parse(exposition(metrics.registry).decode())["rest_client_requests_total"]
    assert requests.value(requests.name, code="201", method="POST", host=host) == 1
    assert requests.value(requests.name, code="409", method="POST", host=host) == 1
    # no answer at all: client-go's updateURLMetrics says "<error>"
    assert requests.value(requests.name, code="<error>", method="GET", host="127.0.0.1:9") == 1
    families = parse(exposition(metrics.registry).decode())
    latency = families["rest_client_request_duration_seconds"]
    assert latency.value(latency.name + "_count", verb="POST", host=host) == 2
    limiter = families["rest_client_rate_limiter_duration_seconds"]
    assert limiter.value(limiter.name + "_count", verb="POST", host=host) == 2


def test_master_status_is_1_for_the_leader_0_for_a_standby_and_after_losing() -> None:
    async def scenario() -> tuple[float, float, float]:
        async with fake_server() as server:
            loop = asyncio.get_running_loop()
            a = metrics_runner(server, "a")
            b = metrics_runner(server, "b")
            running_a = loop.create_task(a.run())
            await eventually(lambda: a.leading, "a leads")
            running_b = loop.create_task(b.run())
            await asyncio.sleep(0.3)  # b tries, and finds the Lease held
            leader = parse((await scrape(a))[2])[LEADER].value(LEADER, name="kube-scheduler")
            standby = parse((await scrape(b))[2])[LEADER].value(LEADER, name="kube-scheduler")
            server.fail("PUT", LEASE, 500, "InternalError", "etcd is down", times=10_000)
            assert await asyncio.wait_for(running_a, 10) == 1
            lost = parse(exposition(a.metrics.registry).decode())[LEADER]
            b.request_shutdown()
            await running_b
            return leader, standby, lost.value(LEADER, name="kube-scheduler")

    assert run(scenario) == (1, 0, 0)


def test_configz_serves_the_internal_configuration_as_kube_scheduler() -> None:
    async def scenario() -> tuple[int, dict[str, str], str]:
        async with fake_server() as server:
            runner = metrics_runner(server, percentageOfNodesToScore=70)
            running = asyncio.get_running_loop().create_task(runner.run())
            await eventually(lambda: runner.leading, "leads")
            answer = await scrape(runner, "/configz")
            runner.request_shutdown()
            assert await running == 0
            return answer

    status, headers, body = run(scenario)
    assert status == 200
    assert headers["Content-Type"] == "application/json"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert ": " not in body and ", " not in body  # compact, as encoding/json writes it
    assert '"QPS":50,' in body  # a float32 50 is written `50`
    config = json.loads(body)
    assert list(config) == ["componentconfig"]
    cc = config["componentconfig"]
    # the internal type's Go field names, in declaration order; TypeMeta keeps its tags
    # and only apiVersion is set (cmd/kube-scheduler/app/options/configfile.go)
    assert list(cc) == [
        "apiVersion", "Parallelism", "LeaderElection", "ClientConnection", "EnableProfiling",
        "EnableContentionProfiling", "PercentageOfNodesToScore", "PodInitialBackoffSeconds",
        "PodMaxBackoffSeconds", "Profiles", "Extenders", "DelayCacheUntilActive",
    ]  # fmt: skip
    assert cc["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    assert cc["PercentageOfNodesToScore"] == 70
    assert cc["LeaderElection"] == {
        "LeaderElect": True,
        "LeaseDuration": "15s",
        "RenewDeadline": "10s",
        "RetryPeriod": "2s",
        "ResourceLock": "leases",
        "ResourceName": "kube-scheduler",
        "ResourceNamespace": "kube-system",
    }
    assert cc["Extenders"] is None
    (profile,) = cc["Profiles"]
    assert list(profile) == ["SchedulerName", "PercentageOfNodesToScore", "Plugins", "PluginConfig"]
    assert profile["SchedulerName"] == "default-scheduler"
    assert profile["PercentageOfNodesToScore"] is None
    plugins = profile["Plugins"]
    assert list(plugins) == [
        "PreEnqueue", "QueueSort", "PreFilter", "Filter", "PostFilter", "PreScore", "Score",
        "Reserve", "Permit", "PreBind", "Bind", "PostBind", "MultiPoint",
    ]  # fmt: skip
    # mergePlugins: the profile's multiPoint as given, no point expanded
    assert [p["Name"] for p in plugins["MultiPoint"]["Enabled"]] == [
        "KubeTestSort", "KubeTestCpuFit", "KubeTestTaints", "KubeTestBinder", "KubeTestRecorder",
        "KubeTestHold",
    ]  # fmt: skip
    assert plugins["Filter"] == {"Enabled": None, "Disabled": None}
    assert profile["PluginConfig"] is None  # none of these plugins takes arguments


def test_configz_plugin_config_lists_defaults_by_name_with_go_field_names() -> None:
    pytest.importorskip("kubesched_builtin", reason="the default profile's plugins")
    from kubesched.config import parse_config, resolve
    from kubesched.run import componentconfig
    from kubesched.runtime import PluginRegistry

    registry = PluginRegistry.discover()
    cfg = parse_config(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [
                {
                    "schedulerName": "default-scheduler",
                    "plugins": {"score": {"disabled": [{"name": "ImageLocality"}]}},
                    "pluginConfig": [
                        {"name": "NodeResourcesFit", "args": {"ignoredResources": ["gpu"]}}
                    ],
                }
            ],
        }
    )
    resolved = resolve(cfg, registry)
    (profile,) = componentconfig(resolved)["Profiles"]
    # v1/defaults.go: the entries given, then the other plugins' defaults sorted by name
    names = [entry["Name"] for entry in profile["PluginConfig"]]
    assert names[0] == "NodeResourcesFit"
    assert names[1:] == sorted(names[1:])
    assert {"DefaultPreemption", "InterPodAffinity", "NodeAffinity"} <= set(names)
    fit = profile["PluginConfig"][0]["Args"]
    assert fit["IgnoredResources"] == ["gpu"]
    assert fit["IgnoredResourceGroups"] is None
    assert fit["ScoringStrategy"]["Type"] == "LeastAllocated"
    preemption = next(e for e in profile["PluginConfig"] if e["Name"] == "DefaultPreemption")
    assert preemption["Args"] == {
        "MinCandidateNodesPercentage": 10,
        "MinCandidateNodesAbsolute": 100,
    }
    score = profile["Plugins"]["Score"]
    assert score == {"Enabled": None, "Disabled": [{"Name": "ImageLocality", "Weight": 0}]}
    weights = {p["Name"]: p["Weight"] for p in profile["Plugins"]["MultiPoint"]["Enabled"]}
    assert weights["TaintToleration"] == 3 and weights["NodePorts"] == 0
