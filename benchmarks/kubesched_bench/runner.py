"""Run one workload on the memory cluster and measure it like scheduler_perf.

upstream: test/integration/scheduler_perf/util.go (throughputCollector) and
scheduler_perf.go (the createPods op with collectMetrics).

The cluster and the scheduler are wired as `kubesched.simulate` wires them: a MemoryCluster
on a VirtualTimeLoop, the default profile resolved against the installed plugins. Virtual
time only matters for timers (backoff, permit); what is measured is wall-clock time, with
`time.perf_counter()`:

- the init pods are created and scheduled first, unmeasured;
- then the clock starts, the measured pods are created and the run waits until every one is
  bound (pod creation counts, as upstream, where the collectors start before the op creates
  its pods);
- each bind of a measured pod is stamped by a `kubesched_pod_scheduled` hook observer, and
  the stamps are cut into 1-second windows afterwards (upstream samples a counter every
  second; cutting the stamps gives the same counts without a timer on a virtual-time loop).
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import math
import os
import platform
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import pluggy

from kubesched.api import Pod
from kubesched.clock import VirtualClock, VirtualTimeLoop
from kubesched.cluster import WatchEvent
from kubesched.cluster.memory import MemoryCluster, default_kinds
from kubesched.config import PluginCatalog, ResolvedConfig, load_config, resolve
from kubesched.runtime import PluginRegistry, hookimpl, make_plugin_manager
from kubesched.scheduler import Scheduler
from kubesched_bench.workloads import Workload

__all__ = [
    "SAMPLE_INTERVAL",
    "BenchmarkError",
    "BenchmarkResult",
    "LatencySummary",
    "ThroughputSummary",
    "default_config",
    "percentile",
    "run_workload",
    "summarize_latencies",
    "throughput_samples",
]

# upstream: util.go throughputSampleInterval = time.Second
SAMPLE_INTERVAL: Final = 1.0

# upstream: k8s.io/api/core/v1 (DisruptionTarget, PodReasonPreemptionByScheduler): the
# condition the preemption evaluator sets on a victim before deleting it.
DISRUPTION_TARGET: Final = "DisruptionTarget"
PREEMPTION_BY_SCHEDULER: Final = "PreemptionByScheduler"


class BenchmarkError(RuntimeError):
    """The workload could not complete: some pods were never bound."""


def percentile(sorted_values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile of ascending values, as upstream's collector computes it:
    `values[ceil(n*p/100) - 1]`. 0.0 for no values."""
    n = len(sorted_values)
    if n == 0:
        return 0.0
    return sorted_values[max(math.ceil(n * p / 100) - 1, 0)]


def throughput_samples(
    bind_times: Sequence[float], start: float, end: float, interval: float = SAMPLE_INTERVAL
) -> list[float]:
    """Pods per second in each whole `interval` from `start`, from bind timestamps.

    Like upstream's collector, an interval in which nothing was bound is not recorded as 0:
    it is merged with the next interval that bound something, and that rate is recorded once
    per merged interval. The trailing partial interval is dropped (upstream stops sampling
    when the op ends), unless there is no whole interval at all: then the whole run is one
    sample, so short runs still report something.
    """
    whole = int((end - start) // interval)
    if whole == 0:
        duration = end - start
        return [len(bind_times) / duration] if duration > 0 and bind_times else []
    counts = [0] * whole
    for t in bind_times:
        index = int((t - start) // interval)
        if 0 <= index < whole:
            counts[index] += 1
    samples: list[float] = []
    skipped = 0
    for count in counts:
        if count == 0:
            skipped += 1
            continue
        rate = count / (interval * (skipped + 1))
        samples.extend([rate] * (skipped + 1))
        skipped = 0
    return samples


@dataclass(frozen=True)
class ThroughputSummary:
    """SchedulingThroughput in pods/s: `average` is measured pods / measured wall time;
    the percentiles are over the 1-second samples."""

    average: float
    perc50: float
    perc90: float
    perc99: float
    samples: list[float]

    @classmethod
    def of(cls, pods: int, seconds: float, samples: Sequence[float]) -> ThroughputSummary:
        ordered = sorted(samples)
        return cls(
            average=pods / seconds if seconds > 0 else 0.0,
            perc50=percentile(ordered, 50),
            perc90=percentile(ordered, 90),
            perc99=percentile(ordered, 99),
            samples=list(samples),
        )


@dataclass(frozen=True)
class LatencySummary:
    """Wall-clock milliseconds per scheduling attempt (one scheduling cycle)."""

    count: int
    average_ms: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float


def summarize_latencies(seconds: Sequence[float]) -> LatencySummary:
    ordered = sorted(seconds)
    if not ordered:
        return LatencySummary(0, 0.0, 0.0, 0.0, 0.0, 0.0)
    ms = 1000.0
    return LatencySummary(
        count=len(ordered),
        average_ms=sum(ordered) / len(ordered) * ms,
        p50_ms=percentile(ordered, 50) * ms,
        p90_ms=percentile(ordered, 90) * ms,
        p99_ms=percentile(ordered, 99) * ms,
        max_ms=ordered[-1] * ms,
    )


@dataclass
class BenchmarkResult:
    """Everything one run measured; `as_dict()` is the `--json` output."""

    workload: str
    nodes: int
    init_pods: int
    pods: int
    seed: int
    bound: int
    wall_seconds: float
    create_seconds: float
    init_seconds: float
    throughput: ThroughputSummary
    latency: LatencySummary
    attempts: dict[str, int]
    plugins: dict[str, list[str]]
    left_out: list[str]
    placement: str
    """sha256 of every pod's `namespace/name=node`, sorted: equal seeds give equal digests."""
    victims: int = 0
    """Pods deleted by preemption during the measured phase."""
    load_average: float | None = None
    """The machine's 1-minute load average when the run started (None where unknown)."""
    python: str = field(default_factory=platform.python_version)
    placements: dict[str, str] = field(default_factory=dict, repr=False)
    """Every pod left at the end (`namespace/name`) and its node ("" if unbound); not in
    the JSON, where `placement` stands for it."""

    def as_dict(self) -> dict[str, Any]:
        t, lat = self.throughput, self.latency
        return {
            "workload": self.workload,
            "nodes": self.nodes,
            "init_pods": self.init_pods,
            "pods": self.pods,
            "seed": self.seed,
            "bound": self.bound,
            "wall_seconds": self.wall_seconds,
            "create_seconds": self.create_seconds,
            "init_seconds": self.init_seconds,
            "throughput": {
                "unit": "pods/s",
                "average": t.average,
                "perc50": t.perc50,
                "perc90": t.perc90,
                "perc99": t.perc99,
                "samples": t.samples,
            },
            "attempt_latency": {
                "unit": "ms",
                "count": lat.count,
                "average": lat.average_ms,
                "p50": lat.p50_ms,
                "p90": lat.p90_ms,
                "p99": lat.p99_ms,
                "max": lat.max_ms,
            },
            "attempts": dict(self.attempts),
            "plugins": {k: list(v) for k, v in self.plugins.items()},
            "left_out": list(self.left_out),
            "victims": self.victims,
            "placement": self.placement,
            "load_average": self.load_average,
            "python": self.python,
        }


@dataclass
class _BindRecorder:
    """Counts the binds of the pods a phase waits for and stamps them (a `kubesched` hook
    implementation).

    Only the phase's own pods count, each once, by `namespace/name`: in the measured phase
    the count is the measured pods bound, whatever else happens meanwhile (preemption
    victims are deleted, never bound again; a churn op would bind other pods).
    """

    expected: frozenset[str] = frozenset()
    bound: int = 0
    stamps: list[float] = field(default_factory=list)
    done: asyncio.Future[None] | None = None
    _seen: set[str] = field(default_factory=set)

    def expect(self, keys: frozenset[str], done: asyncio.Future[None]) -> None:
        self.expected, self.bound, self.done = keys, 0, done
        self.stamps.clear()
        self._seen.clear()
        if not keys:
            done.set_result(None)

    @hookimpl
    def kubesched_pod_scheduled(self, pod: Pod, node_name: str, profile: str) -> None:
        key = pod.key
        if key not in self.expected or key in self._seen:
            return
        self.stamps.append(time.perf_counter())
        self._seen.add(key)
        self.bound += 1
        if self.bound >= len(self.expected) and self.done is not None and not self.done.done():
            self.done.set_result(None)


@dataclass
class _VictimCounter:
    """Counts pods deleted by preemption: a pod whose last version carries the
    `DisruptionTarget` condition the preemption evaluator adds before deleting it."""

    counting: bool = False
    victims: int = 0

    def __call__(self, event: WatchEvent) -> None:
        if not self.counting or event.type != "DELETED":
            return
        pod: Pod = event.obj
        condition = pod.status.condition(DISRUPTION_TARGET)
        if condition is not None and condition.reason == PREEMPTION_BY_SCHEDULER:
            self.victims += 1


def default_config() -> tuple[ResolvedConfig, PluginRegistry]:
    """The default profile (no config file) resolved against the installed plugins."""
    registry = PluginRegistry.discover()
    catalog = PluginCatalog(registry.plugins, registry.broken, registry.providers())
    return resolve(load_config(None), catalog, None), registry


class _Run:
    """One workload on a fresh cluster and scheduler; see the module docstring."""

    def __init__(self, workload: Workload, seed: int) -> None:
        self.workload = workload
        self.seed = seed
        self.config, self.registry = default_config()
        self.clock = VirtualClock()
        self.loop = VirtualTimeLoop(self.clock)
        self.pm: pluggy.PluginManager = make_plugin_manager()
        self.cluster = MemoryCluster(default_kinds(self.pm), self.clock, uid_seed=seed)
        self.recorder = _BindRecorder()
        self.pm.register(self.recorder)
        self.victims = _VictimCounter()
        self.cluster.watch("Pod", self.victims)
        self.scheduler: Scheduler | None = None
        self.load_average = _load_average()

    def run(self) -> BenchmarkResult:
        try:
            return self.loop.run_until_complete(self._main())
        finally:
            self.loop.close()

    async def _main(self) -> BenchmarkResult:
        wl = self.workload
        self.cluster.create_many([*wl.setup, *wl.nodes])
        self.cluster.create_many(wl.init_pods)
        for controllers in self.pm.hook.kubesched_cluster_controllers(cluster=self.cluster):
            for c in controllers:
                self.cluster.add_controller(c)
        sched = Scheduler(
            self.cluster,
            self.config,
            self.registry.plugins,
            clock=self.clock,
            seed=self.seed,
            hooks=self.pm,
        )
        self.scheduler = sched
        sched.start_watching()
        self.cluster.start_controllers()
        self.loop.set_idle_callback(self._on_idle)
        runner = asyncio.get_running_loop().create_task(sched.run())
        try:
            init_started = time.perf_counter()
            await self._wait(self._expect(wl.init_pods), "init", len(wl.init_pods))
            init_seconds = time.perf_counter() - init_started
            gc.collect()  # garbage of the setup phase is not the measured phase's cost
            first_latency = len(sched.stats.attempt_latencies)
            attempts_before = dict(sched.stats.attempts)
            self.victims.counting = True

            started = time.perf_counter()
            done = self._expect(wl.pods)
            self.cluster.create_many(wl.pods)
            create_seconds = time.perf_counter() - started
            await self._wait(done, "measured", len(wl.pods))
            self.victims.counting = False
        finally:
            self.loop.set_idle_callback(None)
            sched.stop()
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
            await sched.drain()
            others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in others:  # controllers and the like
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

        stamps = self.recorder.stamps
        # the last measured bind (the waiter wakes a little later)
        ended = stamps[-1] if stamps else started
        wall = ended - started
        attempts = {k: v - attempts_before.get(k, 0) for k, v in sched.stats.attempts.items()}
        profile = self.config.profiles[0]
        placements = {p.key: p.spec.node_name or "" for p in self.cluster.list("Pod")}
        return BenchmarkResult(
            workload=wl.name,
            nodes=len(wl.nodes),
            init_pods=len(wl.init_pods),
            pods=len(wl.pods),
            seed=self.seed,
            bound=len(stamps),
            wall_seconds=wall,
            create_seconds=create_seconds,
            init_seconds=init_seconds,
            throughput=ThroughputSummary.of(
                len(stamps), wall, throughput_samples(stamps, started, ended)
            ),
            latency=summarize_latencies(sched.stats.attempt_latencies[first_latency:]),
            attempts=attempts,
            plugins={k: list(v) for k, v in profile.points.items() if v},
            left_out=[name for name, _ in profile.left_out],
            placement=_digest(placements),
            victims=self.victims.victims,
            load_average=self.load_average,
            placements=placements,
        )

    def _expect(self, pods: Sequence[Pod]) -> asyncio.Future[None]:
        """A future set when every pod of `pods` is bound (or the scheduler goes quiet)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.recorder.expect(frozenset(p.key for p in pods), done)
        return done

    async def _wait(self, done: asyncio.Future[None], name: str, count: int) -> None:
        await done
        if self.recorder.bound < count:
            raise BenchmarkError(
                f"{self.workload.name}: only {self.recorder.bound} of {count} {name} pods "
                f"were bound before the scheduler went quiet"
            )

    def _on_idle(self, next_timer: float | None) -> None:
        """Nothing can run: if nothing is in flight either, the pods still unbound never
        will be; end the phase (the waiter then reports how many were bound)."""
        done, sched = self.recorder.done, self.scheduler
        if done is None or done.done() or sched is None:
            return
        quiet = (
            sched.queue.is_idle()
            and not sched.busy
            and sched.waiting_pod_count() == 0
            and not self.cluster.busy()
        )
        if next_timer is None or quiet:
            done.set_result(None)


def _digest(placements: dict[str, str]) -> str:
    lines = sorted(f"{key}={node}" for key, node in placements.items())
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:  # not available on this platform
        return None


def run_workload(workload: Workload, *, seed: int = 0) -> BenchmarkResult:
    """Schedule `workload` with the default profile and measure its measured phase.

    Raises BenchmarkError when a phase ends with pods that were never bound.
    """
    return _Run(workload, seed).run()
