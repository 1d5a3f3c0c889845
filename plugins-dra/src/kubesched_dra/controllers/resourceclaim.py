"""The resourceclaim controller of the embedded cluster: a claim per pod from each
template the pod names, and the claims' release when pods are done.

upstream: pkg/controller/resourceclaim/controller.go. For each `spec.resourceClaims`
entry with `resourceClaimTemplateName` it creates a ResourceClaim (generateName
`<pod>-<claim>-`, the pod as controlling owner, the template's labels and annotations
plus `resource.kubernetes.io/pod-claim-name`, the template's spec) and records it in the
pod's `status.resourceClaimStatuses`; a pod bound without the scheduler gets its
allocated claims reserved. When a pod is deleted, finishes, or is deleted before it was
scheduled, it is removed from its claims' `status.reservedFor`; a claim nobody reserves
any more is deallocated (its allocation cleared and the
`resource.kubernetes.io/delete-protection` finalizer removed, only when the scheduler
set that finalizer), and a generated claim whose pod will not run is deleted.

Differences, for a simulation: the claims of a deleted pod are deleted here, where
upstream leaves them to the garbage collector (which reads their owner reference); a
pod whose template does not exist gets a Warning Event (FailedResourceClaimCreation, as
upstream) and is tried again when the template is created, where upstream retries with
backoff; the memory cluster deletes a claim at once, so the finalizer never holds one
back. A pod that is done gets no claim created or reserved (the fix proposed upstream
for kubernetes/kubernetes#141274, where a finished pod's claims are reserved or made
again and released again, without end).
"""

from __future__ import annotations

import asyncio
from typing import Any, Final, cast

from kubesched import ConflictError, KubeschedError, NotFoundError
from kubesched.api import ObjectMeta, OwnerReference, Pod, PodResourceClaim, PodResourceClaimStatus
from kubesched.cluster import Cluster, KubeEvent, WatchEvent, WorkQueue
from kubesched_dra.api import (
    FINALIZER,
    POD_RESOURCE_CLAIM_ANNOTATION,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceClaimTemplate,
)
from kubesched_dra.resourceclaim import (
    ClaimNotCreatedError,
    claim_name,
    is_for_pod,
    is_pod_done,
    owning_pod,
)

__all__ = ["FAILED_RESOURCE_CLAIM_CREATION", "ResourceClaimController"]

FAILED_RESOURCE_CLAIM_CREATION: Final = "FailedResourceClaimCreation"
"""The reason of the Warning Event on a pod whose claim could not be created."""

_POD: Final = "pod:"
_CLAIM: Final = "claim:"
_MAX_BASE_LEN: Final = 57  # a 63-character name less "-" and 5 random characters


class ResourceClaimController:
    """Creates template claims and releases claims in the memory cluster (a
    `kubesched.cluster.Controller`)."""

    name = "resource_claim"

    def __init__(self) -> None:
        self._cluster: Cluster | None = None
        self._queue = WorkQueue(self.name, self._sync, retry_on=(ConflictError, NotFoundError))
        self._deleted_pods: set[str] = set()  # uids (upstream's deletedObjects cache)
        self._claims_of_pod: dict[str, set[str]] = {}  # pod key -> claim keys
        self._pods_of_claim: dict[str, set[str]] = {}  # claim key -> pod keys
        self._pods_of_template: dict[str, set[str]] = {}  # template key -> pod keys
        self._claims_of_owner: dict[str, set[str]] = {}  # pod uid -> keys of claims it owns

    @property
    def cluster(self) -> Cluster:
        assert self._cluster is not None, "ResourceClaimController.start() was not called"
        return self._cluster

    # -- Controller -----------------------------------------------------------------------
    def start(self, cluster: Cluster) -> None:
        self._cluster = cluster
        cluster.watch("Pod", self._on_pod)
        cluster.watch("ResourceClaim", self._on_claim)
        cluster.watch("ResourceClaimTemplate", self._on_template)

    def busy(self) -> bool:
        return self._queue.busy()

    # -- events ---------------------------------------------------------------------------
    def _on_pod(self, event: WatchEvent) -> None:
        pod: Pod = event.obj
        if not pod.spec.resource_claims:
            return
        deleted = event.type == "DELETED"
        self._index(pod, deleted)
        self._enqueue_pod(pod, deleted)

    def _on_claim(self, event: WatchEvent) -> None:
        claim: ResourceClaim = event.obj
        key = _key(claim.metadata)
        self._index_claim(claim, event.type == "DELETED")
        if event.type != "DELETED":
            # also finds stale reservations of claims that exist when the controller starts
            self._add(_CLAIM + key)
        for pod_key in list(self._pods_of_claim.get(key, ())):
            pod = self._pod(pod_key)
            if pod is not None:
                self._enqueue_pod(pod, False)

    def _on_template(self, event: WatchEvent) -> None:
        if event.type != "ADDED":
            return
        for pod_key in list(self._pods_of_template.get(_key(event.obj.metadata), ())):
            pod = self._pod(pod_key)
            if pod is not None:
                self._enqueue_pod(pod, False)

    def _enqueue_pod(self, pod: Pod, deleted: bool) -> None:
        """upstream enqueuePod: release the claims of a pod that will not run, and queue
        the pod when it needs claims created or reserved."""
        if deleted:
            self._deleted_pods.add(pod.metadata.uid)
        if not _needs_claims(pod, deleted):
            namespace = pod.metadata.namespace or "default"
            for pod_claim in pod.spec.resource_claims:
                name = _resolved_name(pod, pod_claim)
                if name is not None:
                    self._add(f"{_CLAIM}{namespace}/{name}")
        if not deleted and self._needs_work(pod):
            self._add(_POD + _key(pod.metadata))

    def _needs_work(self, pod: Pod) -> bool:
        """upstream podNeedsWork, with the guard of kubernetes/kubernetes#141276: a pod
        that is done needs nothing (upstream re-reserves or re-creates its claims, which
        the claim sync then releases again, kubernetes/kubernetes#141274)."""
        if pod.metadata.deletion_timestamp is not None or is_pod_done(pod):
            return False
        namespace = pod.metadata.namespace or "default"
        for pod_claim in pod.spec.resource_claims:
            try:
                name, check_owner = claim_name(pod, pod_claim)
            except (ClaimNotCreatedError, ValueError):
                return True
            if name is None:
                return False
            claim = self.cluster.get("ResourceClaim", name, namespace)
            if claim is None:
                return pod_claim.resource_claim_template_name is not None
            if check_owner and not is_for_pod(pod, claim):
                return False
            if not pod.spec.node_name:
                continue
            if claim.status.allocation is not None and not claim.is_reserved_for(pod.uid):
                return True
        return False

    def _index(self, pod: Pod, deleted: bool) -> None:
        """Which claims and templates each pod names (upstream's podResourceClaimIndex),
        so a claim or template event finds its pods without a scan."""
        key = _key(pod.metadata)
        namespace = pod.metadata.namespace or "default"
        for claim_key in self._claims_of_pod.pop(key, set()):
            self._pods_of_claim.get(claim_key, set()).discard(key)
        for pod_claim in pod.spec.resource_claims:
            template = pod_claim.resource_claim_template_name
            if template is not None:
                pods = self._pods_of_template.setdefault(f"{namespace}/{template}", set())
                pods.discard(key) if deleted else pods.add(key)
        if deleted:
            return
        claims = set()
        for pod_claim in pod.spec.resource_claims:
            name = _resolved_name(pod, pod_claim)
            if name is not None:
                claims.add(f"{namespace}/{name}")
                self._pods_of_claim.setdefault(f"{namespace}/{name}", set()).add(key)
        self._claims_of_pod[key] = claims

    def _index_claim(self, claim: ResourceClaim, deleted: bool) -> None:
        """Claims by owning pod (upstream's claimPodOwnerIndex); a claim this controller
        creates is indexed at once, as upstream's mutation cache holds it, so a retry
        finds it before its watch event arrives."""
        owner = owning_pod(claim)
        if owner is None:
            return
        keys = self._claims_of_owner.setdefault(owner[1], set())
        keys.discard(_key(claim.metadata)) if deleted else keys.add(_key(claim.metadata))
        if not keys:
            del self._claims_of_owner[owner[1]]

    # -- the queue ------------------------------------------------------------------------
    def _add(self, key: str) -> None:
        self._queue.add(key)

    async def _sync(self, key: str) -> None:
        if key.startswith(_POD):
            await self.sync_pod(*_split(key[len(_POD) :]))
        else:
            await self.sync_claim(*_split(key[len(_CLAIM) :]))

    # -- pods -----------------------------------------------------------------------------
    async def sync_pod(self, namespace: str, name: str) -> None:
        """upstream syncPod: create the pod's template claims, record them in its status,
        and reserve allocated claims of a pod bound without the scheduler."""
        pod: Pod | None = self.cluster.get("Pod", name, namespace)
        if pod is None or pod.metadata.deletion_timestamp is not None or is_pod_done(pod):
            return
        created: dict[str, str] = {}
        for pod_claim in pod.spec.resource_claims:
            problem = await self._handle_claim(pod, pod_claim, created)
            if problem is not None:
                await self._record_failure(pod, f"PodResourceClaim {pod_claim.name}: {problem}")
                break
        if created:
            pod = await self._record_claims(pod, created)
        if not pod.spec.node_name:
            return  # the scheduler reserves the claims
        for pod_claim in pod.spec.resource_claims:
            try:
                name_, check_owner = claim_name(pod, pod_claim)
            except (ClaimNotCreatedError, ValueError):
                return
            if name_ is None:
                continue
            claim = self.cluster.get("ResourceClaim", name_, namespace)
            if claim is None or (check_owner and not is_for_pod(pod, claim)):
                return
            if claim.status.allocation is not None and not claim.is_reserved_for(pod.uid):
                await self._reserve(pod, claim)

    async def _handle_claim(
        self, pod: Pod, pod_claim: PodResourceClaim, created: dict[str, str]
    ) -> str | None:
        """upstream handleClaim: create the claim of a template entry unless it exists;
        the problem that stopped it, None when there was none."""
        namespace = pod.metadata.namespace or "default"
        try:
            name, check_owner = claim_name(pod, pod_claim)
        except ClaimNotCreatedError:
            pass
        else:
            if name is None:
                return None
            existing = self.cluster.get("ResourceClaim", name, namespace)
            if existing is not None and (not check_owner or is_for_pod(pod, existing)):
                return None
        template_name = pod_claim.resource_claim_template_name
        if template_name is None:
            return None
        claim = self._find_generated(pod, pod_claim)
        if claim is None:
            template = self.cluster.get("ResourceClaimTemplate", template_name, namespace)
            if template is None:
                return (
                    f'resource claim template "{template_name}": resourceclaimtemplate.'
                    f'resource.k8s.io "{template_name}" not found'
                )
            try:
                claim = cast(
                    ResourceClaim, await self.cluster.create(_claim_for(pod, pod_claim, template))
                )
            except ConflictError:
                raise
            except KubeschedError as error:
                # upstream names the claim it tried to create: empty before generateName
                return f"create ResourceClaim : {error}"
            self._index_claim(claim, False)
        created[pod_claim.name] = claim.metadata.name
        return None

    def _find_generated(self, pod: Pod, pod_claim: PodResourceClaim) -> ResourceClaim | None:
        """upstream findPodResourceClaim: a claim the pod owns, annotated with this entry's
        name (created before the pod's status could record it)."""
        for key in sorted(self._claims_of_owner.get(pod.uid, ())):
            namespace, name = _split(key)
            claim: ResourceClaim | None = self.cluster.get("ResourceClaim", name, namespace)
            if claim is None or not is_for_pod(pod, claim):
                continue
            if claim.metadata.annotations.get(POD_RESOURCE_CLAIM_ANNOTATION) == pod_claim.name:
                return claim
        return None

    async def _record_claims(self, pod: Pod, created: dict[str, str]) -> Pod:
        """The pod's `status.resourceClaimStatuses` with the new claims (entries keyed by
        name, as the status apply of upstream merges them)."""
        statuses = {s.name: s for s in pod.status.resource_claim_statuses}
        for pod_claim_name, name in created.items():
            statuses[pod_claim_name] = PodResourceClaimStatus(
                name=pod_claim_name, resource_claim_name=name
            )
        ordered = [statuses.pop(c.name) for c in pod.spec.resource_claims if c.name in statuses]
        status = pod.status.model_copy(
            update={"resource_claim_statuses": [*ordered, *statuses.values()]}
        )
        return cast(Pod, await self.cluster.update(pod.model_copy(update={"status": status})))

    async def _reserve(self, pod: Pod, claim: ResourceClaim) -> None:
        ref = ResourceClaimConsumerReference(resource="pods", name=pod.metadata.name, uid=pod.uid)
        status = claim.status.model_copy(update={"reserved_for": [*claim.status.reserved_for, ref]})
        await self.cluster.update(claim.model_copy(update={"status": status}))

    async def _record_failure(self, pod: Pod, message: str) -> None:
        event = KubeEvent(
            namespace=pod.metadata.namespace or "default",
            involved_kind="Pod",
            involved_name=pod.metadata.name,
            involved_uid=pod.uid,
            type="Warning",
            reason=FAILED_RESOURCE_CLAIM_CREATION,
            action="",
            message=message,
            reporting_controller=self.name,
            timestamp=asyncio.get_running_loop().time(),
            legacy=True,
        )
        await self.cluster.record_event(event)

    # -- claims ---------------------------------------------------------------------------
    async def sync_claim(self, namespace: str, name: str) -> None:
        """upstream syncClaim: drop reservations of pods that are gone or done; deallocate
        a claim nobody reserves any more; delete a generated claim whose pod will not run."""
        claim: ResourceClaim | None = self.cluster.get("ResourceClaim", name, namespace)
        if claim is None:
            return
        valid = [r for r in claim.status.reserved_for if self._keeps(namespace, r)]
        if len(valid) < len(claim.status.reserved_for):
            claim = await self._release(claim, valid)
        if valid:
            return
        owner = owning_pod(claim)
        if owner is None:
            return
        pod_name, pod_uid = owner
        pod: Pod | None = self.cluster.get("Pod", pod_name, namespace)
        gone = pod is None and pod_uid in self._deleted_pods  # the garbage collector's part
        if gone or (pod is not None and (pod.uid != pod_uid or is_pod_done(pod))):
            await self.cluster.delete("ResourceClaim", claim.metadata.name, namespace)

    def _keeps(self, namespace: str, ref: ResourceClaimConsumerReference) -> bool:
        if ref.api_group or ref.resource != "pods":
            return True  # upstream fails on other consumers; they are left alone here
        if ref.uid in self._deleted_pods:
            return False
        pod: Pod | None = self.cluster.get("Pod", ref.name, namespace)
        return pod is not None and pod.uid == ref.uid and not is_pod_done(pod)

    async def _release(
        self, claim: ResourceClaim, valid: list[ResourceClaimConsumerReference]
    ) -> ResourceClaim:
        """The reservations left; with none, the scheduler's allocation is cleared and its
        finalizer removed (DRA deallocates as soon as the last consumer is done)."""
        allocated_here = FINALIZER in claim.metadata.finalizers
        update: dict[str, Any] = {"reserved_for": valid}
        if not valid and allocated_here:
            update["allocation"] = None
        status = claim.status.model_copy(update=update)
        claim = cast(
            ResourceClaim, await self.cluster.update(claim.model_copy(update={"status": status}))
        )
        if claim.status.allocation is None and FINALIZER in claim.metadata.finalizers:
            finalizers = [f for f in claim.metadata.finalizers if f != FINALIZER]
            meta = claim.metadata.model_copy(update={"finalizers": finalizers})
            claim = cast(
                ResourceClaim,
                await self.cluster.update(claim.model_copy(update={"metadata": meta})),
            )
        return claim

    def _pod(self, key: str) -> Pod | None:
        namespace, name = _split(key)
        pod: Pod | None = self.cluster.get("Pod", name, namespace)
        return pod


def _claim_for(
    pod: Pod, pod_claim: PodResourceClaim, template: ResourceClaimTemplate
) -> ResourceClaim:
    """upstream handleClaim's new claim: named after the pod and the entry, owned by the
    pod, with the template's labels, annotations and spec."""
    generate_name = f"{pod.metadata.name}-{pod_claim.name}-"
    if len(generate_name) > _MAX_BASE_LEN:
        # both parts cut in proportion to their lengths, so the claim's part survives
        pod_part = pod.metadata.name[: len(pod.metadata.name) * _MAX_BASE_LEN // len(generate_name)]
        claim_part = pod_claim.name[: len(pod_claim.name) * _MAX_BASE_LEN // len(generate_name)]
        generate_name = f"{pod_part}-{claim_part}"
    annotations = dict(template.spec.metadata.annotations)
    annotations[POD_RESOURCE_CLAIM_ANNOTATION] = pod_claim.name
    owner = OwnerReference(
        api_version="v1", kind="Pod", name=pod.metadata.name, uid=pod.uid, controller=True
    )
    meta = ObjectMeta(
        generate_name=generate_name,
        namespace=pod.metadata.namespace or "default",
        owner_references=[owner],
        annotations=annotations,
        labels=dict(template.spec.metadata.labels),
    )
    # the cluster stores a copy of what it is given: the template's spec is not shared
    return ResourceClaim(metadata=meta, spec=template.spec.spec)


def _needs_claims(pod: Pod, deleted: bool) -> bool:
    """upstream podNeedsClaims: false once the pod is gone, finished, or deleted before it
    was scheduled."""
    return not (deleted or pod.is_terminal or (pod.is_terminating and not pod.spec.node_name))


def _resolved_name(pod: Pod, pod_claim: PodResourceClaim) -> str | None:
    """The claim an entry names, None when it names none (yet)."""
    try:
        return claim_name(pod, pod_claim)[0]
    except (ClaimNotCreatedError, ValueError):
        return None


def _key(meta: ObjectMeta) -> str:
    return f"{meta.namespace or 'default'}/{meta.name}"


def _split(key: str) -> tuple[str, str]:
    namespace, _, name = key.partition("/")
    return namespace, name
