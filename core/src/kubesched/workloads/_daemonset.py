"""The DaemonSet controller of the embedded cluster.

upstream: pkg/controller/daemon/daemon_controller.go (podsShouldBeOnNode,
NodeShouldRunDaemonPod, predicates, syncNodes) and pkg/controller/daemon/util
(AddOrUpdateDaemonPodTolerations, ReplaceDaemonSetPodNodeNameNodeAffinity). Each node
that should run the daemon gets one pod, named `<ds>-<5 random characters>`, which the
scheduler places: the controller pins it with a required node affinity
`matchFields metadata.name In [node]` (replacing the template's required terms) and adds
the default tolerations (not-ready and unreachable NoExecute; disk-, memory- and
pid-pressure and unschedulable NoSchedule; network-unavailable NoSchedule for host-network
pods). A node should run it when the template's nodeSelector and required node affinity
match it and it has no NoSchedule or NoExecute taint the pod does not tolerate; resources
are the scheduler's to judge. A pod on a node that should no longer run it (or on a node
that is gone) is deleted, as are extra pods on one node.
"""

from __future__ import annotations

from typing import Any, Final

from kubesched.api import (
    Affinity,
    Node,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PodSpec,
    Toleration,
    find_untolerated_taint,
)
from kubesched.cluster import Cluster, WatchEvent
from kubesched.workloads._labels import POD_TEMPLATE_GENERATION
from kubesched.workloads._models import DaemonSet, DaemonSetStatus
from kubesched.workloads._pods import is_active, pod_from_template
from kubesched.workloads._reconciler import Reconciler

__all__ = [
    "DaemonSetController",
    "add_daemon_tolerations",
    "node_should_run",
    "replace_node_name_affinity",
    "target_node",
]

_NAME_FIELD: Final = "metadata.name"  # upstream metav1.ObjectNameField

_DEFAULT_TOLERATIONS: Final = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
_HOST_NETWORK_TOLERATION: Final = ("node.kubernetes.io/network-unavailable", "NoSchedule")


def add_daemon_tolerations(spec: PodSpec) -> list[Toleration]:
    """upstream AddOrUpdateDaemonPodTolerations: the spec's tolerations with each default
    one added (one equal to it already there is kept, not duplicated)."""
    tolerations = list(spec.tolerations)
    defaults = list(_DEFAULT_TOLERATIONS)
    if spec.host_network:
        defaults.append(_HOST_NETWORK_TOLERATION)
    for key, effect in defaults:
        toleration = Toleration(key=key, operator="Exists", effect=effect)
        if toleration not in tolerations:
            tolerations.append(toleration)
    return tolerations


def replace_node_name_affinity(affinity: Affinity | None, node_name: str) -> Affinity:
    """upstream ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity becomes
    one term, `matchFields metadata.name In [node_name]`; preferred terms and pod
    (anti-)affinity stay."""
    term = NodeSelectorTerm(
        match_fields=[NodeSelectorRequirement(key=_NAME_FIELD, operator="In", values=[node_name])]
    )
    selector = NodeSelector(node_selector_terms=[term])
    affinity = affinity if affinity is not None else Affinity()
    node_affinity = affinity.node_affinity or NodeAffinity()
    node_affinity = node_affinity.model_copy(
        update={"required_during_scheduling_ignored_during_execution": selector}
    )
    return affinity.model_copy(update={"node_affinity": node_affinity})


def node_should_run(spec: PodSpec, node: Node) -> bool:
    """upstream NodeShouldRunDaemonPod (predicates) for a pod with the daemon tolerations:
    nodeSelector and required node affinity match, no untolerated NoSchedule/NoExecute taint."""
    labels = node.metadata.labels
    if any(labels.get(k) != v for k, v in spec.node_selector.items()):
        return False
    node_affinity = spec.affinity.node_affinity if spec.affinity is not None else None
    required = (
        node_affinity.required_during_scheduling_ignored_during_execution
        if node_affinity is not None
        else None
    )
    if required is not None and not required.matches(node.metadata.name, labels):
        return False
    untolerated = find_untolerated_taint(
        node.spec.taints,
        add_daemon_tolerations(spec),
        lambda t: t.effect in ("NoSchedule", "NoExecute"),
    )
    return untolerated is None


def target_node(pod: Pod) -> str:
    """upstream GetTargetNodeName: the pod's node, or the one its affinity pins it to."""
    if pod.spec.node_name:
        return pod.spec.node_name
    affinity = pod.spec.affinity
    required = (
        affinity.node_affinity.required_during_scheduling_ignored_during_execution
        if affinity is not None and affinity.node_affinity is not None
        else None
    )
    for term in required.node_selector_terms if required is not None else []:
        for req in term.match_fields:
            if req.key == _NAME_FIELD and req.operator == "In" and len(req.values) == 1:
                return req.values[0]
    return ""


class DaemonSetController(Reconciler):
    """One pod per eligible node for each DaemonSet."""

    name = "daemonset"
    kind = "DaemonSet"

    def watch_more(self, cluster: Cluster) -> None:
        cluster.watch("Node", self._on_node)

    def _on_node(self, ev: WatchEvent) -> None:
        for ds in self.cluster.list(self.kind):
            self.enqueue(ds)

    async def sync(self, obj: Any) -> None:
        ds: DaemonSet = obj
        cluster = self.cluster
        nodes: list[Node] = sorted(cluster.list("Node"), key=lambda n: n.metadata.name)
        by_node: dict[str, list[Pod]] = {}
        for pod in self.pods_of(ds):
            if is_active(pod):
                by_node.setdefault(target_node(pod), []).append(pod)
        desired = 0
        doomed: list[Pod] = []
        for node in nodes:
            name = node.metadata.name
            have = by_node.pop(name, [])
            if node_should_run(ds.template.spec, node):
                desired += 1
                if not have:
                    await self.create_pod(self._new_pod(ds, name))
                doomed += sorted(have, key=lambda p: p.key)[1:]
            else:
                doomed += have
        for pods in by_node.values():  # on nodes that are gone
            doomed += pods
        for pod in doomed:
            await self.delete_pod(pod)
        bound = {p.spec.node_name for p in self.pods_of(ds) if is_active(p) and p.spec.node_name}
        scheduled = sum(1 for n in nodes if n.metadata.name in bound)
        status = DaemonSetStatus(
            desired_number_scheduled=desired,
            current_number_scheduled=scheduled,
            observed_generation=ds.metadata.generation or 0,
        )
        await self.write_status(ds, status)

    def _new_pod(self, ds: DaemonSet, node_name: str) -> Pod:
        spec = ds.template.spec
        spec = spec.model_copy(
            update={
                "tolerations": add_daemon_tolerations(spec),
                "affinity": replace_node_name_affinity(spec.affinity, node_name),
            }
        )
        labels = {POD_TEMPLATE_GENERATION: str(ds.metadata.generation or 1)}
        return pod_from_template(
            ds.template, ds, generate_name=f"{ds.metadata.name}-", labels=labels, spec=spec
        )
