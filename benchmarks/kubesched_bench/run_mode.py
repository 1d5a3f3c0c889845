"""`benchmarks/run.py --mode run`: `kubesched run` against an API server, measured.

What the issue compares with the Go kube-scheduler: a backlog of pending pods on ready
nodes, drained by the real `kubesched run` code path (`build_runner`: informers, pods/binding
POSTs, status patches, events; leader election off, no endpoints), until every pod is bound.

The API server lives in a process of its own (`_api_server_process`), so this process is
the scheduler alone, as kube-scheduler is measured: its CPU time, its peak RSS. It is
either the fake API server of `kubesched.testing.apiserver` (default), or a real
kube-apiserver + etcd from ``$KUBEBUILDER_ASSETS`` (`--apiserver envtest`), both filled the
same way: the workload's namespaces and setup objects, its nodes made ready as a kubelet and
the node lifecycle controller would, its init pods already bound to the nodes in turn, and
its measured pods pending.

Measured from just before `build_runner` (configuration, plugins, connection) until the last
pods/binding answer: pods/s over that whole time (start-up included) and from the first bind
to the last (the drain), time to first bind, time to the informers' sync, peak RSS of this
process, and the requests sent, by verb and kind, counted client-side (both servers alike).
At the end the server's pods are checked: every measured pod bound, no node holding more
pods or CPU than it allows.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import multiprocessing
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from kubesched.api import milli_value
from kubesched.cluster.memory import default_kinds
from kubesched_bench.errors import BenchmarkError
from kubesched_bench.spec import Size, Workload
from kubesched_bench.workloads import get_workload

if TYPE_CHECKING:  # the kube extra is imported only when a run starts
    from kubesched.cluster.kube import Transport

__all__ = [
    "APISERVERS",
    "RunModeResult",
    "add_run_arguments",
    "format_run_row",
    "main_run",
    "render_run",
    "run_kubesched",
]

APISERVERS = ("fake", "envtest")

Raw = dict[str, Any]


@dataclass
class RunModeResult:
    """One `kubesched run` drain of a backlog; times in seconds from the start."""

    workload: str
    size: str
    apiserver: str
    qps: float
    pods: int
    pods_per_second: float
    """Measured pods / time from the start to the last bind (start-up included)."""
    drain_pods_per_second: float
    """(Measured pods - 1) / time from the first bind to the last."""
    first_bind: float
    synced: float
    """When the informers had listed and every handler had the cached objects."""
    last_bind: float
    cpu_ms_per_pod: float
    apiserver_cpu_ms_per_pod: float | None
    """The fake API server's CPU time per pod over the same run (None for envtest): when
    it nears this process's, the server's speed shows in pods/s."""
    """This process's CPU time from the start to the last bind, per measured pod: steadier
    than pods/s on a shared machine."""
    peak_rss_mib: float
    load_average: float | None
    requests: dict[str, int] = field(default_factory=dict)
    """Requests sent, by `VERB resource` (`POST pods/binding`, `GET pods (watch)` ...)."""

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True)


# -- the API server's process -------------------------------------------------------------
def _resource_of(info: Any) -> str:
    return f"{info.api_version}/{info.plural}"


def _objects(workload: Workload) -> tuple[list[Raw], list[Raw], list[Raw], list[Raw]]:
    """Raw objects: namespaces and setup objects, nodes, init pods (bound), measured pods."""
    namespaces = sorted({p.metadata.namespace or "default" for p in workload.init_pods})
    namespaces += sorted({p.metadata.namespace or "default" for p in workload.pods})
    setup: list[Raw] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}
        for ns in dict.fromkeys(namespaces)
        if ns not in ("default", "kube-system")
    ]
    setup += [obj.to_dict() for obj in [*workload.setup, *workload.measured_setup]]
    nodes = [n.to_dict() for n in workload.nodes]
    for raw in nodes:  # a kubelet reports both
        status = raw.setdefault("status", {})
        status["allocatable"] = status.get("allocatable") or dict(status.get("capacity") or {})
    names = [n.metadata.name for n in workload.nodes]
    init = []
    for i, pod in enumerate(workload.init_pods):
        raw = pod.to_dict()
        raw.pop("status", None)
        if names:
            raw["spec"]["nodeName"] = names[i % len(names)]
        init.append(raw)
    pods = []
    for pod in workload.pods:
        raw = pod.to_dict()
        raw.pop("status", None)
        pods.append(raw)
    return setup, nodes, init, pods


def _check(nodes: Iterable[Raw], pods: Iterable[Raw], measured: set[str]) -> list[str]:
    """What is wrong with the placements: measured pods unbound, nodes over-committed."""
    problems: list[str] = []
    capacity = {
        n["metadata"]["name"]: (
            milli_value((n.get("status") or {}).get("allocatable", {}).get("cpu", "0")),
            int((n.get("status") or {}).get("allocatable", {}).get("pods", "0")),
        )
        for n in nodes
    }
    used: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    bound = 0
    for pod in pods:
        meta, spec = pod["metadata"], pod.get("spec") or {}
        key = f"{meta.get('namespace')}/{meta['name']}"
        node = spec.get("nodeName")
        if not node:
            continue
        bound += key in measured
        cpu = sum(
            milli_value(((c.get("resources") or {}).get("requests") or {}).get("cpu", "0"))
            for c in spec.get("containers") or []
        )
        used[node][0] += cpu
        used[node][1] += 1
    if bound != len(measured):
        problems.append(f"{len(measured) - bound} of {len(measured)} measured pods unbound")
    for node, (cpu, count) in sorted(used.items()):
        allowed_cpu, allowed_pods = capacity.get(node, (0, 0))
        if cpu > allowed_cpu or count > allowed_pods:
            problems.append(f"node {node} over-committed: {cpu}m cpu, {count} pods")
    return problems


class _Fake:
    """The fake API server, filled without HTTP (store writes, admission included)."""

    def __init__(self) -> None:
        from kubesched.testing.apiserver import FakeApiServer

        self.server = FakeApiServer()
        self.kinds = default_kinds()

    async def start(self) -> str:
        return await self.server.start()

    def fill(self, setup: list[Raw], nodes: list[Raw], init: list[Raw], pods: list[Raw]) -> None:
        from kubesched.testing.apiserver import make_node_ready

        for raw in setup:
            info = self.kinds.by_kind(raw["kind"])
            if info is not None:
                self.server.add(_resource_of(info), raw)
        for raw in nodes:
            self.server.add("v1/nodes", raw)
            make_node_ready(self.server.patch_path, raw["metadata"]["name"])
        for raw in [*init, *pods]:
            self.server.add("v1/pods", raw)
        self.server.requests.clear()
        self.server.history.clear()  # nobody watches from before now; saves memory

    def listing(self) -> tuple[list[Raw], list[Raw]]:
        return list(self.server.all_of("v1/nodes")), list(self.server.all_of("v1/pods"))

    async def stop(self) -> None:
        await self.server.stop()


class _Envtest:
    """etcd + kube-apiserver from $KUBEBUILDER_ASSETS, filled through its API."""

    def __init__(self, workdir: Path) -> None:
        from kubesched.testing.apiserver import Envtest, assets

        binaries = assets()
        if binaries is None:
            raise BenchmarkError(
                "--apiserver envtest needs KUBEBUILDER_ASSETS (etcd, kube-apiserver)"
            )
        self.env = Envtest(binaries, workdir)
        self.kinds = default_kinds()

    async def start(self) -> str:
        await asyncio.to_thread(self.env.start)
        return self.env.url

    def fill(self, setup: list[Raw], nodes: list[Raw], init: list[Raw], pods: list[Raw]) -> None:
        from concurrent.futures import ThreadPoolExecutor

        from kubesched.cluster.kube import collection_path
        from kubesched.testing.apiserver import make_node_ready

        env = self.env
        for raw in setup:
            info = self.kinds.by_kind(raw["kind"])
            if info is not None:
                env.ok("POST", collection_path(info, raw["metadata"].get("namespace")), raw)

        def node(raw: Raw) -> None:  # envtest's create_node, with the workload's node
            env.ok("POST", "/api/v1/nodes", raw)

            def patch(path: str, body: Raw) -> Raw:
                answer: Raw = env.ok(
                    "PATCH", path, body, content_type="application/strategic-merge-patch+json"
                )
                return answer

            make_node_ready(patch, raw["metadata"]["name"])

        def pod(raw: Raw) -> None:
            env.ok("POST", f"/api/v1/namespaces/{raw['metadata']['namespace']}/pods", raw)

        with ThreadPoolExecutor(16) as pool:
            list(pool.map(node, nodes))
            list(pool.map(pod, [*init, *pods]))

    def listing(self) -> tuple[list[Raw], list[Raw]]:
        nodes = self.env.ok("GET", "/api/v1/nodes")["items"]
        pods = self.env.ok("GET", "/api/v1/pods")["items"]
        return nodes, pods

    async def stop(self) -> None:
        await asyncio.to_thread(self.env.stop)


def _api_server_process(conn: Connection, kind: str, workload: str, size: Size, seed: int) -> None:
    """The child: build the workload, start and fill the server, send its URL, answer
    `check` with the placement problems, end on `stop`."""

    async def main() -> None:
        wl = get_workload(workload).build(size, seed)
        setup, nodes, init, pods = _objects(wl)
        measured = {p.key for p in wl.pods}
        del wl
        with tempfile.TemporaryDirectory(prefix="kubesched-bench-") as workdir:
            server: _Fake | _Envtest = _Fake() if kind == "fake" else _Envtest(Path(workdir))
            url = await server.start()
            try:
                await asyncio.to_thread(server.fill, setup, nodes, init, pods)
                del setup, nodes, init, pods
                token = ""
                if isinstance(server, _Envtest):
                    from kubesched.testing.apiserver import ADMIN_TOKEN

                    token = ADMIN_TOKEN
                conn.send(("ready", url, token))
                cpu = time.process_time()
                while True:
                    message = await asyncio.to_thread(conn.recv)
                    if message == "check":
                        # the fake server's own CPU time (envtest's is in other processes)
                        served = time.process_time() - cpu if isinstance(server, _Fake) else None
                        node_list, pod_list = await asyncio.to_thread(server.listing)
                        conn.send((_check(node_list, pod_list, measured), served))
                    else:
                        return
            finally:
                await server.stop()

    try:
        asyncio.run(main())
    except BaseException as exc:  # the parent reports it
        conn.send(("failed", f"{type(exc).__name__}: {exc}", ""))


@contextmanager
def _api_server(
    kind: str, workload: str, size: Size, seed: int
) -> Iterator[tuple[str, str, Connection]]:
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(
        target=_api_server_process, args=(child, kind, workload, size, seed), daemon=True
    )
    process.start()
    try:
        status, url, token = parent.recv()
        if status != "ready":
            raise BenchmarkError(f"the {kind} API server did not start: {url}")
        yield url, token, parent
    finally:
        with suppress(OSError):
            parent.send("stop")
        process.join(60)
        if process.is_alive():
            process.terminate()
            process.join()


# -- this process: kubesched run ----------------------------------------------------------
def _config(path: Path, qps: float, document: Any) -> None:
    config: dict[str, Any] = dict(document or {})
    config.setdefault("apiVersion", "kubescheduler.config.k8s.io/v1")
    config.setdefault("kind", "KubeSchedulerConfiguration")
    config["leaderElection"] = {"leaderElect": False}
    config["clientConnection"] = {"qps": qps, "burst": int(qps)}
    path.write_text(yaml.safe_dump(config), encoding="utf-8")


def _kubeconfig(path: Path, url: str, token: str) -> None:
    user = {"token": token} if token else {}
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [
                    {"name": "c", "cluster": {"server": url, "insecure-skip-tls-verify": True}}
                ],
                "users": [{"name": "u", "user": user}],
                "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "c",
            }
        ),
        encoding="utf-8",
    )


def _count_requests(transport: Transport, counts: collections.Counter[str]) -> None:
    """Count `transport`'s requests by verb and resource (the benchmark's own wrapper)."""

    def what(path: str) -> str:
        parts = [p for p in path.split("/") if p]
        if "namespaces" in parts[:4] and len(parts) > parts.index("namespaces") + 2:
            rest = parts[parts.index("namespaces") + 2 :]
        else:
            rest = parts[2:] if parts[0] == "api" else parts[3:]
        sub = f"/{rest[2]}" if len(rest) > 2 else ""
        return f"{rest[0]}{sub}" if rest else path

    def counting(send: Callable[..., Any]) -> Callable[..., Any]:
        async def counted(method: str, path: str, **kwargs: Any) -> Any:
            counts[f"{method} {what(path)}"] += 1
            return await send(method, path, **kwargs)

        return counted

    stream = transport.stream

    def streamed(path: str, **kwargs: Any) -> Any:
        counts[f"WATCH {what(path)}"] += 1
        return stream(path, **kwargs)

    transport.request = counting(transport.request)  # type: ignore[method-assign]
    transport.request_raw = counting(transport.request_raw)  # type: ignore[method-assign]
    transport.stream = streamed  # type: ignore[method-assign]


async def _drain(
    kubeconfig: Path, config: Path, pods: int
) -> tuple[dict[str, float], dict[str, int]]:
    from kubesched.run import RunOptions, build_runner

    started, cpu_started = time.perf_counter(), time.process_time()
    stamps: dict[str, float] = {}
    binds: list[float] = []
    done = asyncio.get_running_loop().create_future()
    runner = await build_runner(
        RunOptions(config=str(config), kubeconfig=str(kubeconfig), leader_elect=False, port=None)
    )
    counts: collections.Counter[str] = collections.Counter()
    cluster = runner.cluster
    _count_requests(cluster.transport, counts)
    if cluster.events_transport is not cluster.transport:
        _count_requests(cluster.events_transport, counts)
    bind, wait_for_sync = cluster.bind, cluster.wait_for_sync

    async def stamped_bind(pod: Any, node_name: str) -> None:
        await bind(pod, node_name)
        binds.append(time.perf_counter())
        if len(binds) >= pods and not done.done():
            stamps["cpu"] = time.process_time() - cpu_started
            done.set_result(None)

    async def stamped_sync() -> None:
        await wait_for_sync()
        stamps.setdefault("synced", time.perf_counter())

    cluster.bind = stamped_bind  # type: ignore[method-assign]
    cluster.wait_for_sync = stamped_sync  # type: ignore[method-assign]
    running = asyncio.ensure_future(runner.run())
    try:
        await asyncio.wait({running, done}, return_when=asyncio.FIRST_COMPLETED)
        if not done.done():
            raise BenchmarkError(f"kubesched run stopped after {len(binds)} of {pods} binds")
    finally:
        runner.request_shutdown()
        await asyncio.gather(running, return_exceptions=True)
    times = {
        "first_bind": binds[0] - started,
        "last_bind": binds[pods - 1] - started,
        "synced": stamps.get("synced", started) - started,
        "cpu": stamps["cpu"],
    }
    return times, dict(sorted(counts.items()))


def run_kubesched(
    workload: str, size: Size, *, apiserver: str = "fake", qps: float = 5000.0, seed: int = 0
) -> RunModeResult:
    """Drain `size.pods` pending pods of `workload` with `kubesched run`; see the module
    docstring. BenchmarkError when a pod is left unbound or a node over-committed."""
    spec = get_workload(workload)
    spec.check_requirements()
    try:
        import aiohttp  # noqa: F401
        import kubernetes_asyncio  # noqa: F401
    except ImportError as exc:
        raise BenchmarkError(
            f"--mode run needs kubesched's kube extra ({exc.name} is missing): "
            "pip install -e './core[kube]'"
        ) from None
    if apiserver not in APISERVERS:
        raise BenchmarkError(f"--apiserver must be one of {', '.join(APISERVERS)}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    with _api_server(apiserver, workload, size, seed) as (url, token, conn):
        with tempfile.TemporaryDirectory(prefix="kubesched-run-") as folder:
            kubeconfig, config = Path(folder, "kubeconfig"), Path(folder, "config.yaml")
            _kubeconfig(kubeconfig, url, token)
            _config(config, qps, _workload_config(workload, size, seed))
            times, counts = asyncio.run(_drain(kubeconfig, config, size.pods))
        conn.send("check")
        problems, served = conn.recv()
    if problems:
        raise BenchmarkError("; ".join(problems))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    if sys.platform == "darwin":
        rss /= 1024  # bytes there
    drain = times["last_bind"] - times["first_bind"]
    return RunModeResult(
        workload=workload,
        size=size.label(),
        apiserver=apiserver,
        qps=qps,
        pods=size.pods,
        pods_per_second=size.pods / times["last_bind"],
        drain_pods_per_second=(size.pods - 1) / drain if drain > 0 else 0.0,
        first_bind=times["first_bind"],
        synced=times["synced"],
        last_bind=times["last_bind"],
        cpu_ms_per_pod=1000 * times["cpu"] / size.pods,
        apiserver_cpu_ms_per_pod=None if served is None else 1000 * served / size.pods,
        peak_rss_mib=rss,
        load_average=load,
        requests=counts,
    )


def _workload_config(workload: str, size: Size, seed: int) -> Any:
    """The workload's own KubeSchedulerConfiguration, if it brings one (tiny build)."""
    small = Size(min(size.nodes, 1), 0, 1, size.gang_size and 1)
    try:
        return get_workload(workload).build(small, seed).config
    except Exception:  # a workload that needs its full size to build: its default profile
        return None


# -- output -------------------------------------------------------------------------------
def render_run(result: RunModeResult, out: Callable[[str], None] = print) -> None:
    load = "n/a" if result.load_average is None else f"{result.load_average:.2f}"
    out(
        f"kubesched run  {result.workload} {result.size}  ({result.apiserver} API server, "
        f"client QPS {result.qps:g}, load average {load})"
    )
    out(f"  pods/s            {result.pods_per_second:8.1f}  (start to last bind)")
    out(f"  drain pods/s      {result.drain_pods_per_second:8.1f}  (first to last bind)")
    out(f"  first bind        {result.first_bind:8.2f} s  (informers synced {result.synced:.2f} s)")
    out(f"  last bind         {result.last_bind:8.2f} s")
    out(f"  CPU per pod       {result.cpu_ms_per_pod:8.2f} ms  (this process)")
    if result.apiserver_cpu_ms_per_pod is not None:
        out(f"  API server CPU    {result.apiserver_cpu_ms_per_pod:8.2f} ms per pod  (fake server)")
    out(f"  peak RSS          {result.peak_rss_mib:8.1f} MiB")
    out("  requests:")
    for what, count in result.requests.items():
        out(f"    {what:<32} {count:7d}")


def format_run_row(result: RunModeResult, date: str, note: str = "") -> str:
    """The RESULTS.md row of a run-mode result (the lead keeps the table), under

    | date | workload | size | mode | pods/s | drain pods/s | first bind | CPU ms/pod |
    peak RSS | binds/status patches/events | load | notes |
    """
    binds = result.requests.get("POST pods/binding", 0)
    patches = result.requests.get("PATCH pods/status", 0)
    events = sum(v for k, v in result.requests.items() if "events" in k)
    load = "n/a" if result.load_average is None else f"{result.load_average:.2f}"
    return (
        f"| {date} | {result.workload} | {result.size} | run ({result.apiserver}) | "
        f"{result.pods_per_second:.1f} | {result.drain_pods_per_second:.1f} | "
        f"{result.first_bind:.2f} s | {result.cpu_ms_per_pod:.2f} | "
        f"{result.peak_rss_mib:.0f} MiB | "
        f"{binds}/{patches}/{events} | {load} | {note} |"
    )


# -- benchmarks/run.py --------------------------------------------------------------------
def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """`--mode run` and its options, on benchmarks/run.py's parser."""
    parser.add_argument(
        "--mode",
        choices=("simulate", "run"),
        default="simulate",
        help="simulate: the scheduler on the memory cluster (default); run: `kubesched run` "
        "draining a backlog through an API server in another process",
    )
    parser.add_argument(
        "--apiserver",
        choices=APISERVERS,
        default="fake",
        help="run mode: the fake API server (default) or etcd + kube-apiserver from "
        "$KUBEBUILDER_ASSETS (envtest)",
    )
    parser.add_argument(
        "--qps", type=float, default=5000.0, help="run mode: clientConnection qps and burst"
    )


def main_run(args: argparse.Namespace, size: Size) -> int:
    """benchmarks/run.py --mode run: 0 all bound, 1 not, 2 bad arguments."""
    if args.record:
        print("error: --record is not supported with --mode run; the row is printed instead")
        return 2
    try:
        result = run_kubesched(
            args.workload, size, apiserver=args.apiserver, qps=args.qps, seed=args.seed
        )
    except BenchmarkError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(result.to_json())
    else:
        render_run(result)
        print(format_run_row(result, time.strftime("%Y-%m-%d"), args.note or ""))
    return 0
