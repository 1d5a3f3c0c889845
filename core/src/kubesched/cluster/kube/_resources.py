"""From a KindInfo to REST paths, and from API JSON to kubesched's models and back.

Objects are validated straight into the kind's pydantic model (unknown fields ignored), never
through the generated client models. List items carry no apiVersion/kind, so those are
filled in from the KindInfo before validation.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import pydantic

from kubesched._errors import ConflictError, KubeschedError, NotFoundError
from kubesched.api import K8sModel, KindInfo
from kubesched.cluster.kube._transport import ApiError

__all__ = [
    "DecodeError",
    "collection_path",
    "decode",
    "key_of_raw",
    "map_error",
    "object_path",
]

_log = logging.getLogger("kubesched.cluster.kube")


class DecodeError(KubeschedError):
    """An object from the API server that its kubesched model rejects."""

    def __init__(self, kind: str, key: str, detail: str) -> None:
        super().__init__(kind, key, detail)
        self.kind = kind
        self.key = key
        self.detail = detail

    def __str__(self) -> str:
        return f'{self.kind} "{self.key}" from the API server does not decode: {self.detail}'


def _prefix(info: KindInfo) -> str:
    # the legacy core group lives under /api, every named group under /apis
    if "/" in info.api_version:
        return f"/apis/{info.api_version}"
    return f"/api/{info.api_version}"


def collection_path(info: KindInfo, namespace: str | None = None) -> str:
    """`/api/v1/namespaces/ns/pods`, or the all-namespaces / cluster-scoped collection."""
    if info.namespaced and namespace:
        return f"{_prefix(info)}/namespaces/{quote(namespace, safe='')}/{info.plural}"
    return f"{_prefix(info)}/{info.plural}"


def object_path(info: KindInfo, name: str, namespace: str | None = None) -> str:
    ns = (namespace or "default") if info.namespaced else None
    return f"{collection_path(info, ns)}/{quote(name, safe='')}"


def key_of_raw(info: KindInfo, raw: Mapping[str, Any]) -> str:
    """The cache key of a raw object: `namespace/name`, or `name` when cluster-scoped
    (the same keys the memory cluster uses)."""
    meta = raw.get("metadata")
    if not isinstance(meta, Mapping):  # a malformed object still needs a key for its error
        meta = {}
    name = str(meta.get("name") or "")
    if info.namespaced:
        return f"{meta.get('namespace') or 'default'}/{name}"
    return name


def decode(info: KindInfo, raw: dict[str, Any]) -> Any:
    """Validate a raw API object into the kind's model; DecodeError naming it otherwise."""
    raw.setdefault("apiVersion", info.api_version)
    raw.setdefault("kind", info.kind)
    try:
        return info.model.model_validate(raw)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": str(exc)}
        loc = ".".join(str(p) for p in first.get("loc", ()))
        detail = f"{loc}: {first.get('msg', '')}" if loc else str(first.get("msg", ""))
        raise DecodeError(info.kind, key_of_raw(info, raw), detail) from exc


def encode(obj: K8sModel) -> dict[str, Any]:
    """The JSON the API server expects for `obj` (camelCase, unset fields left out)."""
    return obj.to_dict()


def map_error(error: ApiError, resource: str, name: str) -> KubeschedError:
    """409 and 404 answers become kubesched's ConflictError and NotFoundError (what the
    scheduler and plugins handle); anything else stays an ApiError."""
    if error.code == 409:
        return ConflictError(resource, name, _conflict_detail(error.message))
    if error.code == 404:
        return NotFoundError(resource, name)
    return error


def _conflict_detail(message: str) -> str:
    # 'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned ...'
    marker = '": '
    if message.startswith("Operation cannot be fulfilled on ") and marker in message:
        return message.split(marker, 1)[1]
    return message
