"""`kubesched run` against a real etcd and kube-apiserver (the envtest convention).

Set KUBEBUILDER_ASSETS to a folder holding `etcd` and `kube-apiserver` (for instance
`export KUBEBUILDER_ASSETS=$(setup-envtest use -p path 1.34.x)`); without it these tests are
skipped. They apply examples/deploy's RBAC and configuration, run `kubesched run` as the
example's ServiceAccount (so its ClusterRole is tested too), create Nodes (made ready as a
kubelet and the node lifecycle controller would: `kubesched.testing.apiserver.create_node`) and Pods
through the API, and check bindings, PodScheduled conditions, events.k8s.io/v1 Events, a
watch cut and resumed, and leader failover between two instances. See
examples/deploy/README.md.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.skipif(
    not os.environ.get("KUBEBUILDER_ASSETS"),
    reason="needs etcd and kube-apiserver binaries: set KUBEBUILDER_ASSETS (envtest convention)",
)

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import FAST, eventually, run  # noqa: E402

from kubesched.cluster import WatchEvent  # noqa: E402
from kubesched.cluster.kube import KubeCluster, Transport  # noqa: E402
from kubesched.cluster.memory import default_kinds  # noqa: E402
from kubesched.testing.apiserver import (  # noqa: E402
    ADMIN_TOKEN,
    KUBESCHED_TOKEN,
    Envtest,
    apply,
    assets,
    create_node,
    pod_raw,
)

DEPLOY = Path(__file__).resolve().parents[3] / "examples" / "deploy"
SCHEDULER = "kubesched"
LEASE = "/apis/coordination.k8s.io/v1/namespaces/kubesched/leases/kubesched"


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Envtest]:
    binaries = assets()
    if binaries is None:
        pytest.fail(
            f"KUBEBUILDER_ASSETS={os.environ['KUBEBUILDER_ASSETS']} lacks etcd or kube-apiserver"
        )
    control_plane = Envtest(binaries, tmp_path_factory.mktemp("envtest"))
    control_plane.start()
    try:
        docs = [
            d
            for f in ("rbac.yaml", "config.yaml")
            for d in yaml.safe_load_all((DEPLOY / f).read_text())
            if d
        ]
        apply(control_plane, docs)
        yield control_plane
    finally:
        control_plane.stop()


def scheduler_config(tmp: Path, **election: str) -> Path:
    """The example's configuration, with leader-election times shortened for tests."""
    config_map = yaml.safe_load((DEPLOY / "config.yaml").read_text())
    config = yaml.safe_load(config_map["data"]["kubesched-config.yaml"])
    config["leaderElection"].update(election)
    path = tmp / "kubesched-config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def start_kubesched(
    env: Envtest, tmp: Path, identity: str, config: Path
) -> subprocess.Popen[bytes]:
    kubeconfig = env.kubeconfig(tmp / f"kubeconfig-{identity}", KUBESCHED_TOKEN)
    argv = [
        sys.executable, "-c", "from kubesched.cli import main; main()",
        "run", "--kubeconfig", str(kubeconfig), "--config", str(config),
        "--port", "0", "--identity", identity, "--log-level", "debug",
    ]  # fmt: skip
    log = (tmp / f"kubesched-{identity}.log").open("wb")
    return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)


def wait_for(check: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.1)


def version_of(obj: dict[str, Any]) -> int:
    return int(obj["metadata"]["resourceVersion"])


def pod(env: Envtest, namespace: str, name: str) -> dict[str, Any]:
    answer: dict[str, Any] = env.ok("GET", f"/api/v1/namespaces/{namespace}/pods/{name}")
    return answer


def node_of(env: Envtest, namespace: str, name: str) -> str:
    return str(pod(env, namespace, name)["spec"].get("nodeName") or "")


def lease_holder(env: Envtest) -> str:
    status, lease = env.request("GET", LEASE)
    return str(lease["spec"].get("holderIdentity") or "") if status == 200 else ""


def create_pod(
    env: Envtest, namespace: str, name: str, cpu: str, scheduler: str = SCHEDULER
) -> None:
    raw = pod_raw(name, namespace=namespace, cpu=cpu, scheduler=scheduler)
    env.ok("POST", f"/api/v1/namespaces/{namespace}/pods", raw)


def create_namespace(env: Envtest, name: str) -> None:
    env.ok(
        "POST",
        "/api/v1/namespaces",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
    )


def cleanup(env: Envtest, nodes: list[str], namespace: str) -> None:
    for name in nodes:
        env.request("DELETE", f"/api/v1/nodes/{name}")
    pods = env.ok("GET", f"/api/v1/namespaces/{namespace}/pods")
    for item in pods.get("items", []):
        name = item["metadata"]["name"]
        env.request("DELETE", f"/api/v1/namespaces/{namespace}/pods/{name}?gracePeriodSeconds=0")


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> int:
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        return proc.wait(45)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


def test_binds_pods_and_records_conditions_and_events(env: Envtest, tmp_path: Path) -> None:
    pytest.importorskip(
        "kubesched_builtin", reason="the profile's default plugins need kubesched-builtin"
    )
    ns = "envtest-basic"
    create_namespace(env, ns)
    create_node(env, "basic-n1", cpu="2")
    create_pod(env, ns, "fits", cpu="1")
    create_pod(env, ns, "too-big", cpu="16")
    create_pod(env, ns, "not-ours", cpu="1", scheduler="someone-else")
    proc = start_kubesched(env, tmp_path, "solo", scheduler_config(tmp_path))
    try:
        wait_for(lambda: node_of(env, ns, "fits") == "basic-n1", "fits bound")
        create_pod(env, ns, "later", cpu="1")  # arrives through the watch
        wait_for(lambda: node_of(env, ns, "later") == "basic-n1", "later bound")

        def condition() -> dict[str, Any] | None:
            conds = pod(env, ns, "too-big").get("status", {}).get("conditions", [])
            return next((c for c in conds if c["type"] == "PodScheduled"), None)

        wait_for(lambda: condition() is not None, "too-big has a PodScheduled condition")
        cond = condition()
        assert cond is not None
        assert (cond["status"], cond["reason"]) == ("False", "Unschedulable")
        assert "Insufficient cpu" in cond["message"]

        def events() -> list[dict[str, Any]]:
            listed = env.ok("GET", f"/apis/events.k8s.io/v1/namespaces/{ns}/events")
            return list(listed.get("items", []))

        wait_for(lambda: len(events()) >= 3, "events recorded")
        by_pod = {(e["regarding"]["name"], e["reason"]): e for e in events()}
        scheduled = by_pod[("fits", "Scheduled")]
        assert scheduled["note"] == f"Successfully assigned {ns}/fits to basic-n1"
        assert scheduled["reportingController"] == "default-scheduler"
        assert scheduled["type"] == "Normal"
        failed = by_pod[("too-big", "FailedScheduling")]
        assert failed["type"] == "Warning" and "Insufficient cpu" in failed["note"]
        assert node_of(env, ns, "not-ours") == ""
        assert not any(name == "not-ours" for name, _ in by_pod)
        assert lease_holder(env) == "solo"
    finally:
        code = stop(proc)
        cleanup(env, ["basic-n1"], ns)
    assert code == 0, (tmp_path / "kubesched-solo.log").read_text()[-4000:]
    assert lease_holder(env) == ""  # released on SIGTERM


class TcpProxy:
    """A loopback TCP proxy whose connections can be cut, to break watches for real."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.accepting = True
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = 0

    async def start(self) -> None:
        server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self.accepting:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.transport.abort()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def cut(self) -> None:
        for writer in self._writers:
            writer.transport.abort()
        self._writers.clear()


def test_a_cut_watch_resumes_from_its_resource_version(env: Envtest, tmp_path: Path) -> None:
    """What the API server sends a resumed watch: every event after the resourceVersion it
    resumes from, in order, each under the resourceVersion of its own write: a new Node's
    ADDED (tainted not-ready), a MODIFIED for its status write and one for its taint patch,
    then the other Node's DELETED. The informer does not list again."""

    async def scenario() -> None:
        proxy = TcpProxy(env.port)
        await proxy.start()
        kubeconfig = env.kubeconfig(tmp_path / "kubeconfig-proxy", ADMIN_TOKEN)
        text = kubeconfig.read_text().replace(f"127.0.0.1:{env.port}", f"127.0.0.1:{proxy.port}")
        kubeconfig.write_text(text)
        w1 = create_node(env, "watch-w1", cpu="1")
        cluster = KubeCluster(
            await Transport.from_kubeconfig(str(kubeconfig)), default_kinds(), settings=FAST
        )
        try:
            seen: list[tuple[str, str, int]] = []

            def handler(ev: WatchEvent) -> None:
                if ev.obj.metadata.name.startswith("watch-"):
                    version = int(ev.obj.metadata.resource_version)
                    seen.append((ev.type, ev.obj.metadata.name, version))

            cluster.watch("Node", handler)
            await cluster.wait_for_sync()
            # the list holds the Node as its last write left it
            assert seen == [("ADDED", "watch-w1", version_of(w1[-1]))]
            informer = cluster.informers["Node"]
            await eventually(lambda: informer.watches == 1, "watching")
            # cut every connection, and change things while the client cannot reconnect
            proxy.accepting = False
            proxy.cut()
            w2 = await asyncio.to_thread(create_node, env, "watch-w2", "1")
            await asyncio.to_thread(env.ok, "DELETE", "/api/v1/nodes/watch-w1")
            proxy.accepting = True
            expected = len(w2) + 2
            await eventually(lambda: len(seen) == expected, "missed events delivered", timeout=30)
            assert seen[1:-1] == [
                (kind, "watch-w2", version_of(obj))
                for kind, obj in zip(["ADDED"] + ["MODIFIED"] * (len(w2) - 1), w2, strict=True)
            ]
            assert len(w2) == 3  # created, Ready posted, not-ready taint removed
            assert seen[-1][:2] == ("DELETED", "watch-w1")
            versions = [version for _, _, version in seen]
            assert versions == sorted(versions) and len(set(versions)) == len(versions)
            assert informer.lists == 1  # resumed from the resourceVersion, no relist
            assert informer.watches >= 2
            node = cluster.get("Node", "watch-w2")
            assert node is not None and node.spec.taints == []
        finally:
            await cluster.close()
            env.request("DELETE", "/api/v1/nodes/watch-w2")

    run(scenario, timeout=60)


def test_leader_failover_between_two_instances(env: Envtest, tmp_path: Path) -> None:
    pytest.importorskip(
        "kubesched_builtin", reason="the profile's default plugins need kubesched-builtin"
    )
    ns = "envtest-failover"
    create_namespace(env, ns)
    create_node(env, "failover-n1", cpu="8")
    config = scheduler_config(tmp_path, leaseDuration="3s", renewDeadline="2s", retryPeriod="500ms")
    a = start_kubesched(env, tmp_path, "replica-a", config)
    b: subprocess.Popen[bytes] | None = None
    try:
        wait_for(lambda: lease_holder(env) == "replica-a", "replica-a leads")
        b = start_kubesched(env, tmp_path, "replica-b", config)
        create_pod(env, ns, "one", cpu="1")
        wait_for(lambda: node_of(env, ns, "one") == "failover-n1", "one bound")
        time.sleep(2.0)  # several of b's attempts: it must stay passive
        assert lease_holder(env) == "replica-a" and b.poll() is None

        a.kill()  # a crash: the Lease is not released and must expire
        a.wait(15)
        wait_for(lambda: lease_holder(env) == "replica-b", "replica-b takes over", timeout=20)
        create_pod(env, ns, "two", cpu="1")
        wait_for(lambda: node_of(env, ns, "two") == "failover-n1", "two bound by replica-b")
        status, lease = env.request("GET", LEASE)
        assert status == 200 and lease["spec"]["leaseTransitions"] >= 1
    finally:
        stop(a, signal.SIGKILL)
        code = stop(b) if b is not None else None
        cleanup(env, ["failover-n1"], ns)
    assert code == 0, (tmp_path / "kubesched-replica-b.log").read_text()[-4000:]
    assert lease_holder(env) == ""
