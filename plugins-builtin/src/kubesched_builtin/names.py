"""The names of the plugins in this distribution, as profiles and entry points spell them.

Upstream: pkg/scheduler/framework/plugins/names/names.go. One place for every name, so a
plugin, its entry point and a test never disagree on spelling.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "DEFAULT_BINDER",
    "DEFAULT_PREEMPTION",
    "NODE_NAME",
    "NODE_RESOURCES_FIT",
    "NODE_UNSCHEDULABLE",
    "PRIORITY_SORT",
    "SCHEDULING_GATES",
]

PRIORITY_SORT: Final = "PrioritySort"
SCHEDULING_GATES: Final = "SchedulingGates"
NODE_UNSCHEDULABLE: Final = "NodeUnschedulable"
NODE_NAME: Final = "NodeName"
NODE_RESOURCES_FIT: Final = "NodeResourcesFit"
DEFAULT_BINDER: Final = "DefaultBinder"

# TaintToleration, NodeAffinity, NodePorts, ImageLocality, NodeResourcesBalancedAllocation
TAINT_TOLERATION: Final = "TaintToleration"
NODE_AFFINITY: Final = "NodeAffinity"
NODE_PORTS: Final = "NodePorts"
IMAGE_LOCALITY: Final = "ImageLocality"
NODE_RESOURCES_BALANCED_ALLOCATION: Final = "NodeResourcesBalancedAllocation"
__all__ += [
    "IMAGE_LOCALITY",
    "NODE_AFFINITY",
    "NODE_PORTS",
    "NODE_RESOURCES_BALANCED_ALLOCATION",
    "TAINT_TOLERATION",
]

# DefaultPreemption (PostFilter)
DEFAULT_PREEMPTION: Final = "DefaultPreemption"
POD_TOPOLOGY_SPREAD: Final = "PodTopologySpread"

# InterPodAffinity (PreFilter, Filter, PreScore, Score)
INTER_POD_AFFINITY: Final = "InterPodAffinity"
__all__ += ["INTER_POD_AFFINITY"]
__all__ += ["POD_TOPOLOGY_SPREAD"]  # PodTopologySpread (PreFilter, Filter, PreScore, Score)
