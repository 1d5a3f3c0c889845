"""Shared helpers of the `kube` backend tests: the fake server (on the test's loop, or in a
thread of its own for `kubesched run` processes), a cluster on it, `kubesched run`
replicas in-process and as processes, ready Nodes, waiting, and in-test plugins."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from kubesched.api import KindRegistry, Pod, Taint, find_untolerated_taint
from kubesched.clock import WallClock
from kubesched.cluster.kube import InformerSettings, KubeCluster, KubeLeaseLock, Transport
from kubesched.cluster.memory import default_kinds
from kubesched.config import ResolvedConfig, parse_config, resolve
from kubesched.framework import (
    ActionType,
    BindPlugin,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EnqueueExtensions,
    EventResource,
    FilterPlugin,
    NodeInfo,
    PermitPlugin,
    Plugin,
    QueuedPodInfo,
    QueueSortPlugin,
    ReservePlugin,
    Status,
)
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.scheduler import Scheduler, new_scheduler
from kubesched.testing.apiserver import FakeApiServer, Raw, make_node_ready

if TYPE_CHECKING:
    from kubesched.run import Runner

T = TypeVar("T")

FAST = InformerSettings(backoff_initial=0.01, backoff_max=0.05)
"""Client-go's algorithm with millisecond backoffs, so failure paths run quickly."""


def run(scenario: Callable[[], Coroutine[Any, Any, T]], timeout: float = 30.0) -> T:
    """Run one async scenario on a fresh loop, bounded so a hang fails instead of blocking."""

    async def bounded() -> T:
        return await asyncio.wait_for(scenario(), timeout)

    return asyncio.run(bounded())


async def eventually(check: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Wait until `check()` holds (the outcome is asserted, not the time it took)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        if loop.time() > deadline:
            raise AssertionError(f"never happened: {what}")
        await asyncio.sleep(0.005)


@asynccontextmanager
async def fake_server() -> AsyncIterator[FakeApiServer]:
    server = FakeApiServer()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


class ServerThread:
    """A FakeApiServer on its own event loop in a thread, for a `kubesched run` started as
    a process of its own: the test's thread reads and changes the server through `call`,
    on the server's loop (its dicts and watch queues are that loop's alone)."""

    def __init__(self) -> None:
        self.server = FakeApiServer()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> ServerThread:
        self._thread.start()
        self._run(self.server.start())
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._run(self.server.stop())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            self._loop.close()

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(30)

    def call(self, fn: Callable[[FakeApiServer], T]) -> T:
        """`fn(server)` on the server's loop; its result."""

        async def on_loop() -> T:
            return fn(self.server)

        return self._run(on_loop())

    @property
    def url(self) -> str:
        return self.server.url


_RUN = "from kubesched.cli import main; main()"
"""`kubesched run` as its console script runs it (kubesched.cli:main)."""


class RunProcesses:
    """`kubesched run` processes (the real command) against the server at `url` with the
    KubeSchedulerConfiguration `config`, each with `--identity` and its output in
    `<directory>/<identity>.log`; those still running at the end of the block are killed."""

    def __init__(self, directory: Path, url: str, config: str) -> None:
        self.directory = directory
        self._kubeconfig = kubeconfig(directory / "kubeconfig", url)
        self._config = directory / "config.yaml"
        self._config.write_text(config, encoding="utf-8")
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def __enter__(self) -> RunProcesses:
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait(30)

    def start(self, identity: str) -> subprocess.Popen[bytes]:
        args = ["run", "--kubeconfig", self._kubeconfig, "--config", str(self._config)]
        args += ["--port", "0", "--identity", identity]
        with (self.directory / f"{identity}.log").open("wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-c", _RUN, *args], stdout=log, stderr=subprocess.STDOUT
            )
        self.procs[identity] = proc
        return proc

    def log(self, identity: str) -> str:
        return (self.directory / f"{identity}.log").read_text(errors="replace")

    def logs(self) -> str:
        """The end of every process's output, for a failure's message."""
        return "\n".join(f"--- {who} ---\n{self.log(who)[-4000:]}" for who in self.procs)

    def until(self, check: Callable[[], bool], what: str, timeout: float) -> None:
        """Poll `check` from the test's thread (the outcome is asserted, not the time)."""
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError(f"never happened: {what}\n{self.logs()}")
            time.sleep(0.01)


def add_ready_node(server: FakeApiServer, raw: Raw) -> list[Raw]:
    """Create a Node (the API server taints it not-ready) and make it ready as its kubelet
    and the node lifecycle controller would: the envtest harness's `create_node` on the fake
    server. Returns the objects written, one watch event each (ADDED, then MODIFIED)."""
    created = server.add("v1/nodes", raw)
    return [created, *make_node_ready(server.patch_path, created["metadata"]["name"])]


def kubeconfig(path: Path, url: str) -> str:
    """Write a kubeconfig for the fake server at `url` to `path`; its path."""
    path.write_text(
        f"""apiVersion: v1
kind: Config
clusters: [{{name: fake, cluster: {{server: "{url}"}}}}]
users: [{{name: u, user: {{token: t}}}}]
contexts: [{{name: c, context: {{cluster: fake, user: u}}}}]
current-context: c
""",
        encoding="utf-8",
    )
    return str(path)


@asynccontextmanager
async def cluster_on(
    server: FakeApiServer,
    kinds: KindRegistry | None = None,
    settings: InformerSettings = FAST,
) -> AsyncIterator[KubeCluster]:
    cluster = KubeCluster(
        Transport.for_host(server.url),
        kinds or default_kinds(),
        settings=settings,
        seed=1,
    )
    try:
        yield cluster
    finally:
        await cluster.close()


# -- in-test plugins (core's tests cannot rely on kubesched-builtin being installed) ------
class Sort(QueueSortPlugin):
    name = "KubeTestSort"

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        pa, pb = a.pod.priority, b.pod.priority
        return pa > pb or (pa == pb and a.timestamp < b.timestamp)


class CpuFit(FilterPlugin, EnqueueExtensions):
    """Rejects nodes without room for the pod's CPU request (NodeResourcesFit's message),
    and is interested in the events NodeResourcesFit registers (v1.34, queueing hints on):
    a pod deleted or scaled down, a node added or with more allocatable."""

    name = "KubeTestCpuFit"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        want = sum(c.resources.requests.get("cpu", 0) for c in pod.spec.containers) * 1000
        if node_info.requested.milli_cpu + want > node_info.allocatable.milli_cpu:
            return Status.unschedulable("Insufficient cpu")
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        pods = ActionType.Delete | ActionType.UpdatePodScaleDown
        nodes = ActionType.Add | ActionType.UpdateNodeAllocatable
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.Pod, pods)),
            ClusterEventWithHint(ClusterEvent(EventResource.Node, nodes)),
        ]


def _do_not_schedule(taint: Taint) -> bool:
    return taint.effect in ("NoSchedule", "NoExecute")


class NoScheduleTaints(FilterPlugin, EnqueueExtensions):
    """TaintToleration's Filter: a node with a NoSchedule or NoExecute taint the pod does not
    tolerate is rejected with v1.34's reason, so a node left not-ready never gets a pod; and
    TaintToleration's events: a node added or with changed taints, the pod's tolerations."""

    name = "KubeTestTaints"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        taints = node_info.node.spec.taints if node_info.node is not None else []
        if find_untolerated_taint(taints, pod.spec.tolerations, _do_not_schedule) is None:
            return None
        return Status(Code.UnschedulableAndUnresolvable, "node(s) had untolerated taint(s)")

    def events_to_register(self) -> list[ClusterEventWithHint]:
        nodes = ActionType.Add | ActionType.UpdateNodeTaint
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.Node, nodes)),
            ClusterEventWithHint(ClusterEvent(EventResource.Pod, ActionType.UpdatePodToleration)),
        ]


class Binder(BindPlugin):
    """DefaultBinder's behaviour: the cluster's pods/binding, any failure an Error."""

    name = "KubeTestBinder"

    async def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        try:
            await self.handle.cluster.bind(pod, node_name)
        except Exception as exc:
            return Status.as_error(exc)
        return None


class Recorder(ReservePlugin):
    """Records reserve/unreserve calls by pod name (class-level, reset per test)."""

    name = "KubeTestRecorder"
    calls: ClassVar[list[tuple[str, str, str]]] = []

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        Recorder.calls.append(("reserve", pod.metadata.name, node_name))
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        Recorder.calls.append(("unreserve", pod.metadata.name, node_name))


class HoldAtPermit(PermitPlugin):
    """Pods labelled hold=yes wait at Permit for an hour."""

    name = "KubeTestHold"

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        if pod.metadata.labels.get("hold") == "yes":
            return Status(Code.Wait), 3600.0
        return None, 0.0


PLUGINS: list[type[Plugin]] = [Sort, CpuFit, NoScheduleTaints, Binder, Recorder, HoldAtPermit]


def resolved_config(
    extra: dict[str, Any] | None = None,
    *,
    with_plugins: Sequence[type[Plugin]] = PLUGINS,
    **profile: Any,
) -> ResolvedConfig:
    """One profile `default-scheduler` with the in-test plugins (or `with_plugins`), plus
    `extra` top-level fields (leaderElection ...)."""
    prof: dict[str, Any] = {
        "schedulerName": "default-scheduler",
        "plugins": {"multiPoint": {"enabled": [{"name": p.name} for p in with_plugins]}},
    }
    prof.update(profile)
    cfg: dict[str, Any] = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [prof],
    }
    cfg.update(extra or {})
    registry = PluginRegistry.of(*with_plugins)
    return resolve(parse_config(cfg), registry)


def plugin_classes() -> dict[str, type[Plugin]]:
    return {p.name: p for p in PLUGINS}


def replica(
    server: FakeApiServer,
    identity: str,
    *,
    port: int | None = None,
    config: ResolvedConfig | None = None,
    plugins: Mapping[str, type[Plugin]] | None = None,
    shutdown_grace_period: float = 5.0,
) -> Runner:
    """A `kubesched run` replica in this process with short leader-election times (lease
    1 s, renew 0.5 s, retry 0.2 s) on the Lease kube-system/kubesched, its requests sent
    as `kubesched-test/<identity>` (the server's record tells the replicas apart). Its
    configuration: `config` and `plugins`, else the in-test plugins' profile."""
    from kubesched.run import LeaderElector, Runner  # the kube extra's prometheus_client

    transport = Transport.for_host(server.url, user_agent=f"kubesched-test/{identity}")
    cluster = KubeCluster(transport, default_kinds(), settings=FAST)
    lock = KubeLeaseLock(transport, "kube-system", "kubesched", identity)
    elector = LeaderElector(
        lock, lease_duration=1.0, renew_deadline=0.5, retry_period=0.2, clock=WallClock()
    )
    return Runner(
        cluster,
        config or resolved_config(),
        plugins or plugin_classes(),
        elector=elector,
        hooks=make_plugin_manager(load_entrypoints=False),
        port=port,
        shutdown_grace_period=shutdown_grace_period,
    )


@asynccontextmanager
async def scheduling(
    server: FakeApiServer, *, retry_sleep: float | None = None
) -> AsyncIterator[tuple[KubeCluster, Scheduler]]:
    """The Scheduler with the in-test plugins on a cluster on `server`, running until the
    block ends (then drained, its events flushed). `retry_sleep` shortens the 10 s between
    tries of an event write."""
    Recorder.calls = []
    async with cluster_on(server) as cluster:
        sched = new_scheduler(
            cluster, resolved_config(), plugin_classes(), clock=WallClock(), seed=1
        )
        if retry_sleep is not None:
            sched.recorder.sleep_duration = retry_sleep
        sched.start_watching()
        task = asyncio.get_running_loop().create_task(sched.run())
        try:
            yield cluster, sched
        finally:
            sched.stop()
            await sched.drain()
            await asyncio.gather(task, return_exceptions=True)
            await sched.recorder.shutdown()
