"""The coordination.k8s.io/v1 Lease that leader election holds, read and written raw.

Upstream: client-go tools/leaderelection/resourcelock/leaselock.go. `update` sends the
Lease last read or written, resourceVersion included, so a replica acting on a stale view
gets a conflict instead of overwriting the holder.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kubesched._errors import ConflictError, NotFoundError
from kubesched.cluster._events import ObjectRef
from kubesched.cluster.kube._transport import ApiError, Transport

__all__ = ["KubeLeaseLock", "LeaderElectionRecord", "format_micro_time"]

_PATH = "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"


@dataclass(frozen=True)
class LeaderElectionRecord:
    """What a Lease's spec says about its holder (client-go LeaderElectionRecord)."""

    holder_identity: str = ""
    lease_duration_seconds: int = 0
    acquire_time: datetime | None = None
    renew_time: datetime | None = None
    leader_transitions: int = 0


def format_micro_time(value: datetime) -> str:
    """metav1.MicroTime on the wire: RFC 3339 in UTC with exactly six fractional digits."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def record_from_spec(spec: dict[str, Any]) -> LeaderElectionRecord:
    return LeaderElectionRecord(
        holder_identity=str(spec.get("holderIdentity") or ""),
        lease_duration_seconds=int(spec.get("leaseDurationSeconds") or 0),
        acquire_time=_parse_time(spec.get("acquireTime")),
        renew_time=_parse_time(spec.get("renewTime")),
        leader_transitions=int(spec.get("leaseTransitions") or 0),
    )


def spec_from_record(record: LeaderElectionRecord) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "holderIdentity": record.holder_identity,
        "leaseDurationSeconds": record.lease_duration_seconds,
        "leaseTransitions": record.leader_transitions,
    }
    if record.acquire_time is not None:
        spec["acquireTime"] = format_micro_time(record.acquire_time)
    if record.renew_time is not None:
        spec["renewTime"] = format_micro_time(record.renew_time)
    return spec


class KubeLeaseLock:
    """A Lease `namespace/name` held under `identity`."""

    def __init__(self, transport: Transport, namespace: str, name: str, identity: str) -> None:
        self.namespace = namespace
        self.name = name
        self.identity = identity
        self._transport = transport
        self._lease: dict[str, Any] | None = None

    def describe(self) -> str:
        return f"{self.namespace}/{self.name}"

    def reference(self) -> ObjectRef | None:
        """The Lease as last read or written, for the LeaderElection Events
        (resourcelock LeaseLock.RecordEvent: its ObjectMeta, kind Lease,
        coordination.k8s.io/v1); None before it was read or created."""
        if self._lease is None:
            return None
        meta = self._lease.get("metadata") or {}
        return ObjectRef(
            api_version="coordination.k8s.io/v1",
            kind="Lease",
            namespace=str(meta.get("namespace") or self.namespace),
            name=str(meta.get("name") or self.name),
            uid=str(meta.get("uid") or ""),
            resource_version=str(meta.get("resourceVersion") or ""),
        )

    @property
    def _collection(self) -> str:
        return _PATH.format(namespace=self.namespace)

    async def get(self) -> LeaderElectionRecord | None:
        """The current record; None when the Lease does not exist."""
        try:
            lease = await self._transport.request("GET", f"{self._collection}/{self.name}")
        except ApiError as exc:
            if exc.code == 404:
                self._lease = None
                return None
            raise
        self._lease = lease
        return record_from_spec(lease.get("spec") or {})

    async def create(self, record: LeaderElectionRecord) -> None:
        """Create the Lease; ConflictError when another replica created it first."""
        body = {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": self.name, "namespace": self.namespace},
            "spec": spec_from_record(record),
        }
        try:
            self._lease = await self._transport.request("POST", self._collection, body=body)
        except ApiError as exc:
            raise _mapped(exc, self.name) from exc

    async def update(self, record: LeaderElectionRecord) -> None:
        """Replace the spec of the Lease last seen; ConflictError when it changed since."""
        if self._lease is None:
            raise NotFoundError("leases", self.name)
        body = dict(self._lease)
        body["spec"] = spec_from_record(record)
        try:
            self._lease = await self._transport.request(
                "PUT", f"{self._collection}/{self.name}", body=body
            )
        except ApiError as exc:
            raise _mapped(exc, self.name) from exc


def _mapped(exc: ApiError, name: str) -> Exception:
    if exc.code == 409:
        return ConflictError("leases", name, exc.message)
    if exc.code == 404:
        return NotFoundError("leases", name)
    return exc
