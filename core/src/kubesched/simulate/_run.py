"""Run a simulation: manifests into the memory cluster, every profile's scheduler on
virtual time, until nothing more can change.

Quiescence: the loop is idle (every task waits on a timer or on another task), no pod is
active or in flight, no binding cycle, status write or controller is busy, no pod waits at
Permit, and every pod backing off has already been retried since the cluster last changed.
Pods left in the unschedulable pool then stay there: every cluster change already went
through the queueing hints of the plugins that rejected them, so the 5-minute periodic retry
could not change their outcome. This assumes plugins decide from the cluster and their own
events, not from how often they were asked. With `until`, the run instead goes on (retries
included) until that much virtual time has passed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import difflib
import functools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pluggy

from kubesched._errors import UnknownPodError
from kubesched.api import (
    CPU,
    MEMORY,
    POD_REASON_SCHEDULING_GATED,
    POD_SCHEDULED,
    PODS,
    SCHEDULING_GATED_MESSAGE,
    K8sModel,
    Pod,
)
from kubesched.clock import VirtualClock, VirtualTimeLoop
from kubesched.cluster import Cluster
from kubesched.cluster.memory import MemoryCluster, default_kinds
from kubesched.config import ResolvedConfig, load_config, resolve
from kubesched.hookspecs import ReportSection, hookimpl
from kubesched.runtime import Framework, FrameworkFactory, PluginRegistry, make_plugin_manager
from kubesched.scheduler import AttemptError, Scheduler, SchedulerObserver, new_scheduler
from kubesched.simulate._faults import FaultPlan, load_fault_plan
from kubesched.simulate._faults_inject import (
    FaultInjector,
    FaultyCluster,
    FaultyFramework,
    check_fault_plan,
)
from kubesched.simulate._fields import FieldValidation
from kubesched.simulate._manifests import Warn, create_objects, load_manifests
from kubesched.simulate._preemptions import PodHistory, Preemption, format_seconds
from kubesched.simulate._results import (
    NodeAllocation,
    PodOutcome,
    PodResult,
    SimulationResult,
    group_skipped,
)
from kubesched.simulate._scenario import Scenario, check_scenario, load_scenario
from kubesched.simulate._scenario_runner import ScenarioRunner
from kubesched.simulate._sections import collect_sections
from kubesched.simulate._timeline import Timeline
from kubesched.workloads import GarbageCollector, check_pod_lifecycles
from kubesched.workloads import register as register_workloads

__all__ = ["Progress", "Simulation", "simulate"]

Progress = Callable[[int, int], None]
"""progress(decided_pods, total_pods): called once with 0 when every object is in the
cluster and scheduling starts, then as pods are bound or found unschedulable."""

_SCHEDULER_ERROR = "SchedulerError"
"""The PodScheduled reason of an attempt that ended in an Error (v1.PodReasonSchedulerError)."""


@dataclass
class _Observer:
    """A hook implementation that reports progress while the simulation runs."""

    total: int
    progress: Progress
    decided: set[str]

    @hookimpl
    def kubesched_pod_scheduled(self, pod: Pod, node_name: str, profile: str) -> None:
        self._decided(pod)

    @hookimpl
    def kubesched_attempt_failed(self, pod: Pod, profile: str, code: str, message: str) -> None:
        self._decided(pod)

    def _decided(self, pod: Pod) -> None:
        self.decided.add(pod.metadata.uid)
        # pods the workload controllers create are not in the manifests' count
        self.total = max(self.total, len(self.decided))
        self.progress(len(self.decided), self.total)


class Simulation:
    """One simulated cluster and its scheduler, built from manifests and a config."""

    def __init__(
        self,
        objects: Sequence[K8sModel],
        config: ResolvedConfig,
        registry: PluginRegistry,
        *,
        seed: int = 0,
        until: float | None = None,
        progress: Progress | None = None,
        hooks: pluggy.PluginManager | None = None,
        explain: Sequence[str] = (),
        origins: Sequence[tuple[str, int]] = (),
        fast_path: bool | None = None,
        scenario: Scenario | None = None,
        faults: FaultPlan | None = None,
    ) -> None:
        self.objects = list(objects)
        self.scenario = scenario
        """Steps to run on the cluster at virtual times (`--scenario`)."""
        self.runner: ScenarioRunner | None = None
        self.origins = list(origins)
        """(file, document) of each object, when they came from manifests."""
        self.config = config
        self.registry = registry
        self.seed = seed
        self.fast_path = fast_path
        """False keeps the per-node Filter/Score path (None: KUBESCHED_FAST_PATH decides)."""
        self.until = until
        self.progress = progress
        self.explain = [p if "/" in p else f"default/{p}" for p in explain]
        self.clock = VirtualClock()
        self.loop = VirtualTimeLoop(self.clock)
        self.pm = hooks if hooks is not None else make_plugin_manager()
        register_workloads(self.pm)
        self.cluster = MemoryCluster(default_kinds(self.pm), self.clock, uid_seed=seed)
        self.scheduler: Scheduler | None = None
        self.observers: list[SchedulerObserver] = []
        """More observers of the scheduling loop (a trace, say), after its report."""
        self.history = PodHistory(self.clock)
        """Pods the run saw, deleted ones included (for the preempted pods' results)."""
        self.timeline = Timeline(self.clock)
        """Pod and node counts over virtual time, and each pod's times."""
        self.injector = FaultInjector(faults, self.clock, seed) if faults is not None else None
        """The fault plan's state (`--faults`): what fired, the Reserve ledger."""
        self._finished: asyncio.Future[None] | None = None

    def run(self) -> SimulationResult:
        try:
            return self.loop.run_until_complete(self._main())
        finally:
            self.loop.close()

    async def _main(self) -> SimulationResult:
        loop = asyncio.get_running_loop()
        check_pod_lifecycles(self.objects, self.origins)
        await create_objects(self.cluster, self.objects, self.origins)
        # the pods some profile will try (a pod left to another scheduler is never decided)
        names = {p.scheduler_name for p in self.config.profiles}
        pods = sum(
            1
            for o in self.objects
            if isinstance(o, Pod) and not o.spec.node_name and o.spec.scheduler_name in names
        )
        if self.progress is not None:
            self.pm.register(_Observer(pods, self.progress, set()))
            self.progress(0, pods)
        for controllers in self.pm.hook.kubesched_cluster_controllers(cluster=self.cluster):
            for c in controllers:
                self.cluster.add_controller(c)
        if self.scenario is not None:
            self._add_scenario(self.scenario)
        sched = self.new_scheduler()
        self.scheduler = sched
        sched.report.explain.update(self.explain)
        self.history.watch(self.cluster)
        self.timeline.watch(self.cluster)
        sched.start_watching()
        self.cluster.start_controllers()
        self._finished = loop.create_future()
        self.loop.set_idle_callback(self._on_idle)
        runner = loop.create_task(sched.run())
        try:
            await self._finished
            # before cancelling: waiting pods are still waiting
            result = self._result(sched)
            result.sections = self._report_sections(result)
            if self.injector is not None:
                result.sections.append(self.injector.section())
            if self.runner is not None:
                result.checkpoints = list(self.runner.checkpoints)
            return result
        finally:
            self.loop.set_idle_callback(None)
            sched.stop()
            for task in asyncio.all_tasks(loop):
                if task is not asyncio.current_task():
                    task.cancel()
            await asyncio.gather(runner, return_exceptions=True)

    def new_scheduler(self) -> Scheduler:
        """The run's scheduler; with a fault plan, it sees the cluster and its profiles
        through the plan (`_faults_inject`), the controllers still the cluster itself."""
        cluster: Cluster = self.cluster
        framework: FrameworkFactory = Framework
        if self.injector is not None:
            cluster = FaultyCluster(self.cluster, self.injector)
            framework = functools.partial(FaultyFramework, injector=self.injector)
        return new_scheduler(
            cluster,
            self.config,
            self.registry.plugins,
            clock=self.clock,
            seed=self.seed,
            hooks=self.pm,
            observers=self.observers
            if self.injector is None
            else [*self.observers, self.injector.observer],
            framework=framework,
            fast_path=self.fast_path,
        )

    def _add_scenario(self, scenario: Scenario) -> None:
        """The scenario's runner as one more controller; with it, pods of a deleted node
        are force-deleted (podgc) so that their controllers make them again elsewhere."""
        for controller in self.cluster.controllers:
            if isinstance(controller, GarbageCollector):
                controller.orphaned_pods = True
        self.runner = ScenarioRunner(scenario, self._fail)
        self.cluster.add_controller(self.runner)

    def _fail(self, error: BaseException) -> None:
        """A scenario step that cannot run ends the run with its error."""
        if self._finished is not None and not self._finished.done():
            self._finished.set_exception(error)

    def _quiescent(self) -> bool:
        sched = self.scheduler
        if sched is None:
            return False
        if sched.busy or sched.waiting_pod_count() or self.cluster.busy():
            return False
        if self.injector is not None and self.injector.busy():
            return False
        if sched.queue.is_idle():
            return True
        pending = sched.queue.pending_pods()
        if pending["active"] or sched.queue.in_flight_pods():
            return False
        # a retry after backoff is pointless when nothing changed since the last attempt
        for qpi in pending["backoff"]:
            record = sched.report.records.get(qpi.uid)
            if record is None or record.changes_at_start != sched.report.cluster_changes:
                return False
            if self.injector is not None and qpi.uid in self.injector.retry:
                return False
        return True

    def _on_idle(self, next_timer: float | None) -> None:
        if self._finished is None or self._finished.done():
            return
        if self.until is not None:
            if next_timer is None or next_timer > self.until:
                self.clock.advance_to(self.until)
                self._finished.set_result(None)
            return
        if next_timer is None or self._quiescent():
            self._finished.set_result(None)

    # -- results ------------------------------------------------------------------------
    def _result(self, sched: Scheduler) -> SimulationResult:
        pods: list[PodResult] = []
        preemptions = self.history.preemptions(self.cluster.events())
        for pod in self.cluster.list("Pod"):
            pods.append(self._pod_result(sched, pod, preemptions.get(pod.metadata.uid)))
        for uid, deleted in self.history.deleted.items():
            preemption = preemptions.get(uid)
            if preemption is not None:
                pods.append(self._evicted_result(sched, deleted, preemption, gone=True))
        pods.sort(key=lambda p: (p.namespace, p.name))
        nodes = []
        infos = sched.cache.dump()
        for name in sorted(infos):
            info = infos[name]
            if info.node is None:
                continue
            keys = [CPU, MEMORY, PODS, *sorted(info.allocatable.scalar)]
            nodes.append(
                NodeAllocation(
                    name,
                    {k: info.allocatable.get(k) for k in keys},
                    {k: (len(info.pods) if k == PODS else info.requested.get(k)) for k in keys},
                    len(info.pods),
                )
            )
        explained = sched.report.explanations
        return SimulationResult(
            pods=pods,
            nodes=nodes,
            virtual_seconds=self.clock.now(),
            seed=self.seed,
            attempts=sum(r.attempts for r in sched.report.records.values()),
            explanations={k: explained[k] for k in self.explain if k in explained},
            timeline=list(self.timeline.points),
            latencies=self.timeline.latencies(),
        )

    def _report_sections(self, result: SimulationResult) -> list[ReportSection]:
        """What the hook modules add to the report, read from the cluster as it ends."""
        contributed = self.pm.hook.kubesched_report_sections(cluster=self.cluster, result=result)
        return collect_sections(contributed)

    def _evicted_result(
        self, sched: Scheduler, pod: Pod, preemption: Preemption | None, *, gone: bool
    ) -> PodResult:
        """A pod preemption evicted that has left the cluster (`gone`: Preempted), or one
        still on its node while its grace period runs (Terminating)."""
        meta = pod.metadata
        record = sched.report.records.get(meta.uid)
        if gone:
            assert preemption is not None
            status: PodOutcome = "Preempted"
            node, message = None, preemption.describe()
        else:
            ends = self.cluster.termination_ends(meta.name, meta.namespace)
            until = "terminating" if ends is None else f"terminating until {format_seconds(ends)}"
            cause = preemption.describe() if preemption is not None else "being deleted"
            status, node, message = "Terminating", pod.spec.node_name or None, f"{cause}; {until}"
        attempts = record.attempts if record is not None else 0
        return self._pod_record(pod, status, node, message, attempts, preemption)

    def _pod_result(self, sched: Scheduler, pod: Pod, preemption: Preemption | None) -> PodResult:
        meta = pod.metadata
        record = sched.report.records.get(meta.uid)
        attempts = record.attempts if record is not None else 0
        if meta.deletion_timestamp is not None:
            return self._evicted_result(sched, pod, preemption, gone=False)
        status: PodOutcome
        node: str | None = None
        message = ""
        fwk = sched.framework_for_pod(pod)
        if pod.spec.node_name and pod.is_terminal:
            # finished (the pod lifecycle): its node is where it ran
            status = "Succeeded" if pod.status.phase == "Succeeded" else "Failed"
            node = pod.spec.node_name
        elif pod.spec.node_name:
            status, node = "Bound", pod.spec.node_name
        elif fwk is None:
            status = "Pending"
            message = (
                f'no profile for schedulerName "{pod.spec.scheduler_name}": '
                f"pod left to another scheduler"
            )
        elif fwk.get_waiting_pod(meta.uid) is not None:
            status = "Waiting"
            wp = fwk.get_waiting_pod(meta.uid)
            pending = ", ".join(wp.get_pending_plugins()) if wp else ""
            message = f"waiting at Permit for: {pending}"
        else:
            cond = pod.status.condition(POD_SCHEDULED)
            gate = fwk.run_pre_enqueue_plugins(pod)
            if cond is not None and cond.reason == POD_REASON_SCHEDULING_GATED:
                # the API server's condition, until the scheduler writes one
                status, message = "Pending", cond.message
            elif not gate.is_success:
                # the SchedulingGates plugin's message is internal: a gated pod shows its
                # condition, as kubectl would
                status, message = "Pending", gate.message()
                if pod.spec.scheduling_gates:
                    message = cond.message if cond is not None else SCHEDULING_GATED_MESSAGE
            elif cond is not None and cond.reason == _SCHEDULER_ERROR:
                error = record.error if record is not None else None
                return self._pod_record(pod, "Error", None, cond.message, attempts, error=error)
            elif cond is not None and cond.status == "False":
                status, message = "Unschedulable", cond.message
            else:
                status, message = "Pending", "not attempted yet"
        return self._pod_record(pod, status, node, message, attempts)

    def _pod_record(
        self,
        pod: Pod,
        status: PodOutcome,
        node: str | None,
        message: str,
        attempts: int,
        preemption: Preemption | None = None,
        *,
        error: AttemptError | None = None,
    ) -> PodResult:
        times = self.timeline.times.get(pod.metadata.uid)
        return PodResult(
            namespace=pod.metadata.namespace or "default",
            name=pod.metadata.name,
            scheduler_name=pod.spec.scheduler_name,
            node=node,
            status=status,
            message=message,
            attempts=attempts,
            nominated_node=pod.status.nominated_node_name or None,
            preempted_by=preemption.by if preemption is not None else None,
            preempted_at=preemption.at if preemption is not None else None,
            error=error,
            times=dataclasses.replace(times) if times is not None else None,
        )


def simulate(
    paths: Sequence[str | os.PathLike[str]],
    *,
    config: str | os.PathLike[str] | None = None,
    seed: int = 0,
    until: float | None = None,
    progress: Progress | None = None,
    explain: Sequence[str] = (),
    validate: FieldValidation = "strict",
    warn: Warn | None = None,
    fast_path: bool | None = None,
    scenario: str | os.PathLike[str] | None = None,
    observers: Sequence[SchedulerObserver] = (),
    faults: str | os.PathLike[str] | None = None,
) -> SimulationResult:
    """Load manifests and a config, simulate, and return where every pod went.

    `explain` names pods (`name` in the default namespace, or `namespace/name`) whose last
    attempt is explained plugin by plugin in `SimulationResult.explanations`. `validate`
    and `warn` say what an unknown field in a manifest is (see `load_manifests`).
    `fast_path` False keeps the per-node Filter/Score path (same placements, slower).
    `scenario` is a scenario file (`kubesched.simulate._scenario`): its steps run at their
    virtual times and its checkpoints go into `SimulationResult.checkpoints`; it is read
    and checked against the manifests before the run. `observers` watch the scheduling
    loop after its report (the HTML report's `AttemptLog` records every attempt so).
    `faults` is a fault plan file (`kubesched.simulate._faults`), read and checked against
    the configuration before the run; what fired is the report's `faults` section."""
    pm = make_plugin_manager()
    register_workloads(pm)
    registry = PluginRegistry.discover()
    source = os.fspath(config) if config is not None else None
    resolved = resolve(load_config(config), registry, source)
    loaded = load_manifests(paths, default_kinds(pm), validate=validate, warn=warn)
    _check_explained(explain, loaded.objects)
    steps = None
    if scenario is not None:
        kinds = default_kinds(pm)
        steps = load_scenario(scenario, kinds, validate=validate, warn=warn)
        check_scenario(steps, loaded.objects, kinds)
    plan = None
    if faults is not None:
        plan = load_fault_plan(faults)
        check_fault_plan(plan, resolved, default_kinds(pm))
    sim = Simulation(
        loaded.objects,
        resolved,
        registry,
        seed=seed,
        until=until,
        progress=progress,
        hooks=pm,
        explain=explain,
        origins=loaded.origins,
        fast_path=fast_path,
        scenario=steps,
        faults=plan,
    )
    sim.observers.extend(observers)
    result = sim.run()
    result.skipped = group_skipped(loaded.skipped)
    result.objects = len(loaded.objects)
    result.files = list(loaded.files)
    result.left_out = list(resolved.profiles[0].left_out) if resolved.profiles else []
    return result


def _check_explained(explain: Sequence[str], objects: Sequence[K8sModel]) -> None:
    """Every pod `explain` names is in the input (UnknownPodError, with the closest
    names, before a long run is spent on a typo)."""
    keys = {o.key for o in objects if isinstance(o, Pod)}
    for name in explain:
        key = name if "/" in name else f"default/{name}"
        if key not in keys:
            close = sorted(difflib.get_close_matches(key, keys, n=3, cutoff=0.6))
            raise UnknownPodError("--explain", key, close)
