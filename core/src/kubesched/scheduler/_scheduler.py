"""Scheduler: the loop that pops pods and runs scheduling and binding cycles.

Upstream: pkg/scheduler/schedule_one.go (ScheduleOne, schedulingCycle, bindingCycle,
handleBindingCycleError, handleSchedulingFailure) and scheduler.go (Run). The pieces are
built by `new_scheduler` (`_factory`); what reports need is told to the observers
(`_observers`) at fixed points, the loop keeps no report state; what a failure becomes
(requeue, condition) is `_failure`'s.

One asyncio loop: a scheduling cycle runs start to finish without awaiting (cycles are
serial); each binding cycle is a task (they run concurrently, waiting on Permit or PreBind
without blocking scheduling). Cluster events are handled between cycles.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pluggy

from kubesched.api import Pod
from kubesched.cache import SchedulerCache
from kubesched.clock import Clock
from kubesched.cluster import Cluster
from kubesched.framework import (
    Code,
    CycleState,
    FitError,
    NominatingInfo,
    QueuedPodInfo,
    Snapshot,
    Status,
    WaitingPod,
)
from kubesched.queue import SchedulingQueue
from kubesched.runtime import Framework
from kubesched.scheduler._algorithm import (
    NoNodesAvailableError,
    ScheduleResult,
    SchedulingAlgorithm,
    StatusError,
)
from kubesched.scheduler._event_handlers import EventHandlers
from kubesched.scheduler._failure import (
    CLEAR_NOMINATION,
    failure_condition,
    log_error,
    nominated_node,
    requeue,
    single_node_failure,
    update_pod,
)
from kubesched.scheduler._gc import initial_load_gc, scheduling_gc
from kubesched.scheduler._observers import ObserverList
from kubesched.scheduler._recorder import ClusterEventRecorder, truncate_message
from kubesched.scheduler._report import SchedulingReport

__all__ = ["Scheduler"]

PODS_TO_ACTIVATE_KEY = "kubernetes.io/pods-to-activate"


class Scheduler:
    """Schedules the pods of its profiles; built by `new_scheduler` (`_factory`)."""

    def __init__(
        self,
        cluster: Cluster,
        *,
        clock: Clock,
        cache: SchedulerCache,
        snapshot: Snapshot,
        algorithm: SchedulingAlgorithm,
        profiles: dict[str, Framework],
        queue: SchedulingQueue,
        handlers: EventHandlers,
        recorder: ClusterEventRecorder,
        observers: ObserverList,
        report: SchedulingReport,
        hooks: pluggy.PluginManager | None = None,
    ) -> None:
        self.cluster = cluster
        self.clock = clock
        self.cache = cache
        self.snapshot = snapshot
        self.algorithm = algorithm
        self.profiles = profiles
        self.queue = queue
        self.handlers = handlers
        self.recorder = recorder
        """The Event broadcaster of the profiles (and of leader election)."""
        self.observers = observers
        """Told at each observation point (`_observers`); `report` is one of them."""
        self.report = report
        self.hooks = hooks
        self._binding_tasks: set[asyncio.Task[None]] = set()
        self._side_tasks: set[asyncio.Task[None]] = set()
        self._stopped = False

    # -- lifecycle ----------------------------------------------------------------------
    def start_watching(self) -> None:
        """Register the informer handlers on the cluster (nodes first, then pods)."""
        self.handlers.register(self.cluster)

    async def wait_for_sync(self) -> None:
        """Until the cluster's informers have listed everything and the handlers have it
        (the initial load, with the collector tuned for it: `_gc`)."""
        with initial_load_gc():
            await self.cluster.wait_for_sync()

    async def run(self) -> None:
        """Schedule until `stop()`; handlers must have been registered."""
        await self.wait_for_sync()
        with scheduling_gc():  # the initial load frozen, fewer collections (see _gc)
            while not self._stopped:
                qpi = await self.queue.pop()
                if qpi is None:
                    break
                self.schedule_one(qpi)
                # let binding tasks and event delivery run between cycles
                await asyncio.sleep(0)

    def stop(self) -> None:
        self._stopped = True
        self.queue.close()

    def abort(self) -> None:
        """Stop at once: no new cycle, binding cycles and status writes cancelled."""
        self.stop()
        for task in [*self._binding_tasks, *self._side_tasks]:
            task.cancel()

    def reject_waiting_pods(self, message: str) -> int:
        """Reject every pod waiting at Permit: their binding cycles roll back."""
        waiting: list[WaitingPod] = []
        for fwk in self.profiles.values():
            fwk.iterate_over_waiting_pods(waiting.append)
        return sum(1 for wp in waiting if wp.reject("", message))

    @property
    def cycles_in_flight(self) -> bool:
        """Whether binding cycles or status writes are still running (Events aside)."""
        return bool(self._binding_tasks or self._side_tasks)

    @property
    def busy(self) -> bool:
        """Whether anything is in flight: binding cycles, status writes, events."""
        return bool(self._binding_tasks or self._side_tasks) or self.recorder.busy

    def waiting_pod_count(self) -> int:
        return sum(len(f.waiting_pods) for f in self.profiles.values())

    async def drain(self) -> None:
        """Wait for in-flight binding cycles and status writes (shutdown)."""
        while self._binding_tasks or self._side_tasks:
            await asyncio.gather(*self._binding_tasks, *self._side_tasks, return_exceptions=True)
        await self.recorder.flush()

    # -- the scheduling cycle -----------------------------------------------------------
    def framework_for_pod(self, pod: Pod) -> Framework | None:
        return self.profiles.get(pod.spec.scheduler_name)

    def schedule_one(self, qpi: QueuedPodInfo) -> None:
        """One scheduling cycle for a popped pod; starts its binding cycle on success."""
        pod = qpi.pod
        self.observers.pod_popped(qpi)
        fwk = self.framework_for_pod(pod)
        if fwk is None:  # cannot happen for queued pods; upstream logs and drops it
            self.queue.done(pod.metadata.uid)
            return
        if pod.is_terminating:  # upstream schedule_one.go skipPodSchedule
            ns = pod.metadata.namespace or "default"
            message = f"skip schedule deleting pod: {ns}/{pod.metadata.name}"
            fwk.event_recorder.event(pod, "Warning", "FailedScheduling", "Scheduling", message)
        if pod.is_terminating or self.cache.is_assumed_pod(pod):
            self.queue.done(pod.metadata.uid)
            return
        state = CycleState()
        pods_to_activate: dict[str, Pod] = {}
        state.write(PODS_TO_ACTIVATE_KEY, pods_to_activate)
        self.observers.attempt_started(qpi, fwk, state)
        result, assumed, status, nominating = self._scheduling_cycle(fwk, state, qpi)
        self.observers.cycle_ended(pod, result, status)
        if not status.is_success:
            self._handle_failure(fwk, qpi, status, nominating)
            return
        if pods_to_activate:
            self.queue.activate(list(pods_to_activate.values()))
            pods_to_activate.clear()
        assert result is not None and assumed is not None
        waiting = fwk.get_waiting_pod(pod.metadata.uid) is not None
        self.observers.binding_started(pod, fwk, waiting)
        task = asyncio.get_running_loop().create_task(
            self._binding_cycle(fwk, state, qpi, assumed, result, pods_to_activate)
        )
        self._binding_tasks.add(task)
        task.add_done_callback(self._binding_tasks.discard)

    def _scheduling_cycle(
        self, fwk: Framework, state: CycleState, qpi: QueuedPodInfo
    ) -> tuple[ScheduleResult | None, Pod | None, Status, NominatingInfo | None]:
        pod = qpi.pod
        qpi.pod_info.share()  # the plugins' PodInfo.of(pod): values derived once per cycle
        self.cache.update_snapshot(self.snapshot)
        try:
            result = self.algorithm.schedule_pod(fwk, state, pod)
        except NoNodesAvailableError as exc:
            status = Status(Code.UnschedulableAndUnresolvable, error=exc)
            return None, None, status, CLEAR_NOMINATION
        except FitError as fit:
            if not fwk.has_post_filter_plugins():
                return None, None, Status(Code.Unschedulable, error=fit), None
            post_result, post_status = fwk.run_post_filter_plugins(
                state, pod, fit.diagnosis.node_to_status
            )
            fit.diagnosis.post_filter_msg = post_status.message()
            nominating = post_result.nominating_info if post_result is not None else None
            return None, None, Status(Code.Unschedulable, error=fit), nominating
        except StatusError as err:
            return None, None, err.status, CLEAR_NOMINATION
        self.observers.host_selected(pod)

        host = result.suggested_host
        # a copy sharing all but spec with the queued pod, which nobody mutates
        assumed = pod.model_copy(update={"spec": pod.spec.model_copy(update={"node_name": host})})
        try:
            self.cache.assume_pod(assumed, qpi.pod_info.updated(assumed))
        except Exception as exc:
            return None, None, Status.as_error(exc), CLEAR_NOMINATION
        self.queue.delete_nominated_pod_if_exists(pod)

        status = fwk.run_reserve_plugins_reserve(state, assumed, host)
        if not status.is_success:
            self._unreserve_and_forget(fwk, state, assumed, host)
            return None, None, single_node_failure(pod, host, status), CLEAR_NOMINATION

        status = fwk.run_permit_plugins(state, assumed, host)
        if not status.is_success and not status.is_wait:
            self._unreserve_and_forget(fwk, state, assumed, host)
            return None, None, single_node_failure(pod, host, status), CLEAR_NOMINATION
        return result, assumed, Status(), None

    def _unreserve_and_forget(self, fwk: Framework, state: CycleState, pod: Pod, host: str) -> bool:
        fwk.run_reserve_plugins_unreserve(state, pod, host)
        try:
            self.cache.forget_pod(pod)
        except Exception:
            return False
        return True

    # -- the binding cycle --------------------------------------------------------------
    async def _binding_cycle(
        self,
        fwk: Framework,
        state: CycleState,
        qpi: QueuedPodInfo,
        assumed: Pod,
        result: ScheduleResult,
        pods_to_activate: dict[str, Pod],
    ) -> None:
        host = result.suggested_host
        status = await fwk.wait_on_permit(assumed)
        if not status.is_success:
            status = single_node_failure(qpi.pod, host, status)
        else:
            # v1.34: the pod is no longer in flight once it passed Permit
            self.queue.done(assumed.metadata.uid)
            status = await fwk.run_pre_bind_plugins(state, assumed, host)
            if not status.is_success:
                # v1.31 behaviour (documented choice): a PreBind rejection is a FitError, so
                # the plugin is recorded and its events can requeue the pod
                status = single_node_failure(qpi.pod, host, status)
            else:
                status = await fwk.run_bind_plugins(state, assumed, host)
                self.cache.finish_binding(assumed)
        if not status.is_success:
            self._handle_binding_failure(fwk, state, qpi, assumed, host, status)
            return
        ns, name = assumed.metadata.namespace or "default", assumed.metadata.name
        message = f"Successfully assigned {ns}/{name} to {host}"
        fwk.event_recorder.event(assumed, "Normal", "Scheduled", "Binding", message)
        self.observers.pod_bound(assumed, host, fwk)
        await fwk.run_post_bind_plugins(state, assumed, host)
        if pods_to_activate:
            self.queue.activate(list(pods_to_activate.values()))
        if self.hooks is not None:
            self.hooks.hook.kubesched_pod_scheduled(
                pod=assumed, node_name=host, profile=fwk.profile_name
            )

    def _handle_binding_failure(
        self,
        fwk: Framework,
        state: CycleState,
        qpi: QueuedPodInfo,
        assumed: Pod,
        host: str,
        status: Status,
    ) -> None:
        forgot = self._unreserve_and_forget(fwk, state, assumed, host)
        self._handle_failure(fwk, qpi, status, CLEAR_NOMINATION)
        if forgot:
            # the assumed pod's resources are free again: like an assigned pod deleted
            self.handlers.assigned_pod_freed(assumed)

    # -- failures -----------------------------------------------------------------------
    def _handle_failure(
        self,
        fwk: Framework,
        qpi: QueuedPodInfo,
        status: Status,
        nominating: NominatingInfo | None,
    ) -> None:
        """Upstream handleSchedulingFailure: requeue, nominate, event and condition."""
        pod = qpi.pod
        requeue(self.queue, self.cluster, qpi, status, nominating)
        self.observers.attempt_failed(pod, fwk, status, nominating)
        if not status.is_rejected:
            log_error(pod, status)
        msg = truncate_message(status.message())
        fwk.event_recorder.event(pod, "Warning", "FailedScheduling", "Scheduling", msg)
        condition = failure_condition(status)
        self._spawn(update_pod(self.cluster, pod, condition, nominated_node(nominating)))
        if self.hooks is not None:
            self.hooks.hook.kubesched_attempt_failed(
                pod=pod, profile=fwk.profile_name, code=str(status.code), message=status.message()
            )

    def _spawn(self, coro: Any) -> None:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coro)
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)

    # -- helpers used by reports and tests ----------------------------------------------
    def unknown_profile_pods(self) -> Sequence[Pod]:
        """Unbound pods whose schedulerName matches no profile (not queued, not dropped)."""
        return self.handlers.foreign_pods()
