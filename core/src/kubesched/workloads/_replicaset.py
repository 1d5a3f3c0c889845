"""The ReplicaSet and Deployment controllers of the embedded cluster.

upstream: pkg/controller/replicaset/replica_set.go (syncReplicaSet, manageReplicas,
getPodsToDelete) and pkg/controller/deployment (sync.go getNewReplicaSet, recreate.go).
A ReplicaSet keeps `replicas` active pods it controls, named `<rs>-<5 random characters>`
(generateName; the characters come from the cluster's seeded generator, so runs repeat).
A Deployment keeps one ReplicaSet per pod template, named `<deployment>-<pod-template-hash>`,
with `pod-template-hash` added to its selector and template labels, scaled to the
Deployment's replicas (the oldest ReplicaSet whose template equals the Deployment's,
ignoring the hash, is the current one, as upstream finds it); ReplicaSets of other templates
are scaled to zero at once (the Recreate strategy's outcome; a RollingUpdate's gradual surge
is not modelled). Pods and ReplicaSets are matched by their controller reference (uid), not
adopted by selector.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final, cast

from kubesched.api import LabelSelector, ObjectMeta, Pod
from kubesched.cluster import Cluster, WatchEvent
from kubesched.workloads._labels import POD_TEMPLATE_HASH
from kubesched.workloads._models import (
    Deployment,
    DeploymentStatus,
    PodTemplateSpec,
    ReplicaSet,
    ReplicaSetSpec,
    ReplicaSetStatus,
)
from kubesched.workloads._pods import (
    compute_hash,
    controller_of,
    is_active,
    owned_by,
    owner_reference,
    pod_from_template,
)
from kubesched.workloads._reconciler import Reconciler

__all__ = ["DeploymentController", "ReplicaSetController", "equal_ignore_hash", "pods_to_delete"]

_POD: Final = "Pod"
_EPOCH: Final = datetime.min.replace(tzinfo=UTC)


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
        cluster = self.cluster
        active = [p for p in owned_by(cluster.list(_POD), rs) if is_active(p)]
        diff = len(active) - rs.spec.replicas
        if diff < 0:
            for _ in range(-diff):
                pod = pod_from_template(rs.template, rs, generate_name=f"{rs.metadata.name}-")
                await cluster.create(pod)
        elif diff > 0:
            for pod in pods_to_delete(active, diff):
                await cluster.delete(_POD, pod.metadata.name, pod.metadata.namespace)
        status = ReplicaSetStatus(
            replicas=len(active), observed_generation=rs.metadata.generation or 0
        )
        await self.write_status(rs, status)


class DeploymentController(Reconciler):
    """Keeps one ReplicaSet per Deployment at the Deployment's replicas."""

    name = "deployment"
    kind = "Deployment"

    def watch_more(self, cluster: Cluster) -> None:
        cluster.watch("ReplicaSet", self._on_replicaset)

    def _on_pod(self, ev: WatchEvent) -> None:
        return  # a Deployment's pods belong to its ReplicaSets

    def _on_replicaset(self, ev: WatchEvent) -> None:
        ref = controller_of(ev.obj)
        if ref is None or ref.kind != self.kind:
            return
        owner = self.cluster.get(self.kind, ref.name, ev.obj.metadata.namespace)
        if owner is not None and owner.metadata.uid == ref.uid:
            self.enqueue(owner)

    async def sync(self, obj: Any) -> None:
        deployment: Deployment = obj
        cluster = self.cluster
        owned: list[ReplicaSet] = owned_by(cluster.list("ReplicaSet"), deployment)
        if not deployment.spec.paused:
            current = _new_replicaset_of(deployment, owned)
            if current is None:
                template_hash = compute_hash(deployment.template, deployment.status.collision_count)
                created = await cluster.create(_new_replicaset(deployment, template_hash))
                current = cast(ReplicaSet, created)
            await _scale(cluster, current, deployment.spec.replicas)
            for rs in owned:
                if rs.metadata.uid != current.metadata.uid:
                    await _scale(cluster, rs, 0)
        status = DeploymentStatus(
            replicas=sum(rs.status.replicas for rs in owned),
            observed_generation=deployment.metadata.generation or 0,
            collision_count=deployment.status.collision_count,
        )
        await self.write_status(deployment, status)


def equal_ignore_hash(a: PodTemplateSpec, b: PodTemplateSpec) -> bool:
    """upstream deploymentutil.EqualIgnoreHash: the templates are equal once their
    `pod-template-hash` labels are left out."""

    def without_hash(t: PodTemplateSpec) -> PodTemplateSpec:
        labels = {k: v for k, v in t.metadata.labels.items() if k != POD_TEMPLATE_HASH}
        return t.model_copy(update={"metadata": t.metadata.model_copy(update={"labels": labels})})

    return without_hash(a) == without_hash(b)


def _new_replicaset_of(deployment: Deployment, owned: list[ReplicaSet]) -> ReplicaSet | None:
    """upstream FindNewReplicaSet: the oldest owned ReplicaSet whose template is the
    Deployment's. Matching by template rather than by the hash keeps the ReplicaSets of a
    snapshot of a real cluster, whose pod-template-hash kubesched does not recompute."""
    matching = [rs for rs in owned if equal_ignore_hash(rs.template, deployment.template)]
    if not matching:
        return None
    return min(
        matching,
        key=lambda rs: (rs.metadata.creation_timestamp or _EPOCH, rs.metadata.name),
    )


async def _scale(cluster: Cluster, rs: ReplicaSet, replicas: int) -> None:
    if rs.spec.replicas != replicas:
        spec = rs.spec.model_copy(update={"replicas": replicas})
        await cluster.update(rs.model_copy(update={"spec": spec}))


def _new_replicaset(deployment: Deployment, template_hash: str) -> ReplicaSet:
    """upstream getNewReplicaSet: the template and selector with `pod-template-hash` added,
    named `<deployment>-<hash>`, controlled by the Deployment."""
    template = deployment.template
    labels = {**template.metadata.labels, POD_TEMPLATE_HASH: template_hash}
    new_template = PodTemplateSpec(
        metadata=template.metadata.model_copy(update={"labels": labels}), spec=template.spec
    )
    selector = deployment.spec.selector or LabelSelector()
    match_labels = {**selector.match_labels, POD_TEMPLATE_HASH: template_hash}
    meta = deployment.metadata
    return ReplicaSet(
        metadata=ObjectMeta(
            name=f"{meta.name}-{template_hash}",
            namespace=meta.namespace,
            labels=labels,
            owner_references=[owner_reference(deployment)],
        ),
        spec=ReplicaSetSpec(
            replicas=deployment.spec.replicas,
            selector=selector.model_copy(update={"match_labels": match_labels}),
            template=new_template,
        ),
    )
