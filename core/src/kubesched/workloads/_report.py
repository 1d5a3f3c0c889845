"""The Workloads section of a simulation report: each workload, what it asked for and got.

One row per Deployment, StatefulSet, DaemonSet, Job, and ReplicaSet that no Deployment
controls: how many pods it wants, has, and has bound, how many finished, and why it is
stuck when its controller could not create a pod (the last FailedCreate Event) or how a
Job ended. A run without workloads has no such section, so its report is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from kubesched.api import Pod
from kubesched.cluster import Cluster, KubeEvent
from kubesched.hookspecs import ReportSection
from kubesched.workloads._models import Job, StatefulSet, Workload
from kubesched.workloads._pods import controller_of, is_active
from kubesched.workloads._reconciler import FAILED_CREATE

__all__ = ["workloads_section"]

_KINDS: Final = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job")
_COLUMNS: Final = ("Workload", "Desired", "Pods", "Bound", "Finished", "Message")


def workloads_section(cluster: Cluster) -> ReportSection | None:
    """The section, None when the cluster holds no workload."""
    by_owner: dict[str, list[Pod]] = {}
    for pod in cluster.list("Pod"):
        ref = controller_of(pod)
        if ref is not None:
            by_owner.setdefault(ref.uid, []).append(pod)
    failures = _last_failures(cluster.events())
    rows: list[list[str]] = []
    payload: list[dict[str, Any]] = []
    for kind in _KINDS:
        workloads = sorted(
            cluster.list(kind), key=lambda o: (o.metadata.namespace or "", o.metadata.name)
        )
        for obj in workloads:
            ref = controller_of(obj)
            if kind == "ReplicaSet" and ref is not None and ref.kind == "Deployment":
                continue  # shown as its Deployment
            pods = list(by_owner.get(obj.metadata.uid, []))
            uids = [obj.metadata.uid]
            if kind == "Deployment":
                for rs in cluster.list("ReplicaSet"):
                    owner = controller_of(rs)
                    if owner is not None and owner.uid == obj.metadata.uid:
                        pods += by_owner.get(rs.metadata.uid, [])
                        uids.append(rs.metadata.uid)
            message = _message(obj, pods, [failures[u] for u in uids if u in failures])
            entry = _entry(obj, pods, message)
            payload.append(entry)
            finished = ", ".join(f"{entry[k]} {k}" for k in ("succeeded", "failed") if entry[k])
            desired = "-" if entry["desired"] is None else str(entry["desired"])
            rows.append(
                [
                    f"{kind}/{entry['namespace']}/{entry['name']}",
                    desired,
                    str(entry["pods"]),
                    str(entry["bound"]),
                    finished,
                    entry["message"],
                ]
            )
    if not rows:
        return None
    return ReportSection(
        key="workloads", title="Workloads", columns=_COLUMNS, rows=rows, payload=payload
    )


def _entry(obj: Workload, pods: Iterable[Pod], message: str) -> dict[str, Any]:
    pods = list(pods)
    return {
        "kind": obj.kind,
        "namespace": obj.metadata.namespace or "default",
        "name": obj.metadata.name,
        "desired": _desired(obj),
        "pods": sum(1 for p in pods if is_active(p)),
        "bound": sum(1 for p in pods if is_active(p) and p.spec.node_name),
        "succeeded": sum(1 for p in pods if p.status.phase == "Succeeded"),
        "failed": sum(1 for p in pods if p.status.phase == "Failed"),
        "message": message,
    }


def _desired(obj: Workload) -> int | None:
    if isinstance(obj, Job):
        return obj.spec.completions
    if obj.kind == "DaemonSet":
        return obj.status.desired_number_scheduled
    replicas: int = obj.spec.replicas
    return replicas


def _message(obj: Workload, pods: list[Pod], failures: list[KubeEvent]) -> str:
    if failures:
        return failures[-1].message
    if isinstance(obj, Job):
        for condition in obj.status.conditions:
            if condition.status == "True" and condition.type in ("Complete", "Failed", "Suspended"):
                return f"{condition.type}: {condition.message}"
    if isinstance(obj, StatefulSet) and obj.spec.pod_management_policy == "OrderedReady":
        names = {p.metadata.name: p for p in pods if is_active(p)}
        for ordinal in range(obj.spec.replicas):
            pod = names.get(f"{obj.metadata.name}-{ordinal}")
            if pod is None or pod.spec.node_name:
                continue
            if ordinal + 1 < obj.spec.replicas:
                later = f"{obj.metadata.name}-{ordinal + 1}"
                return f"OrderedReady: {later} waits until {pod.metadata.name} is bound"
    return ""


def _last_failures(events: Iterable[KubeEvent]) -> dict[str, KubeEvent]:
    last: dict[str, KubeEvent] = {}
    for event in events:
        if event.reason == FAILED_CREATE and event.involved_kind in _KINDS:
            last[event.involved_uid] = event
    return last
