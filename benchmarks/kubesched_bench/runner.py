"""Run one workload on the memory cluster and measure it like scheduler_perf.

upstream: test/integration/scheduler_perf/util.go (throughputCollector) and
scheduler_perf.go (the createPods op with collectMetrics).

The cluster and the scheduler are wired as `kubesched.simulate` wires them: a MemoryCluster
on a VirtualTimeLoop, the workload's profile (the default one unless the workload brings a
configuration) resolved against the installed plugins. Virtual time only matters for
timers (backoff, permit, PreBind's polling); what is measured is wall-clock time, with
`time.perf_counter()`:

- the init pods are created and scheduled first, unmeasured;
- then the clock starts, the measured phase's objects and pods are created (one by one,
  each pod's creation stamped) and the run waits until every measured pod is bound (pod
  creation counts, as upstream, where the collectors start before the op creates its pods);
- each bind of a measured pod is stamped by a `kubesched_pod_scheduled` hook observer
  (`observers.BindRecorder`), and the stamps are cut into 1-second windows afterwards
  (`stats.throughput_samples`: upstream samples a counter every second; cutting the stamps
  gives the same counts without a timer on a virtual-time loop);
- at the end, gangs must be bound whole and claims bound (`checks`); a gang's time to
  quorum comes from its members' creation and bind stamps.

Statistics are in `stats`, the result type in `result`; the names they export are
re-exported here as before the split.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import os
import resource
import time
from collections.abc import Mapping, Sequence
from typing import Any

import pluggy

from kubesched.api import Pod
from kubesched.clock import VirtualClock, VirtualTimeLoop
from kubesched.cluster.memory import MemoryCluster, default_kinds
from kubesched.config import ResolvedConfig, load_config, parse_config, resolve
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.scheduler import Scheduler, new_scheduler
from kubesched_bench.checks import (
    describe_gang_shortfalls,
    describe_unbound_claims,
    gang_shortfalls,
    time_to_quorum,
    unbound_claims,
)
from kubesched_bench.errors import BenchmarkError
from kubesched_bench.observers import BindRecorder, VictimCounter
from kubesched_bench.result import BenchmarkResult
from kubesched_bench.spec import Workload
from kubesched_bench.stats import (
    SAMPLE_INTERVAL,
    LatencySummary,
    QuorumSummary,
    ThroughputSummary,
    percentile,
    summarize_latencies,
    throughput_samples,
)

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


def default_config(
    document: Mapping[str, Any] | None = None,
) -> tuple[ResolvedConfig, PluginRegistry]:
    """The profile of `document` (a KubeSchedulerConfiguration; None: the default profile,
    no config file) resolved against the installed plugins."""
    registry = PluginRegistry.discover()
    config = load_config(None) if document is None else parse_config(document, "<workload>")
    return resolve(config, registry, None), registry


class _Run:
    """One workload on a fresh cluster and scheduler; see the module docstring."""

    def __init__(self, workload: Workload, seed: int) -> None:
        self.workload = workload
        self.seed = seed
        self.config, self.registry = default_config(workload.config)
        self.clock = VirtualClock()
        self.loop = VirtualTimeLoop(self.clock)
        self.pm: pluggy.PluginManager = make_plugin_manager()
        self.cluster = MemoryCluster(default_kinds(self.pm), self.clock, uid_seed=seed)
        self.recorder = BindRecorder()
        self.pm.register(self.recorder)
        self.victims = VictimCounter()
        self.cluster.watch("Pod", self.victims)
        self.scheduler: Scheduler | None = None
        self.created: dict[str, float] = {}
        """perf_counter() just before each measured pod was created, by `namespace/name`."""
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
        sched = new_scheduler(
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
            first_latency = len(sched.report.stats.attempt_latencies)
            attempts_before = dict(sched.report.stats.attempts)
            self.victims.counting = True

            cpu_started = time.process_time()
            started = time.perf_counter()
            done = self._expect(wl.pods)
            self._create_measured()
            create_seconds = time.perf_counter() - started
            await self._wait(done, "measured", len(wl.pods))
            cpu_seconds = time.process_time() - cpu_started
            self.victims.counting = False
        finally:
            self.loop.set_idle_callback(None)
            sched.stop()
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
            await sched.drain()
            await _cancel_other_tasks()

        self._check_gangs()
        claims_bound = self._check_claims()
        stamps = self.recorder.stamps
        # the last measured bind (the waiter wakes a little later)
        ended = stamps[-1] if stamps else started
        wall = ended - started
        attempts = {
            k: v - attempts_before.get(k, 0) for k, v in sched.report.stats.attempts.items()
        }
        profile = self.config.profiles[0]
        placements = {p.key: p.spec.node_name or "" for p in self.cluster.list("Pod")}
        quorum = (
            QuorumSummary.of(time_to_quorum(wl.gangs, self.created, self.recorder.bound_at))
            if wl.gangs
            else None
        )
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
            latency=summarize_latencies(sched.report.stats.attempt_latencies[first_latency:]),
            attempts=attempts,
            plugins={k: list(v) for k, v in profile.points.items() if v},
            left_out=[name for name, _ in profile.left_out],
            placement=_digest(placements),
            victims=self.victims.victims,
            load_average=self.load_average,
            load_average_end=_load_average(),
            cpu_ms_per_pod=cpu_seconds * 1000 / len(wl.pods),
            peak_rss_mib=_peak_rss_mib(),
            profile=wl.profile,
            gang_size=wl.size.gang_size if wl.gangs else 0,
            time_to_quorum=quorum,
            claims=len(wl.claims),
            claims_bound=claims_bound,
            placements=placements,
        )

    def _create_measured(self) -> None:
        """Create the measured phase's objects, then its pods one by one, stamping each
        pod's creation (a gang's time to quorum starts at its first member's)."""
        self.cluster.create_many(self.workload.measured_setup)
        for pod in self.workload.pods:
            self.created[pod.key] = time.perf_counter()
            self.cluster.create_many((pod,))

    def _expect(self, pods: Sequence[Pod]) -> asyncio.Future[None]:
        """A future set when every pod of `pods` is bound (or the scheduler goes quiet)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.recorder.expect(frozenset(p.key for p in pods), done)
        return done

    async def _wait(self, done: asyncio.Future[None], name: str, count: int) -> None:
        await done
        if self.recorder.bound < count:
            message = (
                f"{self.workload.name}: only {self.recorder.bound} of {count} {name} pods "
                f"were bound before the scheduler went quiet"
            )
            gangs = self.workload.gangs
            shortfalls = gang_shortfalls(gangs, self.recorder.bound_at) if gangs else []
            if name == "measured" and shortfalls:
                message += "; " + describe_gang_shortfalls(shortfalls, len(gangs))
            raise BenchmarkError(message)

    def _check_gangs(self) -> None:
        """Every gang bound whole, or BenchmarkError naming the gangs that were not."""
        gangs = self.workload.gangs
        shortfalls = gang_shortfalls(gangs, self.recorder.bound_at)
        if shortfalls:
            detail = describe_gang_shortfalls(shortfalls, len(gangs))
            raise BenchmarkError(f"{self.workload.name}: {detail}")

    def _check_claims(self) -> int:
        """Every claim of the workload bound (its count), or BenchmarkError naming some
        that were not."""
        claims = self.workload.claims
        if not claims:
            return 0
        problems = unbound_claims(claims, self.cluster.list("PersistentVolumeClaim"))
        if problems:
            detail = describe_unbound_claims(problems, len(claims))
            raise BenchmarkError(f"{self.workload.name}: {detail}")
        return len(claims)

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


async def _cancel_other_tasks(rounds: int = 10) -> None:
    """Cancel the controllers' tasks and the like, and the tasks started meanwhile (by
    watch events still being delivered, or by a cancellation: a plugin writing a status),
    so none is left pending when the loop closes."""
    for _ in range(rounds):
        await asyncio.sleep(0)  # let callbacks already scheduled start their tasks
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        if not others:
            return
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)


def _digest(placements: dict[str, str]) -> str:
    lines = sorted(f"{key}={node}" for key, node in placements.items())
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def _load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:  # not available on this platform
        return None


def _peak_rss_mib() -> float:
    """This process's peak resident set size so far, in MiB (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_workload(workload: Workload, *, seed: int = 0) -> BenchmarkResult:
    """Schedule `workload` with its profile and measure its measured phase.

    Raises BenchmarkError when a phase ends with pods that were never bound, or the run
    ends with a gang not bound whole or a claim not bound.
    """
    return _Run(workload, seed).run()
