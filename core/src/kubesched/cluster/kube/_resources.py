"""From a KindInfo to REST paths, and from API JSON to kubesched's models and back.

Objects are validated straight into the kind's pydantic model (unknown fields ignored), never
through the generated client models. List items carry no apiVersion/kind, so those are
filled in from the KindInfo before validation.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote

import pydantic

from kubesched._errors import AlreadyExistsError, ConflictError, KubeschedError, NotFoundError
from kubesched.api import K8sModel, KindInfo
from kubesched.cluster._interface import WatchEventType
from kubesched.cluster.kube._transport import ApiError

__all__ = [
    "DecodeError",
    "Page",
    "collection_path",
    "decode",
    "decode_event",
    "decode_page",
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


class _ListMeta(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="ignore")

    resource_version: str = pydantic.Field("", alias="resourceVersion")
    continue_token: str = pydantic.Field("", alias="continue")


@dataclass(frozen=True)
class Page:
    """One page of a list, its objects by cache key."""

    items: dict[str, Any]
    resource_version: str
    continue_token: str


@functools.cache
def _page_model(model: type[pydantic.BaseModel]) -> type[pydantic.BaseModel]:
    return pydantic.create_model(
        f"{model.__name__}ListPage",
        __config__=pydantic.ConfigDict(extra="ignore"),
        metadata=(_ListMeta, _ListMeta()),
        items=(list[model] | None, None),  # type: ignore[valid-type,arg-type]
    )


def _defaults_are(info: KindInfo) -> bool:
    fields = info.model.model_fields
    api_version, kind = fields.get("api_version"), fields.get("kind")
    return (
        api_version is not None
        and kind is not None
        and api_version.default == info.api_version
        and kind.default == info.kind
    )


def decode_page(info: KindInfo, data: bytes) -> Page | None:
    """A list page validated straight from the bytes into the kind's models, without a
    Python dict of every object on the way (about a quarter of the decoding time, and of
    the garbage the collector then walks at start-up).

    None when some item does not validate, or when the model's own apiVersion and kind
    defaults are not the kind's (list items carry neither): the caller then decodes item
    by item as `decode` does, leaving out the bad ones with their error.
    """
    if not _defaults_are(info):
        return None
    try:
        page: Any = _page_model(info.model).model_validate_json(data)
    except pydantic.ValidationError:
        return None
    items = {object_key(info, obj): obj for obj in page.items or ()}
    return Page(items, page.metadata.resource_version, page.metadata.continue_token)


@functools.cache
def _event_model(model: type[pydantic.BaseModel]) -> type[pydantic.BaseModel]:
    return pydantic.create_model(
        f"{model.__name__}WatchEvent",
        __config__=pydantic.ConfigDict(extra="ignore"),
        type=(str, ""),
        object=(model | None, None),  # type: ignore[arg-type]
    )


_CHANGES: Final = frozenset({"ADDED", "MODIFIED", "DELETED"})
"""The watch event types that carry an object of the kind (besides BOOKMARK and ERROR)."""


def decode_event(info: KindInfo, line: bytes) -> tuple[WatchEventType, Any] | None:
    """An ADDED, MODIFIED or DELETED watch event validated straight from its line into the
    kind's model, without a Python dict of the object on the way (as `decode_page`).

    None for any other event (BOOKMARK, ERROR), an object the model rejects, or a model
    whose own apiVersion and kind defaults are not the kind's: the caller then parses the
    line and decodes the object as `decode` does, logging a bad one.
    """
    if not _defaults_are(info):
        return None
    try:
        event: Any = _event_model(info.model).model_validate_json(line)
    except pydantic.ValidationError:
        return None
    if event.type not in _CHANGES or event.object is None:
        return None
    kind: WatchEventType = event.type
    return kind, event.object


def object_key(info: KindInfo, obj: Any) -> str:
    """The cache key of a decoded object, as `key_of_raw` gives it for its JSON."""
    meta = obj.metadata
    if info.namespaced:
        return f"{meta.namespace or 'default'}/{meta.name or ''}"
    return str(meta.name or "")


def encode(obj: K8sModel) -> dict[str, Any]:
    """The JSON the API server expects for `obj` (camelCase, unset fields left out)."""
    return obj.to_dict()


def map_error(error: ApiError, resource: str, name: str) -> KubeschedError:
    """409 and 404 answers become kubesched's ConflictError (AlreadyExistsError for a taken
    name) and NotFoundError (what the scheduler and plugins handle); anything else stays
    an ApiError."""
    if error.code == 409 and error.reason == "AlreadyExists":
        return AlreadyExistsError(resource, name)
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
