"""Shared helpers of kubesched-dra's tests: the kinds registry with this package's hook,
loading manifests written as text, and creating objects in a memory cluster."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubesched.api import KindRegistry
from kubesched.clock import VirtualClock
from kubesched.cluster.memory import AdmissionError, MemoryCluster, default_kinds
from kubesched.runtime import make_plugin_manager
from kubesched.simulate._manifests import LoadedManifests, load_manifests
from kubesched_dra import hooks


def dra_kind_registry() -> KindRegistry:
    """Core's kinds and this package's, registered through its hook."""
    pm = make_plugin_manager(load_entrypoints=False)
    pm.register(hooks)
    kinds: KindRegistry = default_kinds(pm)
    return kinds


def load_text(tmp_path: Path, text: str, name: str = "objects.yaml") -> LoadedManifests:
    """Load `text` as one manifest file, strictly (unknown fields are errors)."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_manifests([path], dra_kind_registry())


def only(loaded: LoadedManifests) -> Any:
    (obj,) = loaded.objects
    return obj


def create_in_memory(*objects: Any) -> MemoryCluster:
    """A memory cluster (this package's kinds registered) with `objects` created in order;
    AdmissionError when the API server would refuse one."""
    cluster = MemoryCluster(dra_kind_registry(), VirtualClock(), uid_seed=1)
    cluster.create_many(list(objects))
    return cluster


def refusal(obj: Any) -> str:
    """The API server's message refusing to create `obj` (the test fails if it is
    accepted)."""
    try:
        create_in_memory(obj)
    except AdmissionError as error:
        return str(error)
    raise AssertionError(f"{obj.kind} {obj.metadata.name} was accepted")
