"""The bodies kubesched sends: Binding, the PodScheduled status patch, Events, merge patches.

Pure functions of their inputs (time included), so the translation is tested without a
server.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final

from kubesched.api import Pod, PodCondition
from kubesched.cluster._events import EventSeries, event_name
from kubesched.cluster._interface import KubeEvent
from kubesched.cluster.kube._lease import format_micro_time

__all__ = [
    "EVENTS_API_VERSION",
    "binding_body",
    "event_body",
    "legacy_event_body",
    "merge_patch",
    "pod_status_patch",
    "series_patch",
]

EVENTS_API_VERSION: Final = "events.k8s.io/v1"
"""Events are written as kube-scheduler writes them: events.k8s.io/v1 through the events
library (client-go tools/events), `regarding` the pod, `note` the message."""

MAX_NOTE: Final = 1024
"""events.k8s.io/v1 rejects a note longer than 1 KiB."""


def binding_body(pod: Pod, node_name: str) -> dict[str, Any]:
    """The v1 Binding DefaultBinder posts (default_binder.go): the pod's name, namespace and
    uid (a uid precondition: a pod deleted and created again is not bound by mistake)."""
    meta: dict[str, Any] = {
        "name": pod.metadata.name,
        "namespace": pod.metadata.namespace or "default",
    }
    if pod.metadata.uid:
        meta["uid"] = pod.metadata.uid
    return {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": meta,
        "target": {"apiVersion": "v1", "kind": "Node", "name": node_name},
    }


def _rfc3339(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _condition_differs(a: PodCondition, b: PodCondition) -> bool:
    return (
        a.status != b.status
        or a.reason != b.reason
        or a.message != b.message
        or (b.last_probe_time is not None and a.last_probe_time != b.last_probe_time)
    )


def pod_status_patch(
    current: Pod, condition: PodCondition, nominated_node_name: str | None, now: datetime
) -> dict[str, Any] | None:
    """The strategic merge patch of `pods/status` upstream's updatePod sends, or None when
    nothing would change (schedule_one.go updatePod, podutil.UpdatePodCondition).

    Conditions merge by `type`, so only the given one is sent. Its lastTransitionTime is
    kept when the status is unchanged and is `now` otherwise. `nominated_node_name` None
    leaves the nomination alone; an empty string clears it (sent as null).
    """
    existing = current.status.condition(condition.type)
    changed = existing is None or _condition_differs(existing, condition)
    nominated_changed = (
        nominated_node_name is not None
        and nominated_node_name != current.status.nominated_node_name
    )
    if not changed and not nominated_changed:
        return None
    status: dict[str, Any] = {}
    if changed:
        if existing is not None and existing.status == condition.status:
            transition = existing.last_transition_time
        else:
            transition = condition.last_transition_time or now
        entry: dict[str, Any] = {
            "type": condition.type,
            "status": condition.status,
            "reason": condition.reason,
            "message": condition.message,
            "lastProbeTime": (
                _rfc3339(condition.last_probe_time) if condition.last_probe_time else None
            ),
            "lastTransitionTime": _rfc3339(transition) if transition else None,
        }
        status["conditions"] = [entry]
    if nominated_changed:
        status["nominatedNodeName"] = nominated_node_name or None
    return {"status": status}


def _note(message: str) -> str:
    if len(message.encode()) <= MAX_NOTE:  # the limit is in bytes
        return message
    return message.encode()[: MAX_NOTE - 4].decode("utf-8", "ignore") + " ..."


def _metadata(event: KubeEvent, when: datetime) -> dict[str, Any]:
    return {
        "name": event.name or event_name(event.involved_name, when),
        "namespace": event.namespace,
    }


def _series(series: EventSeries) -> dict[str, Any]:
    return {"count": series.count, "lastObservedTime": format_micro_time(series.last_observed_time)}


def event_body(event: KubeEvent, now: datetime) -> dict[str, Any]:
    """The events.k8s.io/v1 Event kube-scheduler's recorder writes for a KubeEvent (client-go
    events makeEvent). Its name and eventTime are the KubeEvent's, else made from `now`."""
    when = event.event_time or now
    body: dict[str, Any] = {
        "apiVersion": EVENTS_API_VERSION,
        "kind": "Event",
        "metadata": _metadata(event, when),
        "eventTime": format_micro_time(when),
        "reportingController": event.reporting_controller,
        "reportingInstance": event.reporting_instance[:128],
        "action": event.action,
        "reason": event.reason,
        "regarding": event.regarding.to_dict(),
        "note": _note(event.message),
        "type": event.type,
    }
    if event.related is not None:
        body["related"] = event.related.to_dict()
    if event.series is not None:
        body["series"] = _series(event.series)
    return body


def series_patch(series: EventSeries) -> dict[str, Any]:
    """The strategic merge patch that moves an Event's series on: what
    createPatchBytesForSeries computes (the Event without and with its series differ
    only there)."""
    return {"series": _series(series)}


def legacy_event_body(event: KubeEvent, now: datetime) -> dict[str, Any]:
    """The core/v1 Event of client-go's tools/record (makeEvent, generateEvent): source
    component and reportingComponent the recorder's, no host, count 1."""
    when = event.event_time or now
    stamp = _rfc3339(when)
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": _metadata(event, when),
        "involvedObject": event.regarding.to_dict(),
        "reason": event.reason,
        "message": event.message,
        "source": {"component": event.reporting_controller},
        "firstTimestamp": stamp,
        "lastTimestamp": stamp,
        "count": 1,
        "type": event.type,
        "reportingComponent": event.reporting_controller,
        "reportingInstance": event.reporting_instance,
    }


def merge_patch(old: Any, new: Any) -> Any:
    """A JSON merge patch (RFC 7386) turning `old` into `new`: changed keys, null for removed
    ones; a list that differs is sent whole. `{}` when they are equal."""
    if not isinstance(old, dict) or not isinstance(new, dict):
        return new
    patch: dict[str, Any] = {}
    for key, value in new.items():
        if key not in old:
            patch[key] = value
        elif old[key] != value:
            patch[key] = merge_patch(old[key], value)
    for key in old:
        if key not in new:
            patch[key] = None
    return patch
