"""What the HTML report shows beyond the simulation's result, read from the cluster as the
run left it: each node's zone, and each pod's priority, requests, gang, volume claims and
the pods its preemption evicted."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from kubesched.api import Pod, pod_requests
from kubesched.cluster import Cluster
from kubesched.simulate import PodResult

__all__ = ["POD_GROUP_LABEL", "ZONE_LABEL", "node_zones", "pod_details"]

ZONE_LABEL: Final = "topology.kubernetes.io/zone"
"""The well-known zone label (upstream v1.LabelTopologyZone)."""

POD_GROUP_LABEL: Final = "scheduling.x-k8s.io/pod-group"
"""The label naming a pod's gang (scheduler-plugins' v1alpha1.PodGroupLabel)."""


def node_zones(cluster: Cluster) -> dict[str, str]:
    """Node → its zone, for the nodes that have the label, by name."""
    zones = {
        node.metadata.name: node.metadata.labels[ZONE_LABEL]
        for node in cluster.list("Node")
        if ZONE_LABEL in node.metadata.labels
    }
    return dict(sorted(zones.items()))


def pod_details(cluster: Cluster, results: Iterable[PodResult]) -> dict[str, dict[str, Any]]:
    """`namespace/name` → `PodDetails` dict for every pod still in the cluster, and the
    preemption victims (from the results) of every preemptor."""
    claims = _claims(cluster)
    details: dict[str, dict[str, Any]] = {}
    for pod in cluster.list("Pod"):
        details[_key(pod)] = _details(pod, claims)
    for result in results:
        if result.preempted_by is not None:
            victim = f"{result.namespace}/{result.name}"
            preemptor = details.setdefault(result.preempted_by, {})
            preemptor.setdefault("victims", []).append(victim)
    return dict(sorted(details.items()))


def _key(pod: Pod) -> str:
    return f"{pod.metadata.namespace or 'default'}/{pod.metadata.name}"


def _claims(cluster: Cluster) -> dict[str, tuple[str | None, str | None]]:
    """`namespace/name` → (phase, volume) of every PersistentVolumeClaim (none when no
    installed package registers the kind)."""
    found: dict[str, tuple[str | None, str | None]] = {}
    for claim in cluster.list("PersistentVolumeClaim"):
        data = claim.to_dict()
        meta = data.get("metadata", {})
        key = f"{meta.get('namespace') or 'default'}/{meta.get('name', '')}"
        found[key] = (
            data.get("status", {}).get("phase"),
            data.get("spec", {}).get("volumeName") or None,
        )
    return found


def _details(pod: Pod, claims: dict[str, tuple[str | None, str | None]]) -> dict[str, Any]:
    namespace = pod.metadata.namespace or "default"
    record: dict[str, Any] = {"priority": pod.priority, "requests": pod_requests(pod)}
    group = pod.metadata.labels.get(POD_GROUP_LABEL)
    if group:
        record["podGroup"] = f"{namespace}/{group}"
    names = []
    for volume in pod.spec.volumes:
        if volume.persistent_volume_claim is not None:
            names.append(str(volume.persistent_volume_claim.get("claimName", "")))
        elif volume.ephemeral is not None:
            # upstream ephemeral.VolumeClaimName: <pod name>-<volume name>
            names.append(f"{pod.metadata.name}-{volume.name}")
    if names:
        record["claims"] = [_claim(name, claims.get(f"{namespace}/{name}")) for name in names]
    if pod.metadata.labels:
        record["labels"] = dict(pod.metadata.labels)
    return record


def _claim(name: str, found: tuple[str | None, str | None] | None) -> dict[str, Any]:
    if found is None:
        return {"name": name}
    phase, volume = found
    return {"name": name, "phase": phase, "volume": volume}
