"""The kubesched-builtin distribution's metadata: version and plugin entry points."""

from __future__ import annotations

import importlib.metadata

import kubesched_builtin

# The default plugins and the modules they live in; the entry point names are the plugin names
# used in a KubeSchedulerConfiguration profile.
EXPECTED_ENTRY_POINTS = {
    "PrioritySort": "kubesched_builtin.queuesort:PrioritySort",
    "NodeUnschedulable": "kubesched_builtin.nodeunschedulable:NodeUnschedulable",
    "NodeName": "kubesched_builtin.nodename:NodeName",
    "NodeResourcesFit": "kubesched_builtin.noderesources:NodeResourcesFit",
    "DefaultBinder": "kubesched_builtin.defaultbinder:DefaultBinder",
    "SchedulingGates": "kubesched_builtin.schedulinggates:SchedulingGates",
    "TaintToleration": "kubesched_builtin.tainttoleration:TaintToleration",
    "NodeAffinity": "kubesched_builtin.nodeaffinity:NodeAffinity",
    "NodePorts": "kubesched_builtin.nodeports:NodePorts",
    "PodTopologySpread": "kubesched_builtin.podtopologyspread:PodTopologySpread",
    "InterPodAffinity": "kubesched_builtin.interpodaffinity:InterPodAffinity",
    "DefaultPreemption": "kubesched_builtin.defaultpreemption:DefaultPreemption",
    "NodeResourcesBalancedAllocation": (
        "kubesched_builtin.balancedallocation:NodeResourcesBalancedAllocation"
    ),
    "ImageLocality": "kubesched_builtin.imagelocality:ImageLocality",
}


def test_version_matches_distribution_metadata() -> None:
    assert kubesched_builtin.__version__ == importlib.metadata.version("kubesched-builtin")


def test_declares_the_default_plugins_as_entry_points() -> None:
    dist = importlib.metadata.distribution("kubesched-builtin")
    declared = {ep.name: ep.value for ep in dist.entry_points if ep.group == "kubesched.plugins"}
    assert declared == EXPECTED_ENTRY_POINTS


def test_declares_its_hook_module() -> None:
    dist = importlib.metadata.distribution("kubesched-builtin")
    hooks = {ep.name: ep.value for ep in dist.entry_points if ep.group == "kubesched"}
    assert hooks == {"builtin": "kubesched_builtin.hooks"}
