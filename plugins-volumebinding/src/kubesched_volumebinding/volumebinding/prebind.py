"""PreBind's half of the binder: write the decisions, then wait for the PV controller.

Upstream: volumebinding/binder.go (BindPodVolumes, bindAPIUpdate, checkBindings). PVs are
written first, then claims, each with the resourceVersion the decision was made on (a
concurrent change is a conflict). Then, every second (virtual time in a simulation), the
informer's copies are checked until every claim is bound, something shows the binding
cannot complete, or `bind_timeout` runs out. A PV's node affinity is checked as the binder
checks it in Filter (`VolumeBinder.checked_pv`: in CSI form where its in-tree plugin
migrated on the node).
"""

from __future__ import annotations

import asyncio
import math
from typing import Any, Final

from kubesched.api import Pod
from kubesched_volumebinding.storage import (
    ANN_SELECTED_NODE,
    is_fully_bound,
    node_affinity_error,
    resource_version,
)
from kubesched_volumebinding.volumebinding.assume_cache import (
    AssumeCacheError,
    NotFoundInCacheError,
)
from kubesched_volumebinding.volumebinding.binder import (
    BindingInfo,
    DynamicProvision,
    PodVolumes,
    VolumeBinder,
    VolumeBindingError,
)

__all__ = ["POLL_INTERVAL", "TIMED_OUT", "VolumeBindingWaiter"]

POLL_INTERVAL: Final = 1.0
TIMED_OUT: Final = "timed out waiting for the condition"


def _pod_name(pod: Pod) -> str:
    return f"{pod.metadata.namespace or 'default'}/{pod.metadata.name}"


class VolumeBindingWaiter:
    """Runs BindPodVolumes for a binder against a cluster."""

    def __init__(self, binder: VolumeBinder, cluster: Any, bind_timeout: float) -> None:
        self.binder = binder
        self.cluster = cluster
        self.bind_timeout = bind_timeout

    async def bind_pod_volumes(self, pod: Pod, node_name: str, volumes: PodVolumes) -> None:
        """Write the node's bindings and provisions, then wait until all are bound.
        Raises VolumeBindingError (or the cluster's ConflictError/NotFoundError)."""
        bindings = volumes.static_bindings
        provisions = volumes.dynamic_provisions
        await self._bind_api_update(pod, bindings, provisions)
        ticks = math.ceil(self.bind_timeout / POLL_INTERVAL)
        for _ in range(ticks):
            await asyncio.sleep(POLL_INTERVAL)
            try:
                if self.check_bindings(pod, node_name, bindings, provisions):
                    return
            except VolumeBindingError as exc:
                raise VolumeBindingError(f"binding volumes: {exc}") from None
        raise VolumeBindingError(f"binding volumes: {self._timeout_detail(bindings, provisions)}")

    def _timeout_detail(
        self, bindings: list[BindingInfo] | None, provisions: list[DynamicProvision] | None
    ) -> str:
        if not self.binder.options.name_unbound_claims_on_timeout:
            return TIMED_OUT
        unbound: list[str] = []
        claims = [b.pvc for b in bindings or []] + [p.pvc for p in provisions or []]
        for claim in claims:
            try:
                current = self.binder.pvc_cache.get_api_obj(claim.key)
            except AssumeCacheError:
                unbound.append(claim.key)
                continue
            if not is_fully_bound(current):
                unbound.append(claim.key)
        if not unbound:
            return TIMED_OUT
        return (
            f"{TIMED_OUT} (claims still unbound after {self.bind_timeout:g}s: {', '.join(unbound)})"
        )

    async def _bind_api_update(
        self,
        pod: Pod,
        bindings: list[BindingInfo] | None,
        provisions: list[DynamicProvision] | None,
    ) -> None:
        """PUT each bound PV, then each annotated claim, keeping what the API returned;
        on failure restore the assumptions not written yet and re-raise."""
        if bindings is None:
            raise VolumeBindingError(f'failed to get cached bindings for pod "{_pod_name(pod)}"')
        if provisions is None:
            raise VolumeBindingError(
                f'failed to get cached claims to provision for pod "{_pod_name(pod)}"'
            )
        done_bindings = done_provisions = 0
        try:
            for binding in bindings:
                binding.pv = await self.cluster.update(binding.pv)
                done_bindings += 1
            for provision in provisions:
                provision.pvc = await self.cluster.update(provision.pvc)
                done_provisions += 1
        except BaseException:
            for binding in bindings[done_bindings:]:
                self.binder.pv_cache.restore(binding.pv.metadata.name)
            for provision in provisions[done_provisions:]:
                self.binder.pvc_cache.restore(provision.pvc.key)
            raise

    def check_bindings(
        self,
        pod: Pod,
        node_name: str,
        bindings: list[BindingInfo] | None,
        provisions: list[DynamicProvision] | None,
    ) -> bool:
        """True once every claim the pod's decision touched is bound; False to keep
        waiting; VolumeBindingError when the binding cannot complete. Reads the informer's
        objects, never assumed ones (the scheduler may assume again meanwhile)."""
        if bindings is None:
            raise VolumeBindingError(f'failed to get cached bindings for pod "{_pod_name(pod)}"')
        if provisions is None:
            raise VolumeBindingError(
                f'failed to get cached claims to provision for pod "{_pod_name(pod)}"'
            )
        listers = self.binder.listers
        node = listers.node(node_name)
        if node is None:
            raise VolumeBindingError(
                f'failed to get node "{node_name}": node "{node_name}" not found'
            )
        namespace = pod.metadata.namespace or "default"
        if listers.pod(namespace, pod.metadata.name) is None:
            raise VolumeBindingError(
                f'pod does not exist any more: pod "{pod.metadata.name}" not found'
            )
        csi_node = listers.csi_node(node_name)  # a missing CSINode is tolerated
        labels = node.metadata.labels
        pv_cache, pvc_cache = self.binder.pv_cache, self.binder.pvc_cache
        for binding in bindings:
            try:
                pv = pv_cache.get_api_obj(binding.pv.metadata.name)
                pvc = pvc_cache.get_api_obj(binding.pvc.key)
            except AssumeCacheError as exc:
                raise VolumeBindingError(f"failed to check binding: {exc}") from None
            if resource_version(binding.pv) > resource_version(pv):
                return False  # our own write has not come back through the informer yet
            try:
                pv = self.binder.checked_pv(pv, csi_node)
            except VolumeBindingError as exc:
                raise VolumeBindingError(f"failed to translate pv to csi: {exc}") from None
            problem = node_affinity_error(pv, labels)
            if problem is not None:
                raise VolumeBindingError(
                    f'pv "{pv.metadata.name}" node affinity doesn\'t match node '
                    f'"{node_name}": {problem}'
                )
            if pv.spec.claim_ref is None or not pv.spec.claim_ref.uid:
                raise VolumeBindingError(f'ClaimRef got reset for pv "{pv.metadata.name}"')
            if not is_fully_bound(pvc):
                return False
        for provision in provisions:
            try:
                pvc = pvc_cache.get_api_obj(provision.pvc.key)
            except AssumeCacheError as exc:
                raise VolumeBindingError(f"failed to check provisioning pvc: {exc}") from None
            if resource_version(provision.pvc) > resource_version(pvc):
                return False
            if not pvc.metadata.annotations:
                raise VolumeBindingError(
                    f'selectedNode annotation reset for PVC "{pvc.metadata.name}"'
                )
            if pvc.metadata.annotations.get(ANN_SELECTED_NODE, "") != node_name:
                # the provisioner removes the annotation to say provisioning failed
                raise VolumeBindingError(f'provisioning failed for PVC "{pvc.metadata.name}"')
            if pvc.spec.volume_name:
                try:
                    pv = pv_cache.get_api_obj(pvc.spec.volume_name)
                except NotFoundInCacheError:
                    return False  # not seen yet; a deleted PV unbinds the claim eventually
                pv = self.binder.checked_pv(pv, csi_node)
                problem = node_affinity_error(pv, labels)
                if problem is not None:
                    raise VolumeBindingError(
                        f'pv "{pv.metadata.name}" node affinity doesn\'t match node '
                        f'"{node_name}": {problem}'
                    )
            if not is_fully_bound(pvc):
                return False
        return True
