"""Event recorders: what kube-scheduler's profiles and its leader election record, as Events.

Upstream: kube-scheduler makes one events.k8s.io/v1 recorder per profile
(pkg/scheduler/profile/profile.go: `recorderFact(cfg.SchedulerName)`, client-go
events `NewRecorder(scheme, reportingController)`), so an Event's reportingController is
the profile's schedulerName and its reportingInstance `<schedulerName>-<hostname>`; and a
core/v1 recorder whose source component is the first profile's schedulerName for leader
election (cmd/kube-scheduler/app/options/options.go: `DeprecatedNewLegacyRecorder`). An
Event names the object it regards, and optionally a related one, as
`reference.GetReference` does: resourceVersion included.
"""

from __future__ import annotations

import logging
import socket
from typing import Any

from kubesched.clock import Clock
from kubesched.cluster import Cluster, KubeEvent, ObjectRef
from kubesched.scheduler._broadcaster import EventBroadcaster

__all__ = [
    "MAX_EVENT_MESSAGE",
    "ClusterEventRecorder",
    "LegacyEventRecorder",
    "ProfileEventRecorder",
    "truncate_message",
]

_log = logging.getLogger("kubesched.events")

MAX_EVENT_MESSAGE = 1024
"""Upstream truncates event and condition messages (schedule_one.go truncateMessage)."""

_EVENT_TYPES = ("Normal", "Warning")


def truncate_message(message: str) -> str:
    if len(message) <= MAX_EVENT_MESSAGE:
        return message
    suffix = " ..."
    return message[: MAX_EVENT_MESSAGE - len(suffix)] + suffix


class ClusterEventRecorder(EventBroadcaster):
    """The scheduler's event broadcaster, and the recorders its profiles and leader
    election use."""

    def __init__(
        self, cluster: Cluster, clock: Clock, *, hostname: str | None = None, **options: Any
    ) -> None:
        super().__init__(cluster, clock, **options)
        self.clock = clock
        self.hostname = socket.gethostname() if hostname is None else hostname

    def for_profile(self, scheduler_name: str) -> ProfileEventRecorder:
        """The events.k8s.io/v1 recorder of a profile (events.NewRecorder)."""
        return ProfileEventRecorder(self, scheduler_name, f"{scheduler_name}-{self.hostname}")

    def legacy(self, component: str) -> LegacyEventRecorder:
        """A core/v1 recorder with source component `component` (DeprecatedNewLegacyRecorder:
        no host, so reportingInstance is empty)."""
        return LegacyEventRecorder(self, component)

    def make_event(
        self,
        obj: Any,
        related: Any,
        event_type: str,
        reason: str,
        action: str,
        message: str,
        controller: str,
        instance: str,
        *,
        legacy: bool = False,
    ) -> KubeEvent | None:
        """The Event a recorder writes about `obj`, or None (logged) when it cannot be
        made: an event type other than Normal or Warning, an object without metadata."""
        if event_type not in _EVENT_TYPES:
            _log.error("Unsupported event type: %r", event_type)
            return None
        try:
            regarding = ObjectRef.of(obj)
            related_ref = None if related is None else ObjectRef.of(related)
        except AttributeError:
            _log.error(
                "Could not construct reference, will not report event: %r %s %s",
                obj,
                reason,
                message,
            )
            return None
        when = self.clock.micro_time()
        return KubeEvent(
            namespace=regarding.namespace or "default",
            involved_kind=regarding.kind,
            involved_name=regarding.name,
            involved_uid=regarding.uid,
            type="Warning" if event_type == "Warning" else "Normal",
            reason=reason,
            action=action,
            message=truncate_message(message),
            reporting_controller=controller,
            timestamp=self.clock.now(),
            involved_api_version=regarding.api_version,
            involved_resource_version=regarding.resource_version,
            related=related_ref,
            reporting_instance=instance,
            name=self.name_for(regarding.name, when),
            event_time=when,
            legacy=legacy,
        )


class ProfileEventRecorder:
    """A profile's recorder (the framework's `event_recorder`): events.k8s.io/v1 Events
    reported by the profile's schedulerName."""

    def __init__(self, broadcaster: ClusterEventRecorder, controller: str, instance: str):
        self.broadcaster = broadcaster
        self.reporting_controller = controller
        self.reporting_instance = instance

    def event(
        self,
        obj: Any,
        event_type: str,
        reason: str,
        action: str,
        message: str,
        related: Any = None,
    ) -> None:
        """Eventf(regarding=obj, related, eventtype, reason, action, note)."""
        event = self.broadcaster.make_event(
            obj,
            related,
            event_type,
            reason,
            action,
            message,
            self.reporting_controller,
            self.reporting_instance,
        )
        if event is not None:
            self.broadcaster.record(event)


class LegacyEventRecorder:
    """A core/v1 recorder (tools/record): the Event's source component and
    reportingController are `component`, reportingInstance empty, action empty."""

    def __init__(self, broadcaster: ClusterEventRecorder, component: str) -> None:
        self.broadcaster = broadcaster
        self.component = component

    def event(self, obj: Any, event_type: str, reason: str, message: str) -> None:
        """Eventf(object, eventtype, reason, message)."""
        event = self.broadcaster.make_event(
            obj, None, event_type, reason, "", message, self.component, "", legacy=True
        )
        if event is not None:
            self.broadcaster.record(event)
