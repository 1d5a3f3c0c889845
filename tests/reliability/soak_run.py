"""A soak of `kubesched run` against the fake API server, on the wall clock (issue 18).

Pods are created at `--rate` pods/s until `--pods` were made, each deleted `--lifetime`
seconds after its creation, while faults fire at random on the server: 409, 429 and 500
answers to pods/binding, 500 to a pod's status patch and to Event writes, and every open
watch cut (the connection aborted) or expired (410, a relist) now and then. The scheduler
is the real runner (`build_runner`, the code `kubesched run` runs: the configuration's
leader election, the events broadcaster, metrics and endpoints). Every `--sample` seconds
a line: the pods alive and bound on the server, the scheduler's queue, cache, report
records, the runner's event backlog, its resident memory. Then the driver stops creating,
deleting and faulting, and the end is checked: every pod alive bound once (no pod ever
bound twice), the cache = the server's bound pods, nothing assumed, the queue empty, no
node over its allocatable, the Lease held throughout by the one leader (no transition),
a Scheduled Event for every bind (none dropped), and the sizes flat (memory after the
warm-up within a bound; queue, cache and records at the pods alive, not growing with the
pods processed). Exits 1 when a check fails.

    .tox/integration/bin/python tests/reliability/soak_run.py --pods 50000 --rate 60

(`test_soak_run.py` runs a short one in tox; docs/reliability.md has the figures.)

The API server and the driver run in a process of their own, the runner in this one, as
`benchmarks/run.py --mode run` does: the resident memory sampled is the scheduler's alone
(the fake server keeps its watch history and every Event it was sent), the two share the
machine's cores as kube-scheduler and kube-apiserver would, and the runner's queue, cache,
report and event backlog are read directly, not through a metrics scrape. The driver
creates and deletes pods through the server's store (its admission and write semantics,
without HTTP): a bound pod's delete is graceful (its `terminationGracePeriodSeconds`, 0 to
2 s) and the driver, as its kubelet, removes it once the period is over. The server's watch
history is compacted as etcd's is: a watch from before the kept window is answered 410.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import heapq
import multiprocessing
import random
import resource
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).parent))

from soak import _rss

from kubesched.api import milli_value
from kubesched.scheduler._broadcaster import FINISH_TIME
from kubesched.testing.apiserver import (
    ApiStatusError,
    FakeApiServer,
    Target,
    make_node_ready,
    node_raw,
    pod_raw,
)

Raw = dict[str, Any]

NAMESPACE = "default"
EVENTS = "events.k8s.io/v1/events"
LEASES = "coordination.k8s.io/v1/leases"
IDENTITY = "soak-leader"
HISTORY_KEPT = 20_000
"""Watch events the server keeps (its watch cache and etcd's compaction); older watches 410."""

FAULT_KINDS = ("bind409", "bind429", "bind500", "status500", "event500", "watchCut", "watch410")


@dataclass
class Params:
    """What a soak runs: sizes, rates, faults, and the runner's configuration."""

    pods: int = 50_000
    nodes: int = 50
    rate: float = 60.0
    """Pods created per second."""
    lifetime: float = 60.0
    """Seconds from a pod's creation to its delete."""
    fault_rate: float = 0.02
    """The share of pods whose binding fails once (409, 429, 500, or 500 and its status
    patch too), and of pods after whose creation the next Event write fails (500)."""
    watch_fault_every: float = 60.0
    """Mean seconds between watch faults (every open watch cut, or expired, in turn)."""
    seed: int = 0
    sample: float = 30.0
    """Seconds between samples."""
    warmup: float | None = None
    """Seconds before the memory baseline; default: two of the broadcaster's 6-minute
    series checks (it keeps every Event that long for aggregation, 6 to 12 minutes, as
    client-go's eventCache) and two lifetimes, whichever is longer."""
    qps: float = 50.0
    """clientConnection qps (burst twice that), upstream's defaults."""
    lease: tuple[str, str, str] = ("15s", "10s", "2s")
    """leaseDuration, renewDeadline, retryPeriod: upstream's defaults."""
    event_retry: float | None = None
    """Seconds between tries of an Event write; None: the broadcaster's (10 s, upstream)."""
    settle: float = 120.0
    """Seconds the end waits for the scheduler to catch up before checking."""

    @property
    def warmup_seconds(self) -> float:
        if self.warmup is not None:
            return self.warmup
        return max(2 * FINISH_TIME + self.sample, 2 * self.lifetime)


@dataclass
class Sample:
    at: float
    """Seconds since the driver started."""
    created: int
    alive: int
    bound: int
    active: int
    backoff: int
    unschedulable: int
    cached: int
    assumed: int
    records: int
    event_backlog: int
    event_cache: int
    """Events the broadcaster keeps for aggregation (6 minutes of them)."""
    rss_mb: float
    leading: bool
    loop_lag: float
    """The longest the runner's event loop was late to wake a 0.1 s sleep since the last
    sample (every task waits that long: the Lease renewal too)."""


@dataclass
class Summary:
    seconds: float
    created: int
    deleted: int
    binds: int
    faults: dict[str, int]
    scheduled_events: int
    scheduled_refused: int
    """Scheduled Events a fault refused (500): dropped, as upstream drops them."""
    events_written: int
    events_dropped: int
    lease_renewals: int
    lease_transitions: int
    max_renewal_gap: float
    peak_rss_mb: float
    first_rss_mb: float
    """Resident memory at the first sample after the warm-up."""
    last_rss_mb: float
    max_queue: int
    max_event_backlog: int
    max_loop_lag: float
    exit_code: int | None
    problems: list[str] = field(default_factory=list)


# -- the API server's process ---------------------------------------------------------------
class SoakApiServer(FakeApiServer):
    """The fake API server with the soak's faults and bookkeeping: answers the writes the
    driver armed with an error (a pod's binding, its status patch, the next Event), as the
    API server's storage failing would (the faults live here, not in the server's own fault
    list: the refused Event's reason is known); counts binds, Events and Lease renewals;
    compacts its watch history."""

    def __init__(self) -> None:
        super().__init__()
        self.armed_binds: dict[str, str] = {}
        """Pods whose next binding fails, with the fault's kind."""
        self.armed_status: set[str] = set()
        self.armed_events = 0
        """Event creates to fail."""
        self.fired: collections.Counter[str] = collections.Counter()
        self.binds: collections.Counter[str] = collections.Counter()
        self.double_binds: list[str] = []
        self.event_reasons: collections.Counter[str] = collections.Counter()
        self.scheduled_uids: set[str] = set()
        self.refused_scheduled: set[str] = set()
        """Pods whose Scheduled Event a fault refused."""
        self.renewals: list[float] = []
        self.max_gap = 0.0

    def bind(self, namespace: str, name: str, body: Raw) -> Raw:
        kind = self.armed_binds.pop(name, None)
        if kind is not None:
            self.fired[kind] += 1
            code, reason = _FAULT_ANSWERS[kind]
            raise ApiStatusError(code, reason, f"injected: {reason}")
        try:
            pod: Raw = super().bind(namespace, name, body)
        except ApiStatusError as exc:
            if "already assigned" in exc.message:
                self.double_binds.append(f"{namespace}/{name}")
            raise
        self.binds[pod["metadata"]["uid"]] += 1
        return pod

    def patch(self, target: Target, body: Raw, content_type: str) -> Raw:
        if target.subresource == "status" and target.name in self.armed_status:
            self.armed_status.discard(target.name)
            self.fired["status500"] += 1
            raise ApiStatusError(500, "InternalError", "injected: InternalError")
        obj: Raw = super().patch(target, body, content_type)
        return obj

    def create(self, resource: str, raw: Raw) -> Raw:
        if resource == EVENTS and self.armed_events:
            self.armed_events -= 1
            self.fired["event500"] += 1
            if raw.get("reason") == "Scheduled":
                self.refused_scheduled.add((raw.get("regarding") or {}).get("uid", ""))
            raise ApiStatusError(500, "InternalError", "injected: InternalError")
        obj: Raw = super().create(resource, raw)
        if resource == EVENTS:
            self.event_reasons[obj.get("reason", "")] += 1
            if obj.get("reason") == "Scheduled":
                self.scheduled_uids.add((obj.get("regarding") or {}).get("uid", ""))
        return obj

    def update(self, target: Target, body: Raw) -> Raw:
        obj: Raw = super().update(target, body)
        if target.resource == LEASES:
            now = time.monotonic()
            if self.renewals:
                self.max_gap = max(self.max_gap, now - self.renewals[-1])
            self.renewals.append(now)
        return obj

    def emit(self, resource: str, kind: str, obj: Raw) -> None:
        super().emit(resource, kind, obj)
        if len(self.history) > 2 * HISTORY_KEPT:
            del self.history[:HISTORY_KEPT]
            self.min_rv = self.history[0][0] - 1


_FAULT_ANSWERS = {
    "bind409": (409, "Conflict"),
    "bind429": (429, "TooManyRequests"),
    "bind500": (500, "InternalError"),
}


class Driver:
    """Creates and deletes pods and arms faults on `server`, in the server's process."""

    def __init__(self, server: SoakApiServer, params: Params) -> None:
        self.server = server
        self.params = params
        self.rng = random.Random(params.seed)
        """Draws for the pods (their grace periods and faults): the same for a seed."""
        self._watch_rng = random.Random(params.seed + 1)
        self._next_watch_fault = 0.0
        self._watch_faults = 0
        self.created = 0
        self.deleted = 0
        self.faulting = True
        self.deleting = True
        self._births: collections.deque[tuple[float, str]] = collections.deque()
        self._terminating: list[tuple[float, str]] = []
        self.started = 0.0

    def _pod(self, name: str) -> Raw:
        raw = pod_raw(name, namespace=NAMESPACE, cpu="100m")
        raw["spec"]["terminationGracePeriodSeconds"] = self.rng.choice((0, 1, 2))
        return raw

    def _arm(self, name: str) -> None:
        """Faults for the pod just created: its binding fails once (409, 429, 500, or 500
        and then its status patch), and, apart, the next Event write fails."""
        server = self.server
        if self.rng.random() < self.params.fault_rate:
            kind = self.rng.choice(("bind409", "bind429", "bind500", "status500"))
            server.armed_binds[name] = "bind500" if kind == "status500" else kind
            if kind == "status500":
                server.armed_status.add(name)
        if self.rng.random() < self.params.fault_rate:
            server.armed_events += 1

    def _disarm(self, name: str) -> None:
        self.server.armed_binds.pop(name, None)
        self.server.armed_status.discard(name)

    def _delete(self, name: str, now: float) -> None:
        self._disarm(name)
        target = Target("v1/pods", NAMESPACE, name, None)
        try:
            pod = self.server.delete(target, None)
        except ApiStatusError:  # already gone (404)
            return
        self.deleted += 1
        meta = pod["metadata"]
        if meta.get("deletionTimestamp"):  # graceful: its kubelet removes it later
            when = now + meta["deletionGracePeriodSeconds"]
            heapq.heappush(self._terminating, (when, name))

    def _kubelet(self, now: float) -> None:
        """Remove the terminating pods whose grace period is over, as their kubelets do."""
        pods = self.server.objects.get("v1/pods", {})
        while self._terminating and self._terminating[0][0] <= now:
            _, name = heapq.heappop(self._terminating)
            key = f"{NAMESPACE}/{name}"
            if key in pods and pods[key]["metadata"].get("deletionTimestamp"):
                self.server.remove("v1/pods", key)

    def _watch_fault(self, now: float) -> None:
        """Every open watch cut, or (every other time) expired; the next one due in half to
        one and a half `watch_fault_every`."""
        if now < self._next_watch_fault:
            return
        if self._next_watch_fault:
            if self._watch_faults % 2 == 0:
                self.server.drop_watches(abort=True)
                self.server.fired["watchCut"] += 1
            else:
                self.server.expire_watches()
                self.server.fired["watch410"] += 1
            self._watch_faults += 1
        every = self.params.watch_fault_every
        self._next_watch_fault = now + every * self._watch_rng.uniform(0.5, 1.5)

    async def run(self) -> None:
        p = self.params
        loop = asyncio.get_running_loop()
        self.started = loop.time()
        tick = 0.05
        while True:
            now = loop.time()
            due = min(p.pods, int((now - self.started) * p.rate) + 1)
            while self.created < due:
                name = f"p{self.created:06d}"
                self.server.add("v1/pods", self._pod(name))
                self._births.append((now, name))
                self.created += 1
                if self.faulting:
                    self._arm(name)
            if self.deleting:
                while self._births and self._births[0][0] <= now - p.lifetime:
                    self._delete(self._births.popleft()[1], now)
            self._kubelet(now)
            if self.faulting:
                self._watch_fault(now)
            await asyncio.sleep(tick)

    def stop_faults(self) -> None:
        self.faulting = False
        self.deleting = False
        self.server.armed_binds.clear()
        self.server.armed_status.clear()
        self.server.armed_events = 0

    # -- answers to the runner's process ----------------------------------------------------
    def sample(self) -> dict[str, Any]:
        pods = list(self.server.all_of("v1/pods"))
        lease = self.server.get(LEASES, "kube-system/kube-scheduler") or {}
        spec = lease.get("spec") or {}
        return {
            "created": self.created,
            "deleted": self.deleted,
            "alive": len(pods),
            "bound": sum(1 for p in pods if (p.get("spec") or {}).get("nodeName")),
            "terminating": sum(1 for p in pods if p["metadata"].get("deletionTimestamp")),
            "faults": dict(self.server.fired),
            "holder": spec.get("holderIdentity", ""),
            "transitions": spec.get("leaseTransitions", 0),
            "renewals": len(self.server.renewals),
            "max_gap": self.server.max_gap,
            "binds": sum(self.server.binds.values()),
            "events": dict(self.server.event_reasons),
        }

    def check(self) -> dict[str, Any]:
        """The server's side of the end checks."""
        server = self.server
        by_node: dict[str, list[str]] = collections.defaultdict(list)
        used: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
        pending = []
        for pod in server.all_of("v1/pods"):
            spec = pod.get("spec") or {}
            node = spec.get("nodeName")
            if not node:
                pending.append(pod["metadata"]["name"])
                continue
            by_node[node].append(pod["metadata"]["uid"])
            for c in spec.get("containers") or []:
                cpu = ((c.get("resources") or {}).get("requests") or {}).get("cpu", "0")
                used[node][0] += milli_value(cpu)
            used[node][1] += 1
        over = []
        for node in server.all_of("v1/nodes"):
            allocatable = (node.get("status") or {}).get("allocatable") or {}
            cpu, count = used.get(node["metadata"]["name"], [0, 0])
            if cpu > milli_value(allocatable.get("cpu", "0")) or count > int(
                allocatable.get("pods", "0")
            ):
                over.append(f"node {node['metadata']['name']}: {cpu}m cpu, {count} pods")
        bound_uids = set(server.binds)
        return {
            "by_node": {k: sorted(v) for k, v in by_node.items()},
            "pending": sorted(pending),
            "over": over,
            "twice": sorted(uid for uid, n in server.binds.items() if n > 1),
            "double_binds": server.double_binds[:10],
            "without_event": len(bound_uids - server.scheduled_uids - server.refused_scheduled),
            "refused_scheduled": len(server.refused_scheduled),
            "refused": server.fired["event500"],
            "events_not_bound": len(server.scheduled_uids - bound_uids),
        }


def _serve(conn: Connection, params: Params) -> None:
    """The server's process: start, make the nodes ready, answer the runner's process."""

    async def main() -> None:
        server = SoakApiServer()
        url = await server.start()
        for i in range(params.nodes):
            server.add("v1/nodes", node_raw(f"n{i:03d}", cpu="16"))
            make_node_ready(server.patch_path, f"n{i:03d}")
        driver = Driver(server, params)
        conn.send(url)
        running: asyncio.Task[None] | None = None
        try:
            while True:
                message = await asyncio.to_thread(conn.recv)
                if message == "go":
                    running = asyncio.get_running_loop().create_task(driver.run())
                    conn.send(None)
                elif message == "sample":
                    server.requests.clear()  # every request is recorded; none is read here
                    conn.send(driver.sample())
                elif message == "quiet":
                    driver.stop_faults()
                    conn.send(None)
                elif message == "check":
                    conn.send(driver.check())
                else:
                    return
        finally:
            if running is not None:
                running.cancel()
            await server.stop()

    asyncio.run(main())


# -- this process: kubesched run -------------------------------------------------------------
def _write_config(folder: Path, url: str, p: Params) -> tuple[str, str]:
    kubeconfig = folder / "kubeconfig"
    kubeconfig.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": url}}],
                "users": [{"name": "u", "user": {"token": "t"}}],
                "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "c",
            }
        ),
        encoding="utf-8",
    )
    config = folder / "config.yaml"
    duration, deadline, retry = p.lease
    config.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "clientConnection": {"qps": p.qps, "burst": int(2 * p.qps)},
                "leaderElection": {
                    "leaderElect": True,
                    "leaseDuration": duration,
                    "renewDeadline": deadline,
                    "retryPeriod": retry,
                },
            }
        ),
        encoding="utf-8",
    )
    return str(kubeconfig), str(config)


class _Server:
    """The server's process, asked one thing at a time."""

    def __init__(self, params: Params) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, params), daemon=True)
        self._lock = asyncio.Lock()

    async def start(self) -> str:
        self.process.start()
        url: str = await asyncio.to_thread(self._conn.recv)
        return url

    async def ask(self, message: str) -> Any:
        async with self._lock:
            self._conn.send(message)
            return await asyncio.to_thread(self._conn.recv)

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self._conn.send("stop")
        self.process.join(30)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join()


class RunSoak:
    """One soak; `run()` gives the summary, `samples` the lines."""

    def __init__(self, params: Params, out: Any = print) -> None:
        self.params = params
        self.samples: list[Sample] = []
        self.server_samples: list[dict[str, Any]] = []
        self._out = out
        self._lag = 0.0

    async def _measure_lag(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(0.1)
            self._lag = max(self._lag, time.monotonic() - before - 0.1)

    def run(self) -> Summary:
        with tempfile.TemporaryDirectory(prefix="kubesched-soak-") as folder:
            return asyncio.run(self._run(Path(folder)))

    async def _run(self, folder: Path) -> Summary:
        from kubesched.run import RunOptions, build_runner

        p = self.params
        server = _Server(p)
        url = await server.start()
        try:
            kubeconfig, config = _write_config(folder, url, p)
            runner = await build_runner(
                RunOptions(
                    config=config,
                    kubeconfig=kubeconfig,
                    port=0,
                    identity=IDENTITY,
                    shutdown_grace_period=30.0,
                )
            )
            if p.event_retry is not None:
                runner.scheduler.recorder.sleep_duration = p.event_retry
            running = asyncio.ensure_future(runner.run())
            try:
                return await self._drive(server, runner, running)
            finally:
                if not running.done():
                    runner.request_shutdown()
                await asyncio.gather(running, return_exceptions=True)
        finally:
            server.stop()

    async def _until(self, what: Any, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not await what():
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.2)
        return True

    async def _drive(self, server: _Server, runner: Any, running: asyncio.Future[int]) -> Summary:
        p = self.params
        problems: list[str] = []

        async def leading() -> bool:
            return bool(runner.leading) or running.done()

        if not await self._until(leading, 60.0) or running.done():
            raise RuntimeError("the runner never became the leader")
        started = time.monotonic()
        lagging = asyncio.ensure_future(self._measure_lag())
        await server.ask("go")
        next_sample = started + p.sample
        while True:
            await asyncio.sleep(max(0.0, next_sample - time.monotonic()))
            next_sample += p.sample
            sample = await self._sample(server, runner, started)
            if running.done() or not sample.leading:
                problems.append(f"leadership lost at {sample.at:.0f} s")
                break
            if sample.created >= p.pods:
                break
        await server.ask("quiet")
        sched = runner.scheduler

        async def settled() -> bool:
            got = await server.ask("sample")
            return bool(
                got["alive"] == got["bound"]
                and got["terminating"] == 0
                and len(sched.queue) == 0
                and sched.cache.assumed_pod_count() == 0
                and not sched.recorder.busy
                and _cache_by_node(sched) == (await server.ask("check"))["by_node"]
            )

        if not await self._until(settled, p.settle):
            problems.append(f"not settled {p.settle:.0f} s after the last pod")
        seconds = time.monotonic() - started
        last = await self._sample(server, runner, started)
        theirs = await server.ask("check")
        got = self.server_samples[-1]
        problems += _end_problems(sched, runner, theirs, got)
        problems += self._flatness()
        runner.request_shutdown()
        code = await running
        lagging.cancel()
        if code != 0:
            problems.append(f"kubesched run exited {code}")
        final = await server.ask("sample")
        if final["holder"] != "":
            problems.append(f"the Lease was not released: held by {final['holder']!r}")
        faults = {k: final["faults"].get(k, 0) for k in FAULT_KINDS}
        events = final["events"]
        warm = [s for s in self.samples if s.at >= p.warmup_seconds] or self.samples
        return Summary(
            seconds=round(seconds, 1),
            created=final["created"],
            deleted=final["deleted"],
            binds=final["binds"],
            faults=faults,
            scheduled_events=events.get("Scheduled", 0),
            scheduled_refused=theirs["refused_scheduled"],
            events_written=sum(events.values()),
            events_dropped=sched.recorder.dropped,
            lease_renewals=final["renewals"],
            lease_transitions=final["transitions"],
            max_renewal_gap=round(final["max_gap"], 2),
            peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            first_rss_mb=warm[0].rss_mb,
            last_rss_mb=last.rss_mb,
            max_queue=max(s.active + s.backoff + s.unschedulable for s in self.samples),
            max_event_backlog=max(s.event_backlog for s in self.samples),
            max_loop_lag=max(s.loop_lag for s in self.samples),
            exit_code=code,
            problems=problems,
        )

    async def _sample(self, server: _Server, runner: Any, started: float) -> Sample:
        theirs = await server.ask("sample")
        self.server_samples.append(theirs)
        sched = runner.scheduler
        pending = sched.queue.pending_pods()
        sample = Sample(
            at=round(time.monotonic() - started, 1),
            created=theirs["created"],
            alive=theirs["alive"],
            bound=theirs["bound"],
            active=len(pending["active"]),
            backoff=len(pending["backoff"]),
            unschedulable=len(pending["unschedulable"]),
            cached=sched.cache.pod_count(),
            assumed=sched.cache.assumed_pod_count(),
            records=len(sched.report.records),
            event_backlog=sched.recorder.pending,
            event_cache=len(sched.recorder._cache),
            rss_mb=round(_rss() / 2**20, 1),
            leading=bool(runner.leading and runner.elector.is_leader()),
            loop_lag=round(self._lag, 2),
        )
        self._lag = 0.0
        self.samples.append(sample)
        self._out(" ".join(f"{k}={v}" for k, v in asdict(sample).items()))
        return sample

    def _flatness(self) -> list[str]:
        """Memory after the warm-up within a bound of its first sample; the cache, the
        report records and the queue at most the pods alive (a lifetime's worth, half as
        much again for the deletes not yet seen), not growing with the pods processed."""
        p = self.params
        problems = []
        bound = 1.5 * p.rate * p.lifetime + 50
        for s in self.samples:
            queued = s.active + s.backoff + s.unschedulable
            if max(s.cached, s.records, queued) > bound:
                problems.append(
                    f"at {s.at} s: cache {s.cached}, records {s.records}, queue {queued}"
                    f" > {bound:.0f}"
                )
        warm = [s for s in self.samples if s.at >= p.warmup_seconds]
        if len(warm) >= 2:
            first, last = warm[0].rss_mb, warm[-1].rss_mb
            if last > first + max(32.0, 0.25 * first):
                problems.append(f"memory grew from {first} MB to {last} MB after the warm-up")
        return problems


def _cache_by_node(sched: Any) -> dict[str, list[str]]:
    out = {}
    for name, info in sched.cache.dump().items():
        if info.pods:
            out[name] = sorted(p.pod.metadata.uid for p in info.pods)
    return out


def _end_problems(
    sched: Any, runner: Any, theirs: dict[str, Any], got: dict[str, Any]
) -> list[str]:
    """The checks at the end, once settled (or not)."""
    problems = []
    if theirs["pending"]:
        problems.append(f"{len(theirs['pending'])} pods alive and unbound: {theirs['pending'][:5]}")
    if theirs["twice"] or theirs["double_binds"]:
        problems.append(f"bound twice: {theirs['twice'][:5]} {theirs['double_binds'][:5]}")
    mine = _cache_by_node(sched)
    if mine != theirs["by_node"]:
        nodes = sorted(
            n for n in set(mine) | set(theirs["by_node"]) if mine.get(n) != theirs["by_node"].get(n)
        )
        problems.append(f"the cache and the server's bound pods disagree on nodes {nodes[:5]}")
    if sched.cache.assumed_pod_count():
        problems.append(f"{sched.cache.assumed_pod_count()} pods still assumed")
    if len(sched.queue) or sched.queue.in_flight_pods():
        problems.append(f"the queue holds {len(sched.queue)} pods")
    problems += theirs["over"]
    if got["holder"] != IDENTITY or got["transitions"] != 0:
        problems.append(f"Lease held by {got['holder']!r}, {got['transitions']} transitions")
    if theirs["without_event"] or theirs["events_not_bound"]:
        problems.append(
            f"{theirs['without_event']} binds without a Scheduled Event, "
            f"{theirs['events_not_bound']} Scheduled Events without a bind"
        )
    # an Event write the server refused is dropped, as client-go's events library drops a
    # StatusError (event_broadcaster.go recordEvent: "Server rejected event"); no other
    if sched.recorder.dropped > theirs["refused"]:
        problems.append(
            f"{sched.recorder.dropped} Events dropped, {theirs['refused']} refused by faults"
        )
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    d = Params()
    parser.add_argument("--pods", type=int, default=d.pods)
    parser.add_argument("--nodes", type=int, default=d.nodes)
    parser.add_argument("--rate", type=float, default=d.rate, help="pods created per second")
    parser.add_argument("--lifetime", type=float, default=d.lifetime, help="seconds a pod lives")
    parser.add_argument("--fault-rate", type=float, default=d.fault_rate)
    parser.add_argument("--watch-fault-every", type=float, default=d.watch_fault_every)
    parser.add_argument("--seed", type=int, default=d.seed)
    parser.add_argument("--sample", type=float, default=d.sample, help="seconds between samples")
    parser.add_argument("--qps", type=float, default=d.qps)
    parser.add_argument(
        "--warmup", type=float, default=None, help="seconds before the memory baseline"
    )
    args = parser.parse_args()
    params = Params(
        pods=args.pods,
        nodes=args.nodes,
        rate=args.rate,
        lifetime=args.lifetime,
        fault_rate=args.fault_rate,
        watch_fault_every=args.watch_fault_every,
        seed=args.seed,
        sample=args.sample,
        qps=args.qps,
        warmup=args.warmup,
    )
    summary = RunSoak(params).run()
    for key, value in asdict(summary).items():
        print(f"{key}: {value}")
    return 1 if summary.problems else 0


if __name__ == "__main__":
    sys.exit(main())
