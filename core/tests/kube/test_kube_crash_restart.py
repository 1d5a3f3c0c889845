"""`kubesched run` killed with SIGKILL while it binds, and a new process that picks up where
the cluster is (issue 18).

The real command, as a process of its own, against the fake API server (in a thread of the
test) through a kubeconfig, leader election on with short times. The first process is
killed after some of 300 bindings landed; a second one must wait until the dead leader's
Lease expires (client-go leaderelection.go: a follower takes a Lease only once its record
has not changed for leaseDuration), then bind the rest. Its informers list the pods the
first one bound as assigned (they go to its cache, never to its queue: upstream
eventhandlers.go addAllEventHandlers), so no pod gets a second binding: the API server
would answer one with 409 `pod X is already assigned to node "Y"` (storage.go
setPodNodeAndMetadata), which counts as a double-bind attempt here as much as a bind.

Needs the `kube` extra and kubesched-builtin (the default profile): skipped without them.
"""

from __future__ import annotations

import signal
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")
pytest.importorskip("prometheus_client", reason="needs the kube extra (prometheus_client)")
pytest.importorskip("kubesched_builtin", reason="the default profile needs kubesched-builtin")

from kube_helpers import RunProcesses, ServerThread, add_ready_node

from kubesched.api import milli_value
from kubesched.testing.apiserver import FakeApiServer, Raw, Recorded, node_raw, pod_raw

LEASE_DURATION = 2.0
CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {qps: 200, burst: 10}
leaderElection: {leaderElect: true, leaseDuration: 2s, renewDeadline: 1s, retryPeriod: 250ms}
"""
LEASE_PATH = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler"
PODS = 300
KILL_AFTER = 60
"""Bindings landed before the SIGKILL."""
SMALL = 5
"""Nodes n0..n4 hold 2 cpu and 8 pods (they fill up: placements matter); the other 15,
8 cpu and 110 pods."""
NODES = 20
CPU = ["100m", "200m", "300m", "500m"]
"""Pod requests in turn: 82.5 cpu in all, of 130."""


def populate(server: FakeApiServer) -> None:
    for n in range(NODES):
        small = n < SMALL
        add_ready_node(
            server, node_raw(f"n{n}", cpu="2" if small else "8", pods="8" if small else "110")
        )
    for n in range(PODS):
        server.add("v1/pods", pod_raw(f"p{n}", cpu=CPU[n % len(CPU)]))


def pods(server: FakeApiServer) -> list[Raw]:
    return list(server.objects.get("v1/pods", {}).values())


def bound_count(server: FakeApiServer) -> int:
    return sum(1 for p in pods(server) if p["spec"].get("nodeName"))


def lease_writes(requests: list[Recorded], identity: str) -> list[Recorded]:
    """The Lease creates and updates naming `identity` as the holder, in arrival order."""
    return [
        r
        for r in requests
        if r.method in ("POST", "PUT")
        and r.path.startswith(LEASE_PATH.rsplit("/", 1)[0])
        and isinstance(r.body, dict)
        and r.body.get("spec", {}).get("holderIdentity") == identity
    ]


def test_a_process_killed_mid_run_is_replaced_without_a_double_bind_or_a_lost_pod(
    tmp_path: Path,
) -> None:
    with ServerThread() as threaded, RunProcesses(tmp_path, threaded.url, CONFIG) as procs:
        threaded.call(populate)
        first = procs.start("a")
        procs.until(lambda: threaded.call(bound_count) >= KILL_AFTER, "a binds", 60)
        first.send_signal(signal.SIGKILL)
        assert first.wait(30) == -signal.SIGKILL
        at_kill = threaded.call(bound_count)
        assert at_kill < PODS, "a bound every pod before it was killed"

        second = procs.start("b")
        procs.until(lambda: threaded.call(bound_count) == PODS, "b binds the rest", 60)
        second.send_signal(signal.SIGTERM)
        assert second.wait(30) == 0, procs.logs()
        requests = threaded.call(lambda s: list(s.requests))
        final = threaded.call(pods)
        nodes = threaded.call(lambda s: list(s.objects["v1/nodes"].values()))

    # every pod bound by exactly one POST: none twice, none answered 409 by the server
    posts = Counter(r.path.split("/")[-2] for r in requests if r.path.endswith("/binding"))
    assert posts == Counter({f"p{n}": 1 for n in range(PODS)})
    assert all(p["spec"].get("nodeName") for p in final)

    # b took the Lease only once a's last renewal was leaseDuration old, then bound the rest
    last_a = lease_writes(requests, "a")[-1]
    first_b = lease_writes(requests, "b")[0]
    assert first_b.method == "PUT"
    assert first_b.at - last_a.at >= LEASE_DURATION
    assert first_b.body["spec"]["leaseTransitions"] == 1
    # (a binding a sent just before it died may still land after at_kill was read)
    from_a = [r for r in requests if r.path.endswith("/binding") and r.at < first_b.at]
    assert KILL_AFTER <= len(from_a) < PODS

    # no node over its allocatable cpu or pods
    cpu: Counter[str] = Counter()
    count: Counter[str] = Counter()
    for pod in final:
        node = pod["spec"]["nodeName"]
        (container,) = pod["spec"]["containers"]
        cpu[node] += milli_value(container["resources"]["requests"]["cpu"])
        count[node] += 1
    for node in nodes:
        name, allocatable = node["metadata"]["name"], node["status"]["allocatable"]
        assert cpu[name] <= milli_value(allocatable["cpu"]), name
        assert count[name] <= int(allocatable["pods"]), name
    assert {count[f"n{n}"] for n in range(SMALL)} != {0}, "the small nodes were never used"
