"""Which would-be victims a PodDisruptionBudget protects.

Upstream: pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go
(filterPodsWithPDBViolation).
"""

from __future__ import annotations

from collections.abc import Sequence

from kubesched.framework import PodInfo
from kubesched_builtin.kinds import PodDisruptionBudget

__all__ = ["filter_pods_with_pdb_violation"]


def filter_pods_with_pdb_violation(
    pod_infos: Sequence[PodInfo], pdbs: Sequence[PodDisruptionBudget]
) -> tuple[list[PodInfo], list[PodInfo]]:
    """Split pods into (violating, non-violating), keeping their order.

    Going down the list, each pod a budget selects uses one of its `disruptionsAllowed`; a
    pod is violating once some budget selecting it has none left. A budget's nil or empty
    selector selects nothing here, and a pod listed in its `disruptedPods` (an eviction the
    API server already admitted) is not counted again.
    """
    allowed = [pdb.status.disruptions_allowed for pdb in pdbs]
    violating: list[PodInfo] = []
    non_violating: list[PodInfo] = []
    for info in pod_infos:
        pod = info.pod
        labels = pod.metadata.labels
        namespace = pod.metadata.namespace or "default"
        violated = False
        if labels:  # a pod without labels matches no budget
            for i, pdb in enumerate(pdbs):
                if (pdb.metadata.namespace or "default") != namespace:
                    continue
                selector = pdb.spec.selector
                if selector is None or selector.is_empty() or not selector.matches(labels):
                    continue
                if pod.metadata.name in pdb.status.disrupted_pods:
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(info)
    return violating, non_violating
