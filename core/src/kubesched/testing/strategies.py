"""Hypothesis strategies for nodes, pods and whole clusters.

Everything is drawn from small vocabularies (a few label keys and values, three zones, a
handful of taints) so that selectors, affinities, taints and tolerations match as often as
they miss: a conformance check is only worth something when the plugin sees both cases.
Objects are built through the API models, so they are valid as a manifest would be.

    from hypothesis import given
    from kubesched.testing import strategies as kst

    @given(kst.scenarios())
    def test_my_filter(scenario): ...
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from kubesched.api import Node, Pod
from kubesched.testing._builders import requirements
from kubesched.testing._scenario import ClusterScenario, Scenario, fits_on

__all__ = [
    "GPU",
    "LABEL_KEYS",
    "LABEL_VALUES",
    "NAMESPACES",
    "TAINT_KEYS",
    "ZONES",
    "affinities",
    "cluster_scenarios",
    "label_sets",
    "node_affinities",
    "node_selector_terms",
    "nodes",
    "pod_affinity_terms",
    "pods",
    "requests",
    "scenarios",
    "taints",
    "tolerations",
    "topology_spread_constraints",
    "volumes",
]

GPU = "example.com/gpu"
"""The one extended resource the strategies use."""
ZONES = ("zone-a", "zone-b", "zone-c")
LABEL_KEYS = ("app", "tier", "example.com/pool")
LABEL_VALUES = ("a", "b", "c")
TAINT_KEYS = ("dedicated", "example.com/maintenance")
NAMESPACES = ("default", "team-a")
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
_TOPOLOGY_KEYS = (HOSTNAME, ZONE)

_CPU = ("100m", "250m", "500m", "1", "2")
_MEMORY = ("64Mi", "256Mi", "1Gi", "2Gi")
_NODE_CPU = ("1", "2", "4", "8")
_NODE_MEMORY = ("2Gi", "4Gi", "8Gi", "16Gi")


@functools.cache
def label_sets(
    keys: tuple[str, ...] = LABEL_KEYS, min_size: int = 0
) -> st.SearchStrategy[dict[str, str]]:
    """Labels from the shared vocabulary (possibly none)."""
    return st.dictionaries(
        st.sampled_from(keys), st.sampled_from(LABEL_VALUES), min_size=min_size, max_size=3
    )


@functools.cache
def requests() -> st.SearchStrategy[dict[str, str | int]]:
    """A container's requests: often CPU and memory, sometimes neither, rarely a GPU."""
    return st.fixed_dictionaries(
        {},
        optional={
            "cpu": st.sampled_from(_CPU),
            "memory": st.sampled_from(_MEMORY),
            "ephemeral-storage": st.sampled_from(("1Gi", "10Gi")),
            GPU: st.integers(1, 2),
        },
    )


@functools.cache
def taints() -> st.SearchStrategy[dict[str, str]]:
    return st.fixed_dictionaries(
        {
            "key": st.sampled_from(TAINT_KEYS),
            "value": st.sampled_from(("", "x", "y")),
            "effect": st.sampled_from(("NoSchedule", "PreferNoSchedule", "NoExecute")),
        }
    )


@functools.cache
def tolerations() -> st.SearchStrategy[dict[str, str]]:
    exists = st.fixed_dictionaries(
        {"operator": st.just("Exists")},
        optional={
            "key": st.sampled_from(TAINT_KEYS),
            "effect": st.sampled_from(("NoSchedule", "PreferNoSchedule", "NoExecute")),
        },
    )
    equal = st.fixed_dictionaries(
        {
            "key": st.sampled_from(TAINT_KEYS),
            "operator": st.just("Equal"),
            "value": st.sampled_from(("", "x", "y")),
        },
        optional={"effect": st.sampled_from(("NoSchedule", "PreferNoSchedule", "NoExecute"))},
    )
    return st.one_of(exists, equal)


@functools.cache
def _requirement(keys: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    with_values = st.fixed_dictionaries(
        {
            "key": st.sampled_from(keys),
            "operator": st.sampled_from(("In", "NotIn")),
            "values": st.lists(st.sampled_from(LABEL_VALUES), min_size=1, max_size=2, unique=True),
        }
    )
    presence = st.fixed_dictionaries(
        {"key": st.sampled_from(keys), "operator": st.sampled_from(("Exists", "DoesNotExist"))}
    )
    return st.one_of(with_values, presence)


@functools.cache
def node_selector_terms() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"matchExpressions": st.lists(_requirement(LABEL_KEYS), min_size=1, max_size=2)}
    )


@functools.cache
def node_affinities() -> st.SearchStrategy[dict[str, Any]]:
    preferred = st.fixed_dictionaries(
        {"weight": st.integers(1, 100), "preference": node_selector_terms()}
    )
    return st.fixed_dictionaries(
        {},
        optional={
            "requiredDuringSchedulingIgnoredDuringExecution": st.fixed_dictionaries(
                {"nodeSelectorTerms": st.lists(node_selector_terms(), min_size=1, max_size=2)}
            ),
            "preferredDuringSchedulingIgnoredDuringExecution": st.lists(
                preferred, min_size=1, max_size=2
            ),
        },
    )


@functools.cache
def _label_selector() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "matchLabels": st.dictionaries(
                st.sampled_from(LABEL_KEYS), st.sampled_from(LABEL_VALUES), min_size=1, max_size=1
            ),
            "matchExpressions": st.lists(_requirement(LABEL_KEYS), min_size=1, max_size=1),
        },
    )


@functools.cache
def pod_affinity_terms() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"labelSelector": _label_selector(), "topologyKey": st.sampled_from(_TOPOLOGY_KEYS)},
        optional={"namespaces": st.lists(st.sampled_from(NAMESPACES), max_size=2, unique=True)},
    )


@functools.cache
def _pod_affinity() -> st.SearchStrategy[dict[str, Any]]:
    weighted = st.fixed_dictionaries(
        {"weight": st.integers(1, 100), "podAffinityTerm": pod_affinity_terms()}
    )
    return st.fixed_dictionaries(
        {},
        optional={
            "requiredDuringSchedulingIgnoredDuringExecution": st.lists(
                pod_affinity_terms(), min_size=1, max_size=2
            ),
            "preferredDuringSchedulingIgnoredDuringExecution": st.lists(
                weighted, min_size=1, max_size=2
            ),
        },
    )


@functools.cache
def affinities() -> st.SearchStrategy[dict[str, Any]]:
    """`spec.affinity`: node affinity, pod affinity and pod anti-affinity, each optional."""
    return st.fixed_dictionaries(
        {},
        optional={
            "nodeAffinity": node_affinities(),
            "podAffinity": _pod_affinity(),
            "podAntiAffinity": _pod_affinity(),
        },
    )


@functools.cache
def volumes() -> st.SearchStrategy[list[dict[str, Any]]]:
    """Pod volumes: emptyDir, configMap, claims by name and generic ephemeral volumes."""
    source: st.SearchStrategy[dict[str, Any]] = st.one_of(
        st.just({"emptyDir": {}}),
        st.just({"configMap": {"name": "settings"}}),
        st.sampled_from(("data", "logs")).map(
            lambda claim: {"persistentVolumeClaim": {"claimName": claim}}
        ),
        st.just(
            {
                "ephemeral": {
                    "volumeClaimTemplate": {
                        "spec": {
                            "accessModes": ["ReadWriteOnce"],
                            "resources": {"requests": {"storage": "1Gi"}},
                        }
                    }
                }
            }
        ),
    )
    return st.lists(source, max_size=2).map(
        lambda sources: [{"name": f"v{i}", **s} for i, s in enumerate(sources)]
    )


@functools.cache
def topology_spread_constraints() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "maxSkew": st.integers(1, 2),
            "topologyKey": st.sampled_from(_TOPOLOGY_KEYS),
            "whenUnsatisfiable": st.sampled_from(("DoNotSchedule", "ScheduleAnyway")),
            "labelSelector": _label_selector(),
        }
    )


@st.composite
def nodes(draw: st.DrawFn, name: str = "node-0") -> Node:
    """A node named `name` with a zone, hostname and vocabulary labels, allocatable CPU,
    memory and pods (sometimes storage and GPUs), maybe taints or cordoned."""
    labels = draw(label_sets(min_size=2))  # dense, so that selectors match as often as not
    labels[HOSTNAME] = name
    labels[ZONE] = draw(st.sampled_from(ZONES))
    allocatable: dict[str, Any] = {
        "cpu": draw(st.sampled_from(_NODE_CPU)),
        "memory": draw(st.sampled_from(_NODE_MEMORY)),
        "pods": draw(st.sampled_from((2, 4, 110))),
    }
    if draw(st.booleans()):
        allocatable["ephemeral-storage"] = "20Gi"
    if draw(st.integers(0, 3)) == 3:
        allocatable[GPU] = draw(st.integers(1, 4))
    spec: dict[str, Any] = {}
    node_taints = draw(_node_taints())
    if node_taints:
        spec["taints"] = node_taints
    if draw(st.integers(0, 5)) == 5:
        spec["unschedulable"] = True
    return Node.model_validate(
        {
            "metadata": {"name": name, "uid": f"uid-node-{name}", "labels": labels},
            "spec": spec,
            "status": {"allocatable": allocatable, "capacity": dict(allocatable)},
        }
    )


@functools.cache
def _pod_spec_extras(gates: bool, running: bool) -> st.SearchStrategy[dict[str, Any]]:
    if running:  # what a bound pod contributes to other pods' decisions
        return st.fixed_dictionaries(
            {},
            optional={
                "priority": st.sampled_from((0, 10, 1000)),
                "affinity": affinities(),
                "volumes": volumes(),
            },
        )
    optional: dict[str, st.SearchStrategy[Any]] = {
        "priority": st.sampled_from((0, 10, 1000)),
        "nodeSelector": st.dictionaries(
            st.sampled_from(LABEL_KEYS), st.sampled_from(LABEL_VALUES), min_size=1, max_size=1
        ),
        "affinity": affinities(),
        "tolerations": st.lists(tolerations(), min_size=1, max_size=2),
        "volumes": volumes(),
        "topologySpreadConstraints": st.lists(
            topology_spread_constraints(),
            min_size=1,
            max_size=2,
            unique_by=lambda c: (c["topologyKey"], c["whenUnsatisfiable"]),
        ),
    }
    if gates:
        optional["schedulingGates"] = st.just([{"name": "example.com/hold"}])
    return st.fixed_dictionaries({}, optional=optional)


@functools.cache
def _containers() -> st.SearchStrategy[list[dict[str, Any]]]:
    return st.lists(requests(), min_size=1, max_size=2)


@functools.cache
def _node_taints() -> st.SearchStrategy[list[dict[str, str]]]:
    return st.lists(taints(), max_size=2, unique_by=lambda t: (t["key"], t["effect"]))


@st.composite
def pods(
    draw: st.DrawFn,
    name: str = "pod",
    namespace: str | None = None,
    node_name: str = "",
    gates: bool = False,
) -> Pod:
    """A pod with one or two containers and, each maybe: labels, a priority, a node
    selector, affinities, tolerations, volumes, spread constraints and host ports.

    `node_name` binds it (a bound pod draws only what matters to other pods' placement:
    requests, ports, labels, priority, affinities, volumes); `gates` allows scheduling
    gates."""
    ns = namespace or draw(st.sampled_from(NAMESPACES))
    containers: list[dict[str, Any]] = [
        {"name": f"c{i}", "image": "registry.example/app:1", "resources": requirements(r)}
        for i, r in enumerate(draw(_containers()))
    ]
    if draw(st.integers(0, 4)) == 4:
        port = draw(st.sampled_from((8080, 9090)))
        containers[0]["ports"] = [{"containerPort": port, "hostPort": port}]
    spec: dict[str, Any] = {"containers": containers}
    spec.update(draw(_pod_spec_extras(gates, bool(node_name))))
    if node_name:
        spec["nodeName"] = node_name
    return Pod.model_validate(
        {
            "metadata": {
                "name": name,
                "namespace": ns,
                "uid": f"uid-{ns}-{name}",
                "labels": draw(label_sets()),
            },
            "spec": spec,
        }
    )


@st.composite
def scenarios(
    draw: st.DrawFn, min_nodes: int = 1, max_nodes: int = 4, max_existing: int = 5
) -> Scenario:
    """Nodes, pods already running on them (each fits its node), the pod to place and one
    more bound pod (`other`) for add/remove checks."""
    count = draw(st.integers(min_nodes, max_nodes))
    node_list = [draw(nodes(name=f"node-{i}")) for i in range(count)]
    existing = _bound_pods(draw, node_list, draw(st.integers(0, max_existing)), "existing")
    target = draw(pods(name="incoming"))
    if draw(st.integers(0, 9)) == 9:
        target = target.model_copy(
            update={
                "spec": target.spec.model_copy(
                    update={"node_name": draw(st.sampled_from(node_list)).metadata.name}
                )
            }
        )
    host = draw(st.sampled_from(node_list)).metadata.name
    other = draw(pods(name="other", node_name=host))
    return Scenario(node_list, existing, target, other)


@st.composite
def cluster_scenarios(
    draw: st.DrawFn,
    min_nodes: int = 1,
    max_nodes: int = 4,
    max_bound: int = 4,
    max_pending: int = 6,
) -> ClusterScenario:
    """A cluster for an end-to-end run: nodes, pods already bound where they fit, and
    pending pods (some gated) for the scheduler to place."""
    count = draw(st.integers(min_nodes, max_nodes))
    node_list = [draw(nodes(name=f"node-{i}")) for i in range(count)]
    bound = _bound_pods(draw, node_list, draw(st.integers(0, max_bound)), "running")
    pending = [
        draw(pods(name=f"pending-{i}", gates=True))
        for i in range(draw(st.integers(1, max_pending)))
    ]
    return ClusterScenario(node_list, bound, pending)


def _bound_pods(draw: st.DrawFn, node_list: Sequence[Node], count: int, prefix: str) -> list[Pod]:
    """Up to `count` pods, each bound to a drawn node where it fits (others are dropped)."""
    placed: dict[str, list[Pod]] = {n.metadata.name: [] for n in node_list}
    result: list[Pod] = []
    for i in range(count):
        node = draw(st.sampled_from(node_list))
        pod = draw(pods(name=f"{prefix}-{i}", node_name=node.metadata.name))
        if fits_on(pod, node, placed[node.metadata.name]):
            placed[node.metadata.name].append(pod)
            result.append(pod)
    return result
