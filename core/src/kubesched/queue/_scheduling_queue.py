"""The scheduling queue: active heap, backoff heap, unschedulable pool, in-flight pods,
and the nominator, behind one object.

Upstream: pkg/scheduler/backend/queue/scheduling_queue.go (PriorityQueue), v1.34 semantics
with QueueingHints enabled (the default since v1.32). Decisions where versions differ or
where kubesched deliberately departs:

- Backoff counting is v1.34's: a pod backs off by its `consecutive_errors_count` once it
  has errors, else by its `unschedulable_count` (rejections); duration = initial *
  2^(n-1) capped at max, n = 0 -> none. `add_unschedulable_if_not_present` increments the
  right counter (a rejection resets the errors) and refreshes `timestamp`. Rejected and
  erring pods wait in two heaps (`_backoff.py`).
- SchedulerPopFromBackoffQ (KEP-5142, on by default in v1.34; the `pop_from_backoff`
  argument, else the feature gate): when the active queue is empty, `pop` takes the head of
  the rejected pods' backoff heap at once, backoff ended or not. Backoff ends are truncated
  to 1 s windows, pods of a window are ordered by QueueSort, and PreEnqueue runs when a pod
  enters the backoff queue instead of when it leaves it. A pod popped early is an ordinary
  attempt: attempts and the cycle count up, and a new rejection doubles its next backoff.
- No periodic flushing: instead of ticking every 1 s (backoff) and every 30 s (leftovers),
  the queue knows its next wake-up (the next backoff end, the earliest pool deadline =
  entry + `max_in_unschedulable`) and `pop` sleeps exactly until then. A pod therefore leaves
  the unschedulable pool exactly 5 min after it was put there (upstream: 5 to 5.5 min).
  Deadlines count from when the pod entered the pool; a gated pod that is still gated
  when its deadline passes re-enters with a fresh deadline.
- QueueingHints: events seen while pods are in flight are replayed by
  `add_unschedulable_if_not_present`; a pod with no rejector plugins goes to backoff; a
  Pending plugin's Queue sends a pod straight to the active queue.
- Bulk moves check every pod of the pool (as upstream) but skip at once the pods none of
  whose rejector plugins registered for the event. Upstream's extra pre-filter of assigned-pod
  events (pods with matching affinity terms, or rejected by PodTopologySpread) is left to the
  hints.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, KeysView, Mapping, Sequence
from typing import Final

from kubesched.api import Pod
from kubesched.clock import Clock
from kubesched.features import feature_enabled
from kubesched.framework import (
    ClusterEvent,
    EventResource,
    NominatingInfo,
    PodInfo,
    QueuedPodInfo,
    Status,
    is_success,
)
from kubesched.queue._backoff import BackoffQueue
from kubesched.queue._heaps import ActiveQueue, LessFunc, UnschedulablePool
from kubesched.queue._hints import (
    FORCE_ACTIVATE,
    UNSCHEDULABLE_TIMEOUT,
    HintEvaluator,
    QueueingStrategy,
    QueueProfile,
    pod_update_action,
)
from kubesched.queue._in_flight import InFlightPods
from kubesched.queue._nominator import Nominator
from kubesched.queue._recorder import ACTIVE, BACKOFF, UNSCHEDULABLE, QueueMetricsRecorder

__all__ = ["SchedulingQueue"]

_log = logging.getLogger("kubesched.queue")

_EPS: Final = 1e-6
"""Slack when comparing a deadline with the clock, so float rounding in a virtual-time jump
(now + (deadline - now)) cannot leave a due pod waiting for a timer that already fired."""

_POD_ADD: Final = "UnscheduledPodAdd"
_POD_UPDATE: Final = "UnscheduledPodUpdate"
_BACKOFF_COMPLETE: Final = "BackoffComplete"
_POP_FROM_BACKOFF: Final = "PopFromBackoffQ"
_ATTEMPT_FAILURE: Final = "ScheduleAttemptFailure"


class SchedulingQueue:
    """Pods waiting to be scheduled, for every profile of one scheduler.

    All methods are meant to be called from the scheduler's event loop thread; only `pop`
    awaits. Pods are identified by `metadata.uid`.
    """

    def __init__(
        self,
        clock: Clock,
        less: LessFunc,
        profiles: Mapping[str, QueueProfile],
        initial_backoff: float = 1.0,
        max_backoff: float = 10.0,
        max_in_unschedulable: float = 300.0,
        *,
        pop_from_backoff: bool | None = None,
    ) -> None:
        """`pop_from_backoff` None reads the SchedulerPopFromBackoffQ feature gate, as
        upstream's NewPriorityQueue does. A `max_backoff` of 0 turns backoff off, as
        upstream's WithPodMaxBackoffDuration(0) (configuration validation never allows it)."""
        if initial_backoff <= 0 or 0 < max_backoff < initial_backoff or max_backoff < 0:
            raise ValueError(
                f"backoff must satisfy 0 < initial <= max (or max = 0: no backoff), got "
                f"initial={initial_backoff} max={max_backoff}"
            )
        if max_in_unschedulable <= 0:
            raise ValueError(f"max_in_unschedulable must be > 0, got {max_in_unschedulable}")
        if pop_from_backoff is None:
            pop_from_backoff = feature_enabled("SchedulerPopFromBackoffQ")
        self._clock = clock
        self._profiles = profiles
        self._max_in_unschedulable = max_in_unschedulable
        self._pop_from_backoff = pop_from_backoff
        self._active = ActiveQueue(less)
        self._backoff = BackoffQueue(
            clock, initial_backoff, max_backoff, less, pop_from_backoff=pop_from_backoff
        )
        self._pool = UnschedulablePool()
        self._in_flight = InFlightPods()
        self._hints = HintEvaluator(profiles)
        self._nominator = Nominator()
        self._recorder: QueueMetricsRecorder | None = None
        self._cycle = 0
        self._closed = False
        self._waiters: list[asyncio.Future[None]] = []

    # -- membership -----------------------------------------------------------------------
    def add(self, pod: Pod) -> None:
        """A new unscheduled pod: to the active queue, or to the pool if PreEnqueue gates it."""
        existing = self._find(pod.metadata.uid)
        if existing is not None:
            self.update(existing.pod, pod)
            return
        pinfo = QueuedPodInfo(PodInfo(pod), timestamp=self._clock.now())
        self._move_to_active(pinfo, _POD_ADD)

    def update(self, old: Pod, new: Pod) -> None:
        """An unscheduled pod changed (reference section 2.2)."""
        # upstream: scheduling_queue.go (Update)
        uid = new.metadata.uid
        event = ClusterEvent(EventResource.UnscheduledPod, pod_update_action(old, new))
        if uid in self._in_flight:
            # It comes back through add_unschedulable_if_not_present, which replays this.
            self._in_flight.record(event, old, new)
            return
        pinfo = self._active.get(uid)
        if pinfo is not None:
            pinfo.pod_info = PodInfo(new)
            self._active.push(pinfo)  # its order may have changed
            self._nominator.update_nominated_pod(old, pinfo.pod_info)
            return
        pinfo = self._backoff.get(uid)
        if pinfo is not None:
            pinfo.pod_info = PodInfo(new)
            self._backoff.push(pinfo)  # its order within a window may have changed
            self._nominator.update_nominated_pod(old, pinfo.pod_info)
            return
        pinfo = self._pool.get(uid)
        if pinfo is not None:
            pinfo.pod_info = PodInfo(new)
            self._nominator.update_nominated_pod(old, pinfo.pod_info)
            strategy = self._hints.strategy(pinfo, event, old, new)
            if strategy is not QueueingStrategy.SKIP:
                self._pool.remove(uid)
                self._requeue(pinfo, strategy, _POD_UPDATE)
            return
        self._move_to_active(QueuedPodInfo(PodInfo(new), timestamp=self._clock.now()), _POD_UPDATE)

    def delete(self, pod: Pod) -> None:
        """Forget a pod (deleted, or bound by someone else) wherever it waits."""
        self._nominator.delete_nominated_pod_if_exists(pod)
        uid = pod.metadata.uid
        if self._active.remove(uid) is None and self._backoff.remove(uid) is None:
            self._pool.remove(uid)

    def activate(self, pods: Sequence[Pod]) -> None:
        """Move pods from the pool or backoff straight to the active queue (PodsToActivate).

        Unknown pods are ignored; a pod in flight gets a ForceActivate event for itself, so
        it is requeued at once if its attempt fails.
        """
        # upstream: scheduling_queue.go (Activate)
        for pod in pods:
            uid = pod.metadata.uid
            pinfo = self._pool.get(uid) or self._backoff.remove(uid)
            if pinfo is not None:
                self._move_to_active(pinfo, FORCE_ACTIVATE.label)
            elif uid in self._in_flight:
                self._in_flight.record(FORCE_ACTIVATE, None, pod)

    # -- scheduling loop --------------------------------------------------------------------
    def pop_nowait(self) -> QueuedPodInfo | None:
        """The next pod to schedule, or None if none is ready (or the queue is closed).

        Due backoffs and pool leftovers are flushed first. With SchedulerPopFromBackoffQ an
        empty active queue gives the head of the rejected pods' backoff heap. The pod is
        marked in flight, its attempts and the scheduling cycle are incremented and its
        rejector plugins cleared.
        """
        # upstream: active_queue.go (unlockedPop, unlockedMovePodToInFlight)
        if self._closed:
            return None
        self.flush()
        pinfo = self._active.pop()
        if pinfo is None and self._pop_from_backoff:
            pinfo = self._backoff.pop_backoff()
            if pinfo is not None:
                _log.debug(
                    "pod %s popped from the backoff queue (%s)", pinfo.key, _POP_FROM_BACKOFF
                )
        if pinfo is None:
            return None
        pinfo.attempts += 1
        self._cycle += 1
        self._in_flight.start(pinfo)
        pinfo.unschedulable_plugins = set()
        pinfo.pending_plugins = set()
        return pinfo

    async def pop(self) -> QueuedPodInfo | None:
        """Wait for the next pod to schedule; None once the queue is closed.

        While nothing is ready it sleeps until `next_wakeup()` (a loop timer, so virtual time
        jumps straight there) or until a pod is added, whichever comes first.
        """
        loop = asyncio.get_running_loop()
        while not self._closed:
            pinfo = self.pop_nowait()
            if pinfo is not None:
                return pinfo
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append(waiter)
            wake_at = self.next_wakeup()
            timer = None if wake_at is None else loop.call_at(wake_at, _resolve, waiter)
            try:
                await waiter
            finally:
                if timer is not None:
                    timer.cancel()
                self._waiters.remove(waiter)
        return None

    def done(self, uid: str) -> None:
        """The pod's attempt (scheduling and binding) is over; stop recording events for it."""
        self._in_flight.done(uid)

    def add_unschedulable_if_not_present(self, pinfo: QueuedPodInfo, scheduling_cycle: int) -> None:
        """Requeue a pod whose attempt failed.

        The caller has set `unschedulable_plugins` / `pending_plugins`; a pod with rejector
        plugins counts one more rejection (`unschedulable_count`, errors reset), one without
        counts one more error (`consecutive_errors_count`), as upstream v1.34. The events
        seen while the pod was in flight decide where it goes (no rejectors -> backoff; an
        event a rejector's hint accepts -> backoff or active; otherwise the pool). Must be
        called before `done` for the pod (it calls `done` itself); a pod not in flight (its
        binding cycle failed after Permit) goes to the erring pods' backoff heap, rejectors
        or not: v1.34 records none for PreBind and Bind failures, so upstream never pops
        such a pod early (kubesched keeps the v1.31 rejector of a PreBind rejection, README,
        but an early pop would retry a pod its PreBind keeps rejecting in a loop that takes
        no time). `scheduling_cycle` is the cycle the pod was popped in (kept for the
        hint-less legacy rule; unused with hints).
        """
        # upstream: scheduling_queue.go (AddUnschedulableIfNotPresent)
        uid = pinfo.uid
        try:
            if uid in self._active or uid in self._backoff or uid in self._pool:
                _log.warning(
                    "pod %s (cycle %d) is already queued; not adding it again",
                    pinfo.key,
                    scheduling_cycle,
                )
                return
            if pinfo.unschedulable_plugins or pinfo.pending_plugins:
                pinfo.unschedulable_count += 1
                pinfo.consecutive_errors_count = 0
            else:  # no rejector: an unexpected error (a network issue, a plugin error ...)
                pinfo.consecutive_errors_count += 1
            pinfo.timestamp = self._clock.now()
            erring = uid not in self._in_flight
            self._requeue(pinfo, self._in_flight_strategy(pinfo), _ATTEMPT_FAILURE, erring=erring)
        finally:
            self._in_flight.done(uid)

    def move_all_to_active_or_backoff(
        self,
        event: ClusterEvent,
        old: object,
        new: object,
        pre_check: Callable[[Pod], bool] | None = None,
    ) -> None:
        """Offer `event` to every pod of the pool (that passes `pre_check`) and record it for
        the pods in flight. Events no plugin registered for are dropped at once."""
        # upstream: scheduling_queue.go (moveAllToActiveOrBackoffQueue)
        if not self._hints.is_event_of_interest(event):
            return
        interested = self._hints.interested_plugins(event)
        # pods a registration singles out: every other pod would get QueueSkip from all
        # the hints it asks, so only they, and pods no plugin rejected, are offered it
        targets = self._hints.pods_of_interest(event, old, new)
        if targets is not None:
            # usually none of them waits here: then no pod's uid is even read
            targets = {uid for uid in targets if uid in self._pool}
        candidates = [
            pinfo
            for pinfo in self._pool
            if (
                not (pinfo.unschedulable_plugins or pinfo.pending_plugins)
                or (
                    (targets is None or (targets and pinfo.uid in targets))
                    and (
                        interested is None
                        or not interested.isdisjoint(pinfo.unschedulable_plugins)
                        or not interested.isdisjoint(pinfo.pending_plugins)
                    )
                )
            )
            and (pre_check is None or pre_check(pinfo.pod))
        ]
        self._move_pods(candidates, event, old, new)

    def on_cluster_event(self, event: ClusterEvent, old: object, new: object) -> None:
        """Any cluster change (node, pod, other kinds): moves the pool pods it may help and
        records it for the pods in flight."""
        self.move_all_to_active_or_backoff(event, old, new)

    def flush(self) -> None:
        """Move pods whose backoff ended to the active queue and pods that stayed their
        maximum in the pool out of it (event UnschedulableTimeout)."""
        # upstream: scheduling_queue.go (flushBackoffQCompleted, flushUnschedulablePodsLeftover)
        for pinfo in self._backoff.pop_due():
            self._move_to_active(pinfo, _BACKOFF_COMPLETE)
        leftovers = self._pool.pop_due(self._clock.now() + _EPS)
        if leftovers:
            self._move_pods(leftovers, UNSCHEDULABLE_TIMEOUT, None, None, taken=True)

    def close(self) -> None:
        """Stop: `pop` returns None from now on."""
        self._closed = True
        self._notify()

    @property
    def scheduling_cycle(self) -> int:
        return self._cycle

    def next_wakeup(self) -> float | None:
        """When something is next due (a backoff end or a pool deadline), or None."""
        expiry = self._backoff.next_due()
        deadline = self._pool.next_deadline()
        if expiry is None:
            return deadline
        return expiry if deadline is None else min(expiry, deadline)

    # -- introspection ----------------------------------------------------------------------
    def pending_pods(self) -> dict[str, list[QueuedPodInfo]]:
        """The waiting pods by place: active (in pop order), backoff (by expiry), unschedulable."""
        return {
            "active": self._active.in_order(),
            "backoff": self._backoff.values(),
            "unschedulable": list(self._pool),
        }

    def in_flight_pods(self) -> list[QueuedPodInfo]:
        return self._in_flight.pods()

    def set_metrics_recorder(self, recorder: QueueMetricsRecorder | None) -> None:
        """Report pods entering each queue, QueueingHint calls and the events kept for pods
        in flight to `recorder`."""
        self._recorder = recorder
        self._hints.recorder = recorder
        self._in_flight.recorder = recorder

    def __len__(self) -> int:
        return len(self._active) + len(self._backoff) + len(self._pool)

    def is_idle(self) -> bool:
        """Nothing active, nothing backing off and nothing in flight (the pool may hold pods)."""
        return not self._active and not self._backoff and not self._in_flight

    # -- nominator (reference section 2.6) ----------------------------------------------------
    def add_nominated_pod(self, pod_info: PodInfo, nominating_info: NominatingInfo | None) -> None:
        self._nominator.add_nominated_pod(pod_info, nominating_info)

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        self._nominator.delete_nominated_pod_if_exists(pod)

    def update_nominated_pod(self, old: Pod, new_pod_info: PodInfo) -> None:
        self._nominator.update_nominated_pod(old, new_pod_info)

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return self._nominator.nominated_pods_for_node(node_name)

    def has_nominated_pods(self) -> bool:
        return self._nominator.has_nominated_pods()

    def nodes_with_nominated_pods(self) -> KeysView[str]:
        return self._nominator.nodes_with_nominated_pods()

    def nominated_pods_by_node(self) -> Mapping[str, Sequence[PodInfo]]:
        return self._nominator.nominated_pods_by_node()

    # -- internals ----------------------------------------------------------------------------
    def _find(self, uid: str) -> QueuedPodInfo | None:
        return self._active.get(uid) or self._backoff.get(uid) or self._pool.get(uid)

    def _notify(self) -> None:
        for waiter in self._waiters:
            _resolve(waiter)

    def _is_backing_off(self, pinfo: QueuedPodInfo) -> bool:
        if pinfo.gated and not self._pop_from_backoff:
            return False  # PreEnqueue decides on the way to the active queue
        return self._backoff.is_backing_off(pinfo)

    def _in_flight_strategy(self, pinfo: QueuedPodInfo) -> QueueingStrategy:
        # upstream: scheduling_queue.go (determineSchedulingHintForInFlightPod)
        if not pinfo.unschedulable_plugins and not pinfo.pending_plugins:
            return QueueingStrategy.AFTER_BACKOFF
        events = self._in_flight.events_for(pinfo.uid)
        if events is None:
            return QueueingStrategy.AFTER_BACKOFF
        result = QueueingStrategy.SKIP
        for recorded in events:
            strategy = self._hints.strategy(pinfo, recorded.event, recorded.old, recorded.new)
            if strategy is QueueingStrategy.IMMEDIATELY:
                return strategy
            if strategy is QueueingStrategy.AFTER_BACKOFF:
                if not pinfo.pending_plugins:
                    return strategy
                result = strategy
        return result

    def _move_pods(
        self,
        pods: Sequence[QueuedPodInfo],
        event: ClusterEvent,
        old: object,
        new: object,
        *,
        taken: bool = False,
    ) -> None:
        """Requeue the pool pods `event` may help; `taken` means they already left the pool."""
        # upstream: scheduling_queue.go (movePodsToActiveOrBackoffQueue)
        for pinfo in pods:
            if pinfo.gated and not self._hints.gating_plugin_cares(pinfo, event):
                if taken:
                    self._park(pinfo)
                continue
            strategy = self._hints.strategy(pinfo, event, old, new)
            if strategy is QueueingStrategy.SKIP:
                if taken:
                    self._park(pinfo)
                continue
            if not taken:
                self._pool.remove(pinfo.uid)
            self._requeue(pinfo, strategy, str(event))
        self._in_flight.record(event, old, new)

    def _requeue(
        self, pinfo: QueuedPodInfo, strategy: QueueingStrategy, label: str, *, erring: bool = False
    ) -> None:
        """Put a pod that is in no queue where `strategy` says (`erring`: in the erring pods'
        backoff heap, whatever its rejectors)."""
        # upstream: scheduling_queue.go (requeuePodWithQueueingStrategy)
        if strategy is QueueingStrategy.SKIP:
            self._park(pinfo, label)
        elif strategy is QueueingStrategy.AFTER_BACKOFF and self._is_backing_off(pinfo):
            self._move_to_backoff(pinfo, label, erring=erring)
        else:
            self._move_to_active(pinfo, label)

    def _move_to_backoff(
        self, pinfo: QueuedPodInfo, label: str = "", *, erring: bool = False
    ) -> None:
        """Back off; with SchedulerPopFromBackoffQ PreEnqueue runs here (a pod may be popped
        from the backoff queue directly) and a gated pod goes to the pool instead."""
        # upstream: scheduling_queue.go (moveToBackoffQ)
        if self._pop_from_backoff:
            self._run_pre_enqueue(pinfo)
            if pinfo.gated:
                self._park(pinfo, label)
                return
        self._backoff.push(pinfo, erring=erring)
        self._notify()
        self._incoming(BACKOFF, label, pinfo)

    def _park(self, pinfo: QueuedPodInfo, label: str = "") -> None:
        """Into the unschedulable pool; `label` is the event that sends it there (none for a
        pod that only goes back where it was)."""
        if self._pool.add(pinfo, self._clock.now() + self._max_in_unschedulable):
            self._notify()
            self._incoming(UNSCHEDULABLE, label, pinfo)

    def _incoming(self, queue: str, label: str, pinfo: QueuedPodInfo) -> None:
        # upstream: metrics.SchedulerQueueIncomingPods.WithLabelValues(queue, event).Inc()
        if self._recorder is not None and label:
            self._recorder.pod_incoming(queue, label, pinfo)

    def _move_to_active(self, pinfo: QueuedPodInfo, label: str) -> bool:
        """Run PreEnqueue; passing pods go to the active queue, gated ones to the pool."""
        # upstream: scheduling_queue.go (moveToActiveQ): with SchedulerPopFromBackoffQ a pod
        # leaving the backoff queue passed PreEnqueue on the way in
        if not (self._pop_from_backoff and label == _BACKOFF_COMPLETE):
            self._run_pre_enqueue(pinfo)
        uid = pinfo.uid
        if pinfo.gated:
            if uid not in self._active and uid not in self._backoff:
                self._park(pinfo, label)
            return False
        if pinfo.initial_attempt_timestamp is None:
            pinfo.initial_attempt_timestamp = self._clock.now()
        self._pool.remove(uid)
        self._backoff.remove(uid)
        self._active.push(pinfo)
        self._notify()
        self._incoming(ACTIVE, label, pinfo)
        if label in (_POD_ADD, _POD_UPDATE):
            self._nominator.add_nominated_pod(pinfo.pod_info, None)
        return True

    def _run_pre_enqueue(self, pinfo: QueuedPodInfo) -> None:
        """PreEnqueue plugins in order (the plugin that gated the pod last time first); the
        first failure gates the pod and records the plugin as a rejector."""
        # upstream: scheduling_queue.go (runPreEnqueuePlugins)
        profile = self._profiles.get(pinfo.pod.spec.scheduler_name)
        if profile is None or not profile.pre_enqueue:
            pinfo.gated, pinfo.gating_plugin = False, ""
            return
        plugins = profile.pre_enqueue
        gating = pinfo.gating_plugin
        if gating:
            first = [p for p in plugins if p.name == gating]
            plugins = first + [p for p in plugins if p.name != gating]
        for plugin in plugins:
            try:
                status = plugin.pre_enqueue(pinfo.pod)
            except Exception as exc:  # a broken plugin gates the pod, never the scheduler
                _log.exception("PreEnqueue plugin %s failed on pod %s", plugin.name, pinfo.key)
                status = Status.as_error(exc)
            if not is_success(status):
                pinfo.unschedulable_plugins.add(plugin.name)
                pinfo.gated, pinfo.gating_plugin = True, plugin.name
                return
        pinfo.gated, pinfo.gating_plugin = False, ""


def _resolve(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
