"""The names of the plugins in this distribution, as profiles and entry points spell them.

Upstream: pkg/scheduler/framework/plugins/names/names.go. One place for every name, so a
plugin, its entry point and a test never disagree on spelling.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "DEFAULT_BINDER",
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
