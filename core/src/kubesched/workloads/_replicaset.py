"""The ReplicaSet controller of the embedded cluster.

upstream: pkg/controller/replicaset/replica_set.go (syncReplicaSet, manageReplicas,
getPodsToDelete, calculateStatus). A ReplicaSet keeps `replicas` active pods it controls,
named `<rs>-<5 random characters>` (generateName; the characters come from the cluster's
seeded generator, so runs repeat); a scale-down deletes unbound pods first, then the
newest. Pods are matched by their controller reference (uid), not adopted by selector.
Its status counts active pods and, as available, those bound to a node.
"""

from __future__ import annotations

from typing import Any

from kubesched.api import Pod
from kubesched.workloads._models import ReplicaSet, ReplicaSetStatus
from kubesched.workloads._pods import is_active, pod_from_template
from kubesched.workloads._reconciler import Reconciler

__all__ = ["ReplicaSetController", "pods_to_delete"]


def pods_to_delete(pods: list[Pod], count: int) -> list[Pod]:
    """The `count` pods a scale-down removes first (upstream getPodsToDelete, ranked as
    controller.ActivePods: unassigned before assigned, then the newest first)."""

    def rank(pod: Pod) -> tuple[bool, float, str]:
        created = pod.metadata.creation_timestamp
        return (bool(pod.spec.node_name), -(created.timestamp() if created else 0.0), pod.key)

    return sorted(pods, key=rank)[:count]


class ReplicaSetController(Reconciler):
    """Keeps each ReplicaSet's active pods at `spec.replicas`."""

    name = "replicaset"
    kind = "ReplicaSet"

    async def sync(self, obj: Any) -> None:
        rs: ReplicaSet = obj
        active, bound = self.pod_counts(rs)
        diff = active - rs.spec.replicas
        if diff < 0:
            for _ in range(-diff):
                pod = pod_from_template(rs.template, rs, generate_name=f"{rs.metadata.name}-")
                await self.create_pod(pod)
        elif diff > 0:
            pods = [p for p in self.pods_of(rs) if is_active(p)]
            for pod in pods_to_delete(pods, diff):
                await self.delete_pod(pod)
        status = ReplicaSetStatus(
            replicas=active,
            available_replicas=bound,
            observed_generation=rs.metadata.generation or 0,
        )
        await self.write_status(rs, status)
