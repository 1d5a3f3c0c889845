"""Which object kinds exist: core's own and those plugin packages register through hooks.

The manifest loader and the cluster stores look kinds up here, so a package that registers
PodGroup makes PodGroup manifests loadable and storable with no change to core.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kubesched.api._base import K8sModel
from kubesched.api._cluster_kinds import Namespace, PriorityClass
from kubesched.api._node import Node
from kubesched.api._pod import Pod

__all__ = ["KindInfo", "KindRegistry", "KindValidator", "core_kinds"]


KindValidator = Callable[[Any, "KindRegistry"], Sequence[Any]]
"""`validate(obj, kinds)`: the `kubesched.api.field.FieldError`s the API server would refuse
a new object of the kind for (after defaulting), `kinds` being the cluster's registry."""


@dataclass(frozen=True)
class KindInfo:
    """One API kind: how manifests name it and which model holds it, and optionally how
    the embedded cluster validates a new object of it (`validate`)."""

    api_version: str
    kind: str
    plural: str
    namespaced: bool
    model: type[K8sModel]
    validate: KindValidator | None = None

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0]


class KindRegistry:
    """Kinds by (apiVersion, kind); registering the same kind twice is an error."""

    def __init__(self) -> None:
        self._kinds: dict[tuple[str, str], KindInfo] = {}

    def register(self, info: KindInfo) -> None:
        key = (info.api_version, info.kind)
        existing = self._kinds.get(key)
        if existing is not None and existing != info:
            raise ValueError(f"kind {info.kind} ({info.api_version}) is already registered")
        self._kinds[key] = info

    def get(self, api_version: str, kind: str) -> KindInfo | None:
        return self._kinds.get((api_version, kind))

    def by_kind(self, kind: str) -> KindInfo | None:
        """The registered kind of that name, whatever its version (first registered wins)."""
        return next((k for k in self._kinds.values() if k.kind == kind), None)

    def __iter__(self) -> Iterator[KindInfo]:
        return iter(self._kinds.values())

    def __contains__(self, kind: str) -> bool:
        return self.by_kind(kind) is not None


def core_kinds() -> list[KindInfo]:
    """The kinds core itself understands."""
    return [
        KindInfo("v1", "Node", "nodes", namespaced=False, model=Node),
        KindInfo("v1", "Pod", "pods", namespaced=True, model=Pod),
        KindInfo("v1", "Namespace", "namespaces", namespaced=False, model=Namespace),
        KindInfo(
            "scheduling.k8s.io/v1",
            "PriorityClass",
            "priorityclasses",
            namespaced=False,
            model=PriorityClass,
        ),
    ]
