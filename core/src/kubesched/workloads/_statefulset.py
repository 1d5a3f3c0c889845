"""The StatefulSet controller of the embedded cluster.

upstream: pkg/controller/statefulset (stateful_set_control.go updateStatefulSet,
stateful_pod_control.go createPersistentVolumeClaims, stateful_set_utils.go
newStatefulSetPod, getPersistentVolumeClaims, updateStorage). Pods are named
`<sts>-<ordinal>` and labelled with their name and index; each volume claim template
`<t>` gives ordinal i a PersistentVolumeClaim `<t>-<sts>-<i>` (created before the pod,
labelled with the StatefulSet's matchLabels, never deleted: the default Retain policy),
mounted as the pod's volume `<t>`. With `podManagementPolicy: OrderedReady` (the
default) ordinal i+1 is created only once ordinal i is Running and Ready, which in the
simulation means bound to a node and not terminating; a scale-down removes the highest
ordinal first, one at a time. `Parallel` creates and deletes them all at once. A replica
that failed (or succeeded) is deleted and made again under its name.

The PersistentVolumeClaim kind is kubesched-volumebinding's: claims are built from the
registered kind's model and created through the cluster like any object, so that package's
controllers bind them. Without it a StatefulSet with claim templates is refused on create
(see `_validation`).
"""

from __future__ import annotations

from typing import Any

from kubesched.api import ObjectMeta, Pod, PodSpec, Volume
from kubesched.workloads._labels import POD_INDEX, POD_NAME
from kubesched.workloads._models import StatefulSet, StatefulSetStatus
from kubesched.workloads._pods import is_active, pod_from_template
from kubesched.workloads._reconciler import Reconciler
from kubesched.workloads._validation import PVC_KIND

__all__ = ["StatefulSetController", "claim_name", "ordinal_of"]


def claim_name(template: str, sts: str, ordinal: int) -> str:
    """upstream getPersistentVolumeClaimName: `<template>-<sts>-<ordinal>`."""
    return f"{template}-{sts}-{ordinal}"


def ordinal_of(pod: Pod, sts: str) -> int | None:
    """The ordinal in a pod's name `<sts>-<ordinal>`, None when it has none."""
    prefix, _, number = pod.metadata.name.rpartition("-")
    if prefix != sts or not number.isdigit():
        return None
    return int(number)


class StatefulSetController(Reconciler):
    """Keeps each StatefulSet's ordinals 0..replicas-1, and their claims."""

    name = "statefulset"
    kind = "StatefulSet"

    async def sync(self, obj: Any) -> None:
        sts: StatefulSet = obj
        name = sts.metadata.name
        ordered = sts.spec.pod_management_policy == "OrderedReady"
        pods: dict[int, Pod] = {}
        for pod in self.pods_of(sts):
            ordinal = ordinal_of(pod, name)
            if ordinal is not None:
                pods[ordinal] = pod
        replicas = sts.spec.replicas
        for ordinal in range(replicas):
            current = pods.get(ordinal)
            if current is None:
                await self._create_claims(sts, ordinal)
                await self.create_pod(self._new_pod(sts, ordinal))
                if ordered:
                    break
            elif current.is_terminal:
                # upstream: a failed or succeeded replica is deleted, then made again
                await self.delete_pod(current)
                if ordered:
                    break
            elif ordered and not (current.spec.node_name and is_active(current)):
                break  # wait until it runs (is bound) before the next ordinal
        extra = sorted((o for o in pods if o >= replicas), reverse=True)
        for ordinal in extra[:1] if ordered else extra:
            pod = pods[ordinal]
            if is_active(pod):
                await self.delete_pod(pod)
        running = sum(1 for p in pods.values() if is_active(p))
        status = StatefulSetStatus(
            replicas=running, observed_generation=sts.metadata.generation or 0
        )
        await self.write_status(sts, status)

    async def _create_claims(self, sts: StatefulSet, ordinal: int) -> None:
        templates = sts.spec.volume_claim_templates
        if not templates:
            return
        cluster = self.cluster
        info = cluster.kinds.by_kind(PVC_KIND)
        if info is None:  # refused on create; a kind unregistered since is a programming error
            raise LookupError(f"StatefulSet {sts.metadata.name}: kind {PVC_KIND} not registered")
        selector = sts.spec.selector
        match_labels = dict(selector.match_labels) if selector is not None else {}
        for template in templates:
            meta = template.get("metadata") or {}
            claim = claim_name(meta.get("name", ""), sts.metadata.name, ordinal)
            if cluster.get(PVC_KIND, claim, sts.metadata.namespace) is not None:
                continue
            labels = {**(meta.get("labels") or {}), **match_labels}
            body = {k: v for k, v in template.items() if k not in ("apiVersion", "kind")}
            body |= {
                "apiVersion": info.api_version,
                "kind": PVC_KIND,
                "metadata": ObjectMeta(
                    name=claim,
                    namespace=sts.metadata.namespace,
                    labels=labels,
                    annotations=dict(meta.get("annotations") or {}),
                ).to_dict(),
            }
            await cluster.create(info.model.model_validate(body))

    def _new_pod(self, sts: StatefulSet, ordinal: int) -> Pod:
        """upstream newStatefulSetPod: name, identity labels, the claims as volumes."""
        name = f"{sts.metadata.name}-{ordinal}"
        spec: PodSpec = sts.template.spec
        claims = {
            (t.get("metadata") or {}).get("name", ""): claim_name(
                (t.get("metadata") or {}).get("name", ""), sts.metadata.name, ordinal
            )
            for t in sts.spec.volume_claim_templates
        }
        if claims:
            # upstream updateStorage: a template volume of a claim's name is replaced
            volumes = [v for v in spec.volumes if v.name not in claims]
            volumes += [
                Volume(name=t, persistent_volume_claim={"claimName": c}) for t, c in claims.items()
            ]
            spec = spec.model_copy(update={"volumes": volumes})
        labels = {POD_NAME: name, POD_INDEX: str(ordinal)}
        return pod_from_template(sts.template, sts, name=name, labels=labels, spec=spec)
