"""The node and pod templates of scheduler_perf, as kubesched models.

upstream: test/integration/scheduler_perf/templates/*.yaml, and node_util.go
(IntegrationTestNodePreparer), which gives every node it creates the usual
`kubernetes.io/hostname` label, and testutils' LabelNodePrepareStrategy, which labels the
created nodes with its values in turn (round robin).

Each template is a function returning one validated object; workloads copy it under other
names with `clone_pod` (validating one pod and copying it is much faster than validating
thousands of identical dicts).

Upstream's affinity templates name the namespaces of their pod (anti-)affinity terms,
`["sched-1", "sched-0"]`: the two namespaces its workloads create, one for the init pods and
one for the measured pods. Here those are `INIT_NAMESPACE` and `MEASURED_NAMESPACE`, and the
templates name them instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from kubesched.api import Node, Pod

__all__ = [
    "HOSTNAME_LABEL",
    "INIT_NAMESPACE",
    "MEASURED_NAMESPACE",
    "ZONE_LABEL",
    "clone_pod",
    "default_node",
    "default_pod",
    "high_priority_pod",
    "low_priority_pod",
    "pod_with_pod_affinity",
    "pod_with_pod_anti_affinity",
    "pod_with_topology_spreading",
    "zoned_nodes",
]

# upstream: scheduler_perf gives each createPods op its own namespace ("namespace-<op index>")
# unless the op names one; the init and the measured pods therefore never share one.
INIT_NAMESPACE: Final = "sched-init"
MEASURED_NAMESPACE: Final = "sched-measured"

HOSTNAME_LABEL: Final = "kubernetes.io/hostname"
ZONE_LABEL: Final = "topology.kubernetes.io/zone"


def default_node(name: str, labels: Mapping[str, str] | None = None) -> Node:
    """The node of `templates/node-default.yaml`: capacity cpu 4, memory 32Gi, pods 110,
    Ready, no taints; labelled `kubernetes.io/hostname=<name>` (as the node preparer does)
    plus `labels`."""
    return Node.model_validate(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {HOSTNAME_LABEL: name, **(labels or {})}},
            "spec": {},
            "status": {
                "capacity": {"pods": "110", "cpu": "4", "memory": "32Gi"},
                "conditions": [{"type": "Ready", "status": "True"}],
                "phase": "Running",
            },
        }
    )


def zoned_nodes(names: Sequence[str], zones: Sequence[str]) -> list[Node]:
    """Default nodes labelled `topology.kubernetes.io/zone` with `zones` in turn, as
    upstream's `labelNodePrepareStrategy` labels the nodes of a createNodes op."""
    return [default_node(name, {ZONE_LABEL: zones[i % len(zones)]}) for i, name in enumerate(names)]


def _pause_pod(
    name: str,
    namespace: str,
    *,
    cpu: str = "100m",
    memory: str = "500Mi",
    image: str = "registry.k8s.io/pause:3.10",
    labels: Mapping[str, str] | None = None,
    spec: Mapping[str, Any] | None = None,
) -> Pod:
    """One pause container listening on 80 (no host port), requests = limits."""
    resources = {"cpu": cpu, "memory": memory}
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        metadata["labels"] = dict(labels)
    return Pod.model_validate(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": metadata,
            "spec": {
                **(spec or {}),
                "containers": [
                    {
                        "name": "pause",
                        "image": image,
                        "ports": [{"containerPort": 80}],
                        "resources": {"limits": dict(resources), "requests": dict(resources)},
                    }
                ],
            },
        }
    )


def default_pod(name: str, namespace: str) -> Pod:
    """The pod of `templates/pod-default.yaml`: one pause container requesting (and limited
    to) cpu 100m and memory 500Mi, so a default node holds at most 40 of them."""
    return _pause_pod(name, namespace)


def _pod_term(label: str, topology_key: str) -> dict[str, Any]:
    return {
        "labelSelector": {"matchLabels": {"color": label}},
        "topologyKey": topology_key,
        "namespaces": [MEASURED_NAMESPACE, INIT_NAMESPACE],
    }


def pod_with_pod_anti_affinity(name: str, namespace: str) -> Pod:
    """`templates/pod-with-pod-anti-affinity.yaml`: a default pod labelled `color: green`
    that must not share a host (`kubernetes.io/hostname`) with another green pod of either
    namespace, so a node holds at most one of them."""
    affinity = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [_pod_term("green", HOSTNAME_LABEL)]
        }
    }
    return _pause_pod(
        name,
        namespace,
        image="registry.k8s.io/pause:3.10.2",
        labels={"color": "green"},
        spec={"affinity": affinity},
    )


def pod_with_pod_affinity(name: str, namespace: str) -> Pod:
    """`templates/pod-with-pod-affinity.yaml`: a default pod labelled `color: blue` that must
    run in a zone (`topology.kubernetes.io/zone`) holding a blue pod of either namespace (the
    first one is let in because it matches its own term)."""
    affinity = {
        "podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [_pod_term("blue", ZONE_LABEL)]
        }
    }
    return _pause_pod(
        name,
        namespace,
        image="registry.k8s.io/pause:3.10.1",
        labels={"color": "blue"},
        spec={"affinity": affinity},
    )


def pod_with_node_affinity(name: str, namespace: str) -> Pod:
    """`templates/pod-with-node-affinity.yaml`: a default pod that must run on a node whose
    `topology.kubernetes.io/zone` is zone1 or zone2."""
    term = {
        "matchExpressions": [{"key": ZONE_LABEL, "operator": "In", "values": ["zone1", "zone2"]}]
    }
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}
        }
    }
    return _pause_pod(
        name, namespace, image="registry.k8s.io/pause:3.10.1", spec={"affinity": affinity}
    )


def pod_with_topology_spreading(name: str, namespace: str) -> Pod:
    """`templates/pod-with-topology-spreading.yaml`: a default pod labelled `color: blue`
    spreading the blue pods of its namespace over zones with maxSkew 5, DoNotSchedule."""
    constraint = {
        "maxSkew": 5,
        "topologyKey": ZONE_LABEL,
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"color": "blue"}},
    }
    return _pause_pod(
        name, namespace, labels={"color": "blue"}, spec={"topologySpreadConstraints": [constraint]}
    )


def low_priority_pod(name: str, namespace: str) -> Pod:
    """`templates/pod-low-priority.yaml`: priority 0 (none set), cpu 900m, memory 500Mi,
    terminationGracePeriodSeconds 0; four fill a default node to 3.6 of its 4 cpus."""
    return _pause_pod(name, namespace, cpu="900m", spec={"terminationGracePeriodSeconds": 0})


def high_priority_pod(name: str, namespace: str) -> Pod:
    """`templates/pod-high-priority.yaml`: `spec.priority: 10` (no PriorityClass), cpu 3,
    memory 500Mi; on a node full of low-priority pods it fits only after three are
    preempted (0.4 cpu free + 3 * 0.9 = 3.1 >= 3)."""
    return _pause_pod(name, namespace, cpu="3000m", spec={"priority": 10})


def clone_pod(
    template: Pod,
    name: str,
    labels: Mapping[str, str] | None = None,
    spec: Mapping[str, Any] | None = None,
) -> Pod:
    """A deep copy of `template` under another name, with `labels` added and the
    `spec` fields given replaced (already-validated values, e.g. `{"volumes": [...]}`)."""
    update: dict[str, Any] = {"name": name}
    if labels:
        update["labels"] = {**template.metadata.labels, **labels}
    meta = template.metadata.model_copy(update=update, deep=True)
    fields: dict[str, Any] = {"metadata": meta}
    if spec:
        fields["spec"] = template.spec.model_copy(update=dict(spec), deep=True)
    return template.model_copy(update=fields, deep=True)
