"""Shared helpers of kubesched-dra's tests: the kinds registry with this package's hook,
and loading manifests written as text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubesched.api import KindRegistry
from kubesched.cluster.memory import default_kinds
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
