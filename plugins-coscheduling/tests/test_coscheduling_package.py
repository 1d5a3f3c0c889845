"""The kubesched-coscheduling distribution: its version, its public names, and what its
entry points provide once installed (the plugin, the PodGroup kind, the controller)."""

from __future__ import annotations

from importlib.metadata import entry_points, version

import kubesched_coscheduling
from kubesched.clock import VirtualClock
from kubesched.cluster.memory import MemoryCluster, default_kinds
from kubesched.runtime import PluginRegistry, make_plugin_manager


def test_version_matches_distribution_metadata() -> None:
    assert kubesched_coscheduling.__version__ == version("kubesched-coscheduling")


def test_public_names() -> None:
    assert sorted(kubesched_coscheduling.__all__) == [
        "API_VERSION",
        "COSCHEDULING",
        "Coscheduling",
        "CoschedulingArgs",
        "POD_GROUP_KIND_INFO",
        "POD_GROUP_LABEL",
        "PodGroup",
        "PodGroupCondition",
        "PodGroupController",
        "PodGroupSpec",
        "PodGroupStatus",
        "__version__",
    ]


def test_entry_points_are_declared() -> None:
    plugins = {ep.name: ep.value for ep in entry_points(group="kubesched.plugins")}
    hooks = {ep.name: ep.value for ep in entry_points(group="kubesched")}
    assert plugins["Coscheduling"] == "kubesched_coscheduling:Coscheduling"
    assert hooks["coscheduling"] == "kubesched_coscheduling.hooks"


def test_discovery_finds_the_plugin_and_the_hooks_the_kind_and_controller() -> None:
    entry = PluginRegistry.discover().entries["Coscheduling"]
    assert entry.ok and entry.distribution == "kubesched-coscheduling"
    assert entry.extension_points == [
        "QueueSort",
        "PreEnqueue",
        "PreFilter",
        "PostFilter",
        "Reserve",
        "Permit",
    ]
    pm = make_plugin_manager()
    kinds = default_kinds(pm)
    info = kinds.get("scheduling.x-k8s.io/v1alpha1", "PodGroup")
    assert info is not None and info.namespaced and info.plural == "podgroups"
    cluster = MemoryCluster(kinds, VirtualClock())
    names = [c.name for cs in pm.hook.kubesched_cluster_controllers(cluster=cluster) for c in cs]
    assert "podgroup-status" in names
