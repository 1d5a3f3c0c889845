"""A pod held by scheduling gates on the `kube` backend: the API server gave it
`PodScheduled=False` reason `SchedulingGated` on create, and kubesched writes nothing to it
(a PreEnqueue rejection is not a scheduling failure: upstream records no condition and no
event), so the PreEnqueue message never reaches the pod.

Needs the `kube` extra: skipped without it.
"""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import PLUGINS, add_ready_node, cluster_on, eventually, fake_server, run

from kubesched.api import SCHEDULING_GATED_MESSAGE, Pod
from kubesched.clock import WallClock
from kubesched.config import ResolvedConfig, parse_config, resolve
from kubesched.framework import PreEnqueuePlugin, Status
from kubesched.runtime import PluginRegistry
from kubesched.scheduler import new_scheduler
from kubesched.testing.apiserver import FakeApiServer, Raw, node_raw, pod_raw


class Gates(PreEnqueuePlugin):
    """The SchedulingGates plugin's rule and message (core's tests cannot import builtin)."""

    name = "KubeTestGates"

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not pod.spec.scheduling_gates:
            return None
        names = " ".join(g.name for g in pod.spec.scheduling_gates)
        return Status.unresolvable(f"waiting for scheduling gates: [{names}]")


def _config() -> tuple[ResolvedConfig, dict[str, type]]:
    plugins = [*PLUGINS, Gates]
    registry = PluginRegistry.of(*plugins)
    cfg = parse_config(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [
                {
                    "schedulerName": "default-scheduler",
                    "plugins": {"multiPoint": {"enabled": [{"name": p.name} for p in plugins]}},
                }
            ],
        }
    )
    return resolve(cfg, registry), {p.name: p for p in plugins}


def _pod(server: FakeApiServer, name: str) -> Raw:
    pod = server.get("v1/pods", f"default/{name}")
    assert pod is not None
    return pod


def _bound(server: FakeApiServer, name: str) -> bool:
    return bool(_pod(server, name)["spec"].get("nodeName"))


def test_kubesched_never_writes_to_a_gated_pod() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1", cpu="4"))
            gated = pod_raw("gated", cpu="1")
            gated["spec"]["schedulingGates"] = [{"name": "example.com/wait"}]
            server.add("v1/pods", gated)
            server.add("v1/pods", pod_raw("free", cpu="1"))
            config, classes = _config()
            async with cluster_on(server) as cluster:
                sched = new_scheduler(cluster, config, classes, clock=WallClock(), seed=1)
                sched.start_watching()
                task = asyncio.get_running_loop().create_task(sched.run())
                try:
                    await eventually(lambda: _bound(server, "free"), "free bound")
                finally:
                    sched.stop()
                    await sched.drain()
                    await asyncio.gather(task, return_exceptions=True)
            assert server.requests_to("PATCH", "/pods/gated") == []
            assert server.requests_to("POST", "/pods/gated/binding") == []
            assert not _bound(server, "gated")
            conditions = _pod(server, "gated")["status"]["conditions"]
            assert [(c["type"], c["status"], c["reason"], c["message"]) for c in conditions] == [
                ("PodScheduled", "False", "SchedulingGated", SCHEDULING_GATED_MESSAGE)
            ]
            events = server.objects.get("events.k8s.io/v1/events", {}).values()
            assert [e for e in events if e["regarding"]["name"] == "gated"] == []

    run(scenario)
