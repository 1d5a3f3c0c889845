"""API kinds this distribution adds to kubesched: PodDisruptionBudget (`policy/v1`), and
the embedded cluster's disruption controller that keeps its status."""

from kubesched_builtin.kinds.disruption import DisruptionController, compute_status, pod_is_healthy
from kubesched_builtin.kinds.pdb import (
    PDB_KIND,
    IntOrString,
    PodDisruptionBudget,
    PodDisruptionBudgetSpec,
    PodDisruptionBudgetStatus,
    scaled_value,
)

__all__ = [
    "PDB_KIND",
    "DisruptionController",
    "IntOrString",
    "PodDisruptionBudget",
    "PodDisruptionBudgetSpec",
    "PodDisruptionBudgetStatus",
    "compute_status",
    "pod_is_healthy",
    "scaled_value",
]
