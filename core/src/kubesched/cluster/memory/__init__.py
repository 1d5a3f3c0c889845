"""The embedded in-memory cluster: the default backend for `simulate` and for tests."""

from kubesched.cluster.memory._admission import SYSTEM_PRIORITY_CLASSES, AdmissionError
from kubesched.cluster.memory._cluster import MAX_EVENTS, MemoryCluster
from kubesched.cluster.memory._kinds import default_kinds

__all__ = [
    "MAX_EVENTS",
    "SYSTEM_PRIORITY_CLASSES",
    "AdmissionError",
    "MemoryCluster",
    "default_kinds",
]
