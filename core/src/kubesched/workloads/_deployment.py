"""The Deployment controller of the embedded cluster.

upstream: pkg/controller/deployment (sync.go getNewReplicaSet, rolling.go rolloutRolling,
reconcileNewReplicaSet, reconcileOldReplicaSets, cleanupUnhealthyReplicas,
scaleDownOldReplicaSetsForRollingUpdate, recreate.go rolloutRecreate) and
pkg/controller/deployment/util (FindNewReplicaSet, EqualIgnoreHash, NewRSNewReplicas,
ResolveFenceposts). A Deployment keeps one ReplicaSet per pod template, named
`<deployment>-<pod-template-hash>`, with `pod-template-hash` added to its selector and
template labels. The current one is the oldest owned ReplicaSet whose template equals the
Deployment's (ignoring the hash), so a snapshot's ReplicaSets, whose hash kubesched does not
recompute, stay current.

A template change rolls out as upstream does: `RollingUpdate` (the default) scales the new
ReplicaSet up to `replicas + maxSurge` pods in all and the old ones down while at least
`replicas - maxUnavailable` pods are available (25% each by default); `Recreate` scales the
old ReplicaSets to zero and creates the new one once their pods are gone. A pod is available
once it is bound (a simulation has no readiness; minReadySeconds is ignored).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any, Final, cast

from kubesched.api import LabelSelector, ObjectMeta, Pod
from kubesched.cluster import Cluster, WatchEvent
from kubesched.workloads._labels import POD_TEMPLATE_HASH
from kubesched.workloads._models import (
    Deployment,
    DeploymentStatus,
    IntOrString,
    PodTemplateSpec,
    ReplicaSet,
    ReplicaSetSpec,
)
from kubesched.workloads._pods import compute_hash, controller_of, owned_by, owner_reference
from kubesched.workloads._reconciler import Reconciler

__all__ = ["DeploymentController", "equal_ignore_hash", "resolve_fenceposts"]

_EPOCH: Final = datetime.min.replace(tzinfo=UTC)


def equal_ignore_hash(a: PodTemplateSpec, b: PodTemplateSpec) -> bool:
    """upstream EqualIgnoreHash: the templates are equal once their `pod-template-hash`
    labels are left out."""

    def without_hash(t: PodTemplateSpec) -> PodTemplateSpec:
        labels = {k: v for k, v in t.metadata.labels.items() if k != POD_TEMPLATE_HASH}
        return t.model_copy(update={"metadata": t.metadata.model_copy(update={"labels": labels})})

    return without_hash(a) == without_hash(b)


def _scaled(value: IntOrString, total: int, round_up: bool) -> int:
    """upstream intstr.GetScaledValueFromIntOrPercent."""
    if isinstance(value, int):
        return value
    fraction = int(value[:-1]) * total / 100
    return math.ceil(fraction) if round_up else math.floor(fraction)


def resolve_fenceposts(deployment: Deployment) -> tuple[int, int]:
    """upstream ResolveFenceposts: (maxSurge, maxUnavailable) in pods, the surge rounded up,
    the unavailability down, and never both zero (unavailability 1 then)."""
    rolling = deployment.spec.strategy.rolling_update
    desired = deployment.spec.replicas
    surge = _scaled(rolling.max_surge if rolling else "25%", desired, True)
    unavailable = _scaled(rolling.max_unavailable if rolling else "25%", desired, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


class DeploymentController(Reconciler):
    """Keeps each Deployment's ReplicaSets, rolling out template changes."""

    name = "deployment"
    kind = "Deployment"

    def watch_more(self, cluster: Cluster) -> None:
        cluster.watch("ReplicaSet", self._on_replicaset)

    def _on_pod(self, ev: WatchEvent) -> None:
        """A pod of one of its ReplicaSets is gone: a Recreate rollout may go on."""
        pod: Pod = ev.obj
        ref = controller_of(pod)
        if ev.type != "DELETED" or ref is None or ref.kind != "ReplicaSet":
            return
        rs = self.cluster.get("ReplicaSet", ref.name, pod.metadata.namespace)
        if rs is not None:
            self._on_replicaset(WatchEvent("MODIFIED", "ReplicaSet", rs))

    def _on_replicaset(self, ev: WatchEvent) -> None:
        ref = controller_of(ev.obj)
        if ref is None or ref.kind != self.kind:
            return
        owner = self.cluster.get(self.kind, ref.name, ev.obj.metadata.namespace)
        if owner is not None and owner.metadata.uid == ref.uid:
            self.enqueue(owner)

    async def sync(self, obj: Any) -> None:
        deployment: Deployment = obj
        owned: list[ReplicaSet] = owned_by(self.cluster.list("ReplicaSet"), deployment)
        if not deployment.spec.paused:
            new = _find_new(deployment, owned)
            old = [rs for rs in owned if new is None or rs.metadata.uid != new.metadata.uid]
            if deployment.spec.strategy.type == "Recreate":
                await self._recreate(deployment, new, old)
            else:
                await self._rolling(deployment, new, old)
        owned = owned_by(self.cluster.list("ReplicaSet"), deployment)
        new = _find_new(deployment, owned)
        status = DeploymentStatus(
            replicas=sum(rs.status.replicas for rs in owned),
            updated_replicas=new.status.replicas if new is not None else 0,
            available_replicas=sum(rs.status.available_replicas for rs in owned),
            observed_generation=deployment.metadata.generation or 0,
            collision_count=deployment.status.collision_count,
        )
        await self.write_status(deployment, status)

    # -- RollingUpdate (rolling.go) -------------------------------------------------------
    async def _rolling(
        self, deployment: Deployment, new: ReplicaSet | None, old: list[ReplicaSet]
    ) -> None:
        desired = deployment.spec.replicas
        surge, unavailable = resolve_fenceposts(deployment)
        if new is None:
            total = sum(rs.spec.replicas for rs in old)
            await self._create(deployment, _new_replicas(desired, surge, total, 0))
            return
        # reconcileNewReplicaSet
        if new.spec.replicas > desired:
            await self._scale(new, desired)
            return
        if new.spec.replicas < desired:
            total = new.spec.replicas + sum(rs.spec.replicas for rs in old)
            target = _new_replicas(desired, surge, total, new.spec.replicas)
            if target != new.spec.replicas:
                await self._scale(new, target)
                return
        # reconcileOldReplicaSets
        old = sorted(old, key=_age)
        if sum(rs.spec.replicas for rs in old) == 0:
            return
        replicas = {rs.metadata.uid: rs.spec.replicas for rs in old}
        all_pods = new.spec.replicas + sum(replicas.values())
        min_available = desired - unavailable
        new_unavailable = new.spec.replicas - new.status.available_replicas
        max_scaled_down = all_pods - min_available - new_unavailable
        if max_scaled_down <= 0:
            return
        cleaned = 0  # cleanupUnhealthyReplicas: unavailable old pods go first
        for rs in old:
            unhealthy = replicas[rs.metadata.uid] - rs.status.available_replicas
            if cleaned >= max_scaled_down or unhealthy <= 0:
                continue
            count = min(max_scaled_down - cleaned, unhealthy)
            replicas[rs.metadata.uid] -= count
            cleaned += count
        available = new.status.available_replicas + sum(
            min(rs.status.available_replicas, replicas[rs.metadata.uid]) for rs in old
        )
        budget = max(available - min_available, 0)  # scaleDownOldReplicaSetsForRollingUpdate
        for rs in old:
            count = min(replicas[rs.metadata.uid], budget)
            replicas[rs.metadata.uid] -= count
            budget -= count
        for rs in old:
            await self._scale(rs, replicas[rs.metadata.uid])

    # -- Recreate (recreate.go) -----------------------------------------------------------
    async def _recreate(
        self, deployment: Deployment, new: ReplicaSet | None, old: list[ReplicaSet]
    ) -> None:
        for rs in old:
            await self._scale(rs, 0)
        uids = {rs.metadata.uid for rs in old}
        for pod in self.cluster.list("Pod"):
            ref = controller_of(pod)
            if ref is not None and ref.uid in uids and not pod.is_terminal:
                return  # old pods still running (terminating ones too)
        if new is None:
            await self._create(deployment, deployment.spec.replicas)
        else:
            await self._scale(new, deployment.spec.replicas)

    # -- writing --------------------------------------------------------------------------
    async def _create(self, deployment: Deployment, replicas: int) -> None:
        template_hash = compute_hash(deployment.template, deployment.status.collision_count)
        await self.cluster.create(_new_replicaset(deployment, template_hash, replicas))

    async def _scale(self, rs: ReplicaSet, replicas: int) -> None:
        if rs.spec.replicas != replicas:
            current = cast(
                ReplicaSet | None,
                self.cluster.get("ReplicaSet", rs.metadata.name, rs.metadata.namespace),
            )
            if current is None:
                return
            spec = current.spec.model_copy(update={"replicas": replicas})
            await self.cluster.update(current.model_copy(update={"spec": spec}))


def _new_replicas(desired: int, surge: int, total: int, current: int) -> int:
    """upstream NewRSNewReplicas (RollingUpdate): the new ReplicaSet grows while all the
    Deployment's ReplicaSets ask for fewer than `desired + surge` pods."""
    max_total = desired + surge
    if total >= max_total:
        return current
    return current + min(max_total - total, desired - current)


def _age(rs: ReplicaSet) -> tuple[datetime, str]:
    return rs.metadata.creation_timestamp or _EPOCH, rs.metadata.name


def _find_new(deployment: Deployment, owned: list[ReplicaSet]) -> ReplicaSet | None:
    """upstream FindNewReplicaSet: the oldest owned ReplicaSet with the Deployment's template."""
    matching = [rs for rs in owned if equal_ignore_hash(rs.template, deployment.template)]
    return min(matching, key=_age) if matching else None


def _new_replicaset(deployment: Deployment, template_hash: str, replicas: int) -> ReplicaSet:
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
            replicas=replicas,
            selector=selector.model_copy(update={"match_labels": match_labels}),
            template=new_template,
        ),
    )
