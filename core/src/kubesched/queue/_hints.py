"""Queue profiles and the QueueingHint rules that decide where a rejected pod goes next.

Upstream: pkg/scheduler/backend/queue/scheduling_queue.go (isEventOfInterest,
isPodWorthRequeuing, queueingStrategy) and pkg/scheduler/framework/events.go
(PodSchedulingPropertiesChange).
"""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from kubesched.api import Pod, pod_requests
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    PreEnqueuePlugin,
    QueuedPodInfo,
    QueueingHint,
)
from kubesched.queue._recorder import HINT_ERROR, QueueMetricsRecorder

__all__ = [
    "FORCE_ACTIVATE",
    "UNSCHEDULABLE_TIMEOUT",
    "HintEvaluator",
    "QueueProfile",
    "QueueingStrategy",
    "pod_update_action",
]

_log = logging.getLogger("kubesched.queue")

UNSCHEDULABLE_TIMEOUT: Final = ClusterEvent(
    EventResource.Wildcard, ActionType.All, "UnschedulableTimeout"
)
"""The wildcard event a pod leaves the unschedulable pool with after the maximum stay."""

FORCE_ACTIVATE: Final = ClusterEvent(EventResource.Wildcard, ActionType.All, "ForceActivate")
"""The wildcard event of `activate`; its new object names the one pod it is for."""

_MEMO_LIMIT: Final = 10_000


@dataclass
class QueueProfile:
    """What the queue needs from one scheduler profile.

    `pre_enqueue` gates entry to the active queue, in order. `hints` maps each plugin name to
    its `events_to_register()`; the runtime registers plugins that do not declare any for
    every event (`ClusterEventWithHint(ClusterEvent("*", ActionType.All))`). A plugin absent
    from `hints` is moved only by wildcard events and the unschedulable-pool timeout.
    """

    pre_enqueue: list[PreEnqueuePlugin] = field(default_factory=list)
    hints: Mapping[str, list[ClusterEventWithHint]] = field(default_factory=dict)


class QueueingStrategy(enum.IntEnum):
    """Where a pod in the unschedulable pool goes after an event, by increasing urgency."""

    SKIP = 0
    """Stay in the unschedulable pool."""
    AFTER_BACKOFF = 1
    """Backoff queue while still backing off, active queue otherwise."""
    IMMEDIATELY = 2
    """Active queue, skipping any remaining backoff (a Pending plugin said Queue)."""


def pod_update_action(old: Pod, new: Pod) -> ActionType:
    """The update bits of a pod change, as a plugin registering pod updates sees them.

    Labels changed -> UpdatePodLabel; tolerations changed -> UpdatePodToleration; every
    scheduling gate removed -> UpdatePodSchedulingGatesEliminated; some request lowered or
    dropped -> UpdatePodScaleDown; `status.resourceClaimStatuses` changed ->
    UpdatePodGeneratedResourceClaim; none of these -> UpdateOther.
    """
    # upstream: pkg/scheduler/framework/events.go (PodSchedulingPropertiesChange)
    action = ActionType(0)
    if old.metadata.labels != new.metadata.labels:
        action |= ActionType.UpdatePodLabel
    if old.spec.tolerations != new.spec.tolerations:
        action |= ActionType.UpdatePodToleration
    if old.spec.scheduling_gates and not new.spec.scheduling_gates:
        action |= ActionType.UpdatePodSchedulingGatesEliminated
    if _scaled_down(old, new):
        action |= ActionType.UpdatePodScaleDown
    if old.status.resource_claim_statuses != new.status.resource_claim_statuses:
        # the resourceclaim controller recorded the claims it made for the pod
        action |= ActionType.UpdatePodGeneratedResourceClaim
    return action or ActionType.UpdateOther


def _scaled_down(old: Pod, new: Pod) -> bool:
    if (
        old.spec.containers == new.spec.containers
        and old.spec.init_containers == new.spec.init_containers
        and old.spec.overhead == new.spec.overhead
        and old.spec.resources == new.spec.resources
    ):
        return False
    old_req, new_req = pod_requests(old), pod_requests(new)
    return any(name not in new_req or new_req[name] < q for name, q in old_req.items())


class HintEvaluator:
    """Answers, for a pod rejected by some plugins and a cluster event, where it should go.

    Matching registrations are looked up once per (profile, plugin, event) and kept, so the
    per-pod cost of an event is a few dictionary look-ups plus the hint calls themselves.
    """

    def __init__(self, profiles: Mapping[str, QueueProfile]) -> None:
        self._profiles = profiles
        seen: dict[ClusterEvent, None] = {}
        for profile in profiles.values():
            for registrations in profile.hints.values():
                for reg in registrations:
                    seen[reg.event] = None
        self._registered = tuple(seen)
        self._interest: dict[ClusterEvent, bool] = {}
        self._interested_plugins: dict[ClusterEvent, frozenset[str]] = {}
        self._matching: dict[tuple[str, str, ClusterEvent], tuple[ClusterEventWithHint, ...]] = {}
        self._matching_all: dict[ClusterEvent, tuple[tuple[str, ClusterEventWithHint], ...]] = {}
        self.recorder: QueueMetricsRecorder | None = None
        """Told of every hint call and its duration (set by the queue's metrics)."""

    def is_event_of_interest(self, event: ClusterEvent) -> bool:
        """Whether any plugin of any profile registered an event matching `event`."""
        # upstream: scheduling_queue.go (isEventOfInterest)
        if event.is_wildcard:
            return True
        known = self._interest.get(event)
        if known is None:
            known = any(reg.matches(event) for reg in self._registered)
            self._remember(self._interest, event, known)
        return known

    def interested_plugins(self, event: ClusterEvent) -> frozenset[str] | None:
        """Names of plugins (in any profile) registered for `event`; None for a wildcard."""
        if event.is_wildcard:
            return None
        names = self._interested_plugins.get(event)
        if names is None:
            names = frozenset(name for name, _ in self._registrations(event))
            self._remember(self._interested_plugins, event, names)
        return names

    def _registrations(self, event: ClusterEvent) -> tuple[tuple[str, ClusterEventWithHint], ...]:
        """(plugin, registration) of every registration matching `event`, any profile."""
        regs = self._matching_all.get(event)
        if regs is None:
            regs = tuple(
                (name, reg)
                for profile in self._profiles.values()
                for name, registrations in profile.hints.items()
                for reg in registrations
                if reg.event.matches(event)
            )
            self._remember(self._matching_all, event, regs)
        return regs

    def pods_of_interest(
        self, event: ClusterEvent, old: object, new: object
    ) -> Collection[str] | None:
        """The uids of the only pods whose hints for `event` may answer Queue, when every
        registration matching it (in any profile) names them; None: any pod may."""
        if event.is_wildcard:
            return None
        regs = [reg for _, reg in self._registrations(event)]
        if not regs or any(r.hint is None or r.pods_of_interest is None for r in regs):
            return None
        uids: set[str] = set()
        for reg in regs:
            assert reg.pods_of_interest is not None
            found = reg.pods_of_interest(old, new)
            if found is None:
                return None
            uids.update(found)
        return uids

    def gating_plugin_cares(self, pinfo: QueuedPodInfo, event: ClusterEvent) -> bool:
        """Whether `event` could lift the PreEnqueue gate holding `pinfo` (a cheap pre-check
        before bulk moves, since gated pods can be many)."""
        if event.is_wildcard:
            return True
        profile_name = pinfo.pod.spec.scheduler_name
        profile = self._profiles.get(profile_name)
        if profile is None or pinfo.gating_plugin not in profile.hints:
            return True
        return bool(self._matching_hints(profile_name, profile, pinfo.gating_plugin, event))

    def strategy(
        self, pinfo: QueuedPodInfo, event: ClusterEvent, old: object, new: object
    ) -> QueueingStrategy:
        """Section 2.4 of the reference: no rejectors or a wildcard -> after backoff; else ask
        the hints of the rejector plugins registered for `event` (a hint that raises counts as
        Queue; a Pending plugin's Queue wins and skips backoff)."""
        # upstream: scheduling_queue.go (isPodWorthRequeuing)
        pending = pinfo.pending_plugins
        unschedulable = pinfo.unschedulable_plugins
        if not pending and not unschedulable:
            return QueueingStrategy.AFTER_BACKOFF
        if event.is_wildcard:
            # A wildcard event carrying a pod is meant for that pod only (ForceActivate).
            if isinstance(new, Pod) and new.metadata.uid != pinfo.uid:
                return QueueingStrategy.SKIP
            return QueueingStrategy.AFTER_BACKOFF
        profile_name = pinfo.pod.spec.scheduler_name
        profile = self._profiles.get(profile_name)
        if profile is None:
            return QueueingStrategy.AFTER_BACKOFF
        result = QueueingStrategy.SKIP
        # Pending plugins first: their Queue is the strongest answer.
        for plugin in (*pending, *(p for p in unschedulable if p not in pending)):
            for reg in self._matching_hints(profile_name, profile, plugin, event):
                if self._call_hint(plugin, reg, pinfo, event, old, new) is QueueingHint.QueueSkip:
                    continue
                if plugin in pending:
                    return QueueingStrategy.IMMEDIATELY
                if not pending:
                    return QueueingStrategy.AFTER_BACKOFF
                result = QueueingStrategy.AFTER_BACKOFF
        return result

    # -- helpers --------------------------------------------------------------------------
    def _matching_hints(
        self, profile_name: str, profile: QueueProfile, plugin: str, event: ClusterEvent
    ) -> tuple[ClusterEventWithHint, ...]:
        key = (profile_name, plugin, event)
        regs = self._matching.get(key)
        if regs is None:
            regs = tuple(r for r in profile.hints.get(plugin, ()) if r.event.matches(event))
            self._remember(self._matching, key, regs)
        return regs

    def _call_hint(
        self,
        plugin: str,
        reg: ClusterEventWithHint,
        pinfo: QueuedPodInfo,
        event: ClusterEvent,
        old: object,
        new: object,
    ) -> QueueingHint:
        recorder = self.recorder
        if recorder is None:
            return self._run_hint(plugin, reg, pinfo, event, old, new)[0]
        # upstream: scheduling_queue.go isPodWorthRequeuing (ObserveQueueingHintDurationAsync)
        started = time.perf_counter()
        hint, label = self._run_hint(plugin, reg, pinfo, event, old, new)
        recorder.queueing_hint_ran(plugin, str(event), label, time.perf_counter() - started)
        return hint

    @staticmethod
    def _run_hint(
        plugin: str,
        reg: ClusterEventWithHint,
        pinfo: QueuedPodInfo,
        event: ClusterEvent,
        old: object,
        new: object,
    ) -> tuple[QueueingHint, str]:
        """The hint's answer, and its label (HINT_ERROR when it raised)."""
        if reg.hint is None:
            return QueueingHint.Queue, QueueingHint.Queue.name
        try:
            answer = reg.hint(pinfo.pod, old, new)
        except Exception:
            # A failing hint must not strand the pod in the pool (upstream treats it as Queue).
            _log.exception(
                "queueing hint of plugin %s failed for pod %s on event %s; treating as Queue",
                plugin,
                pinfo.key,
                event,
            )
            return QueueingHint.Queue, HINT_ERROR
        hint = QueueingHint.QueueSkip if answer == QueueingHint.QueueSkip else QueueingHint.Queue
        return hint, hint.name

    @staticmethod
    def _remember(memo: dict[Any, Any], key: Any, value: Any) -> None:
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        memo[key] = value
