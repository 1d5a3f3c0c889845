"""The storage side of the fake API server: objects, resourceVersions and watch history, and
the write semantics of a real API server, without HTTP.

Every write that changes an object stores it under a new resourceVersion and records one
watch event (ADDED, MODIFIED, DELETED), whoever made it: a create, an update or a patch of
the object or of its `status` subresource, a binding, a graceful deletion. A write that
changes nothing keeps the resourceVersion and sends no event, as the API server does
(staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go GuaranteedUpdate skips the write
when the encoded object is unchanged). Objects pass through `_admission` on the way.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from kubesched.api import apply_merge_patch
from kubesched.testing.apiserver._admission import (
    ApiStatusError,
    Raw,
    admit_create,
    bootstrap_objects,
    now_rfc3339,
    prepare_update,
)

__all__ = [
    "MERGE_PATCH",
    "STRATEGIC_MERGE_PATCH",
    "FakeStore",
    "Target",
    "merge_patch",
    "parse_path",
    "strategic_merge_patch",
    "update_pod_condition",
]

MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
_MODIFIED_MESSAGE = (
    "the object has been modified; please apply your changes to the latest version and try again"
)


@dataclass
class Target:
    resource: str  # "v1/pods", "coordination.k8s.io/v1/leases"
    namespace: str | None
    name: str | None
    subresource: str | None

    @property
    def plural(self) -> str:
        return self.resource.rsplit("/", 1)[1]


def parse_path(path: str) -> Target | None:
    parts = [p for p in path.split("/") if p]
    if parts[:2] == ["api", "v1"]:
        group_version, rest = "v1", parts[2:]
    elif len(parts) >= 3 and parts[0] == "apis":
        group_version, rest = f"{parts[1]}/{parts[2]}", parts[3:]
    else:
        return None
    namespace = None
    if len(rest) >= 3 and rest[0] == "namespaces":
        namespace, rest = rest[1], rest[2:]
    if not rest:
        return None
    return Target(
        f"{group_version}/{rest[0]}",
        namespace,
        rest[1] if len(rest) > 1 else None,
        rest[2] if len(rest) > 2 else None,
    )


merge_patch = apply_merge_patch
"""RFC 7386 (`kubesched.api.apply_merge_patch`), as the API server applies it."""


def strategic_merge_patch(target: Any, patch: Any) -> Any:
    """Enough of a strategic merge patch for status: `conditions` merge by `type`; other
    lists (taints, tolerations) have no merge key and are replaced whole."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if key.startswith("$"):
            continue
        if value is None:
            result.pop(key, None)
        elif key == "conditions" and isinstance(value, list):
            merged = [dict(c) for c in result.get(key) or []]
            for cond in value:
                for i, existing in enumerate(merged):
                    if existing.get("type") == cond.get("type"):
                        merged[i] = {
                            k: v for k, v in merge_patch(existing, cond).items() if v is not None
                        }
                        break
                else:
                    merged.append({k: v for k, v in cond.items() if v is not None})
            result[key] = merged
        else:
            result[key] = strategic_merge_patch(result.get(key), value)
    return result


def _conflict(plural: str, name: str, detail: str) -> ApiStatusError:
    message = f'Operation cannot be fulfilled on {plural} "{name}": {detail}'
    return ApiStatusError(409, "Conflict", message, name=name, kind=plural)


def _not_found(plural: str, name: str) -> ApiStatusError:
    return ApiStatusError(404, "NotFound", f'{plural} "{name}" not found', name=name, kind=plural)


class FakeStore:
    """Objects by resource and key (`namespace/name` or `name`), with the API's writes."""

    def __init__(self) -> None:
        self.rv = 0
        self.objects: dict[str, dict[str, Raw]] = {}
        self.history: list[tuple[int, str, str, Raw]] = []
        self._uids = itertools.count(1)
        for resource, raw in bootstrap_objects():
            self.create(resource, raw)

    # -- reading ------------------------------------------------------------------------
    @staticmethod
    def key(namespace: str | None, name: str) -> str:
        return f"{namespace}/{name}" if namespace else name

    def get(self, resource: str, key: str) -> Raw | None:
        return self.objects.get(resource, {}).get(key)

    def all_of(self, resource: str) -> Iterable[Raw]:
        return self.objects.get(resource, {}).values()

    def _existing(self, target: Target) -> tuple[str, Raw]:
        assert target.name is not None
        key = self.key(target.namespace, target.name)
        old = self.get(target.resource, key)
        if old is None:
            raise _not_found(target.plural, target.name)
        return key, old

    # -- writing ------------------------------------------------------------------------
    def create(self, resource: str, raw: Raw) -> Raw:
        """A create as the API answers it: name generated, admission, uid and timestamp."""
        obj = copy.deepcopy(raw)
        meta = obj.setdefault("metadata", {})
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = f"{meta['generateName']}{next(self._uids):05d}"
        if meta.get("resourceVersion"):
            message = "metadata.resourceVersion: should not be set on objects to be created"
            raise ApiStatusError(422, "Invalid", message)
        admit_create(resource, obj, self.get, self.all_of)
        key = self.key(meta.get("namespace"), meta["name"])
        if key in self.objects.get(resource, {}):
            plural = resource.rsplit("/", 1)[1]
            message = f'{plural} "{meta["name"]}" already exists'
            raise ApiStatusError(409, "AlreadyExists", message, name=meta["name"], kind=plural)
        meta["uid"] = f"uid-{next(self._uids)}"  # the server always assigns its own
        meta["creationTimestamp"] = now_rfc3339()
        self.rv += 1
        meta["resourceVersion"] = str(self.rv)
        self.objects.setdefault(resource, {})[key] = obj
        self.emit(resource, "ADDED", obj)
        return obj

    def write(self, resource: str, key: str, new: Raw) -> Raw:
        """Store `new` over the object at `key` under a new resourceVersion, one MODIFIED
        event; nothing at all when it equals the stored object."""
        old = self.objects[resource][key]
        new["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
        if new == old:
            return copy.deepcopy(old)
        self.rv += 1
        new["metadata"]["resourceVersion"] = str(self.rv)
        self.objects[resource][key] = new
        self.emit(resource, "MODIFIED", new)
        return copy.deepcopy(new)

    def _check_version(self, target: Target, old: Raw, body: Raw) -> None:
        version = (body.get("metadata") or {}).get("resourceVersion")
        if version and version != old["metadata"]["resourceVersion"]:
            raise _conflict(target.plural, target.name or "", _MODIFIED_MESSAGE)

    def update(self, target: Target, body: Raw) -> Raw:
        """PUT of the object or of its `status` subresource."""
        key, old = self._existing(target)
        self._check_version(target, old, body)
        new = copy.deepcopy(body)
        prepare_update(target.resource, target.subresource, old, new)
        return self.write(target.resource, key, new)

    def patch(self, target: Target, body: Raw, content_type: str) -> Raw:
        """PATCH of the object or of its `status` subresource (merge or strategic merge)."""
        key, old = self._existing(target)
        self._check_version(target, old, body)
        if content_type == STRATEGIC_MERGE_PATCH:
            new = strategic_merge_patch(old, body)
        elif content_type == MERGE_PATCH:
            new = merge_patch(old, body)
        else:
            raise ApiStatusError(415, "UnsupportedMediaType", f"{content_type} is not supported")
        new = copy.deepcopy(new)
        prepare_update(target.resource, target.subresource, old, new)
        return self.write(target.resource, key, new)

    def delete(self, target: Target, grace_seconds: int | None = None) -> Raw:
        """DELETE. A pod bound to a node and not finished is deleted gracefully: one MODIFIED
        event sets deletionTimestamp and deletionGracePeriodSeconds (the request's period,
        else terminationGracePeriodSeconds) and its kubelet would finish it; a later DELETE
        may only shorten the period (pkg/registry/core/pod/strategy.go CheckGracefulDelete,
        apiserver rest.BeforeDelete). A period of 0, and anything else, goes at once: one
        DELETED event."""
        key, old = self._existing(target)
        if target.resource == "v1/pods":
            spec, status, meta = old.get("spec") or {}, old.get("status") or {}, old["metadata"]
            pending = meta.get("deletionGracePeriodSeconds")
            if grace_seconds is None:
                grace_seconds = pending or int(spec.get("terminationGracePeriodSeconds", 30))
            terminal = status.get("phase") in ("Succeeded", "Failed")
            if spec.get("nodeName") and not terminal and grace_seconds > 0:
                if pending is not None and grace_seconds >= pending:
                    return copy.deepcopy(old)
                new = copy.deepcopy(old)
                when = datetime.now(UTC) + timedelta(seconds=grace_seconds)
                new["metadata"]["deletionTimestamp"] = when.strftime("%Y-%m-%dT%H:%M:%SZ")
                new["metadata"]["deletionGracePeriodSeconds"] = grace_seconds
                return self.write(target.resource, key, new)
        return self.remove(target.resource, key)

    def remove(self, resource: str, key: str) -> Raw:
        """The object goes, one DELETED event carrying the deletion's resourceVersion."""
        obj = copy.deepcopy(self.objects[resource].pop(key))
        self.rv += 1
        obj["metadata"]["resourceVersion"] = str(self.rv)
        self.emit(resource, "DELETED", obj)
        return obj

    def bind(self, namespace: str, name: str, body: Raw) -> Raw:
        """POST pods/binding (pkg/registry/core/pod/storage/storage.go setPodNodeAndMetadata):
        the uid precondition, then a conflict for a pod being deleted, already bound or
        gated; else `spec.nodeName` and PodScheduled=True in one write."""
        key = self.key(namespace, name)
        pod = self.get("v1/pods", key)
        if pod is None:
            raise _not_found("pods", name)
        uid = (body.get("metadata") or {}).get("uid")
        if uid and uid != pod["metadata"]["uid"]:
            raise _conflict(
                "pods/binding",
                name,
                f"Precondition failed: UID in precondition: {uid}, "
                f"UID in object meta: {pod['metadata']['uid']}",
            )
        spec = pod.get("spec") or {}
        if pod["metadata"].get("deletionTimestamp"):
            detail = f"pod {name} is being deleted, cannot be assigned to a host"
        elif spec.get("nodeName"):
            detail = f'pod {name} is already assigned to node "{spec["nodeName"]}"'
        elif spec.get("schedulingGates"):
            detail = f"pod {name} has non-empty .spec.schedulingGates"
        else:
            detail = ""
        if detail:
            raise _conflict("pods/binding", name, detail)
        new = copy.deepcopy(pod)
        new["spec"]["nodeName"] = (body.get("target") or {}).get("name", "")
        scheduled = {"type": "PodScheduled", "status": "True"}
        update_pod_condition(new.setdefault("status", {}), scheduled)
        return self.write("v1/pods", key, new)

    def emit(self, resource: str, kind: str, obj: Raw) -> None:
        """Record a watch event; the server also sends it to open watches."""
        self.history.append((self.rv, resource, kind, copy.deepcopy(obj)))


def update_pod_condition(status: Raw, condition: Raw) -> None:
    """pkg/api/pod/util.go UpdatePodCondition: the condition replaces the one of its type in
    place, its lastTransitionTime kept when the status is unchanged, else now."""
    conditions = status.setdefault("conditions", [])
    new = dict(condition, lastTransitionTime=now_rfc3339())
    for i, existing in enumerate(conditions):
        if existing.get("type") == condition["type"]:
            if existing.get("status") == condition["status"]:
                new["lastTransitionTime"] = existing.get("lastTransitionTime")
            conditions[i] = {k: v for k, v in new.items() if v is not None}
            return
    conditions.append(new)
