"""scheduler_perf-shaped workloads: which nodes exist, which pods run first, which are measured.

upstream: test/integration/scheduler_perf/ (misc/performance-config.yaml and the templates
under templates/). A workload there is a list of ops (createNodes, createPods, ...); the last
createPods op has `collectMetrics: true` and is the measured phase. Here a workload is the
objects those ops would create, split into the three phases the runner needs: nodes, pods
scheduled before measuring (`init_pods`) and measured pods (`pods`).

The node and pod templates are in `kubesched_bench.templates`. To add a workload (gangs,
volumes ...), write a `WorkloadFactory` below and add a `WorkloadSpec` for it to `WORKLOADS`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from kubesched.api import K8sModel, Node, Pod
from kubesched_bench.templates import (
    INIT_NAMESPACE,
    MEASURED_NAMESPACE,
    clone_pod,
    default_node,
    default_pod,
    high_priority_pod,
    low_priority_pod,
    pod_with_pod_affinity,
    pod_with_pod_anti_affinity,
    pod_with_topology_spreading,
    zoned_nodes,
)

__all__ = [
    "INIT_NAMESPACE",
    "MEASURED_NAMESPACE",
    "WORKLOADS",
    "Size",
    "Workload",
    "WorkloadFactory",
    "WorkloadSpec",
    "default_node",
    "default_pod",
    "get_workload",
    "preemption_basic",
    "scheduling_basic",
    "scheduling_pod_affinity",
    "scheduling_pod_anti_affinity",
    "topology_spreading",
]


@dataclass(frozen=True)
class Size:
    """Node and pod counts of one workload instance (upstream's params)."""

    nodes: int
    init_pods: int
    pods: int

    def label(self) -> str:
        """Upstream's sub-test name, e.g. `500Nodes/500InitPods/1000Pods`."""
        return f"{self.nodes}Nodes/{self.init_pods}InitPods/{self.pods}Pods"


@dataclass
class Workload:
    """The objects of one workload instance, in creation order per phase.

    `setup` holds objects created before the nodes (namespaces, priority classes ...);
    `init_pods` are created and scheduled before measuring starts; `pods` are measured.
    """

    name: str
    size: Size
    nodes: list[Node]
    init_pods: list[Pod]
    pods: list[Pod]
    setup: list[K8sModel] = field(default_factory=list)


WorkloadFactory = Callable[[Size, random.Random], Workload]
"""factory(size, rng) -> Workload; `rng` is the only source of randomness a factory may use."""


@dataclass(frozen=True)
class WorkloadSpec:
    """A named workload: its factory and the sizes upstream runs it at."""

    name: str
    upstream: str
    description: str
    factory: WorkloadFactory
    sizes: tuple[Size, ...]

    @property
    def default_size(self) -> Size:
        return self.sizes[0]

    def build(self, size: Size | None = None, seed: int = 0) -> Workload:
        return self.factory(size or self.default_size, random.Random(seed))


PodTemplate = Callable[[str, str], Pod]
"""template(name, namespace) -> Pod, one of `kubesched_bench.templates`."""


def _width(size: Size) -> int:
    """Digits of the zero-padded indices in names, so names sort in creation order."""
    return max(len(str(max(size.nodes, size.init_pods, size.pods, 1))), 5)


def _node_names(size: Size) -> list[str]:
    width = _width(size)
    return [f"scheduler-perf-{i:0{width}d}" for i in range(size.nodes)]


def _build(
    name: str,
    size: Size,
    nodes: list[Node],
    init_template: PodTemplate,
    pod_template: PodTemplate,
) -> Workload:
    """The workload with `size.init_pods` copies of `init_template` (in INIT_NAMESPACE) and
    `size.pods` copies of `pod_template` (in MEASURED_NAMESPACE)."""
    width = _width(size)
    init = init_template("pod-init", INIT_NAMESPACE)
    measured = pod_template("pod", MEASURED_NAMESPACE)
    init_pods = [clone_pod(init, f"pod-init-{i:0{width}d}") for i in range(size.init_pods)]
    pods = [clone_pod(measured, f"pod-{i:0{width}d}") for i in range(size.pods)]
    return Workload(name, size, nodes, init_pods, pods)


# Every object of these workloads is fixed by the templates: `rng` is unused and the
# scheduler's seed alone decides ties between equal scores.


def scheduling_basic(size: Size, rng: random.Random) -> Workload:
    """SchedulingBasic: default nodes, default init pods, default measured pods.

    upstream: test/integration/scheduler_perf/misc/performance-config.yaml (SchedulingBasic)
    """
    del rng
    nodes = [default_node(n) for n in _node_names(size)]
    return _build("SchedulingBasic", size, nodes, default_pod, default_pod)


def scheduling_pod_anti_affinity(size: Size, rng: random.Random) -> Workload:
    """SchedulingPodAntiAffinity: default nodes; init and measured pods are green pods with
    required anti-affinity to green pods on the same host, so each lands on its own node.

    upstream: test/integration/scheduler_perf/affinity/performance-config.yaml
    (SchedulingPodAntiAffinity), templates/pod-with-pod-anti-affinity.yaml
    """
    del rng
    nodes = [default_node(n) for n in _node_names(size)]
    return _build(
        "SchedulingPodAntiAffinity",
        size,
        nodes,
        pod_with_pod_anti_affinity,
        pod_with_pod_anti_affinity,
    )


def scheduling_pod_affinity(size: Size, rng: random.Random) -> Workload:
    """SchedulingPodAffinity: default nodes all in zone `zone1`; init and measured pods are
    blue pods with required affinity to blue pods in the same zone.

    upstream: test/integration/scheduler_perf/affinity/performance-config.yaml
    (SchedulingPodAffinity), templates/pod-with-pod-affinity.yaml
    """
    del rng
    nodes = zoned_nodes(_node_names(size), ["zone1"])
    return _build(
        "SchedulingPodAffinity", size, nodes, pod_with_pod_affinity, pod_with_pod_affinity
    )


def topology_spreading(size: Size, rng: random.Random) -> Workload:
    """TopologySpreading: default nodes in zones moon-1, moon-2, moon-3 (in turn); default
    init pods; measured pods spread over the zones (maxSkew 5, DoNotSchedule).

    upstream: test/integration/scheduler_perf/topology_spreading/performance-config.yaml
    (TopologySpreading), templates/pod-with-topology-spreading.yaml
    """
    del rng
    nodes = zoned_nodes(_node_names(size), ["moon-1", "moon-2", "moon-3"])
    return _build("TopologySpreading", size, nodes, default_pod, pod_with_topology_spreading)


def preemption_basic(size: Size, rng: random.Random) -> Workload:
    """PreemptionBasic: default nodes filled by low-priority pods (cpu 900m, four to a node
    at the upstream sizes), then high-priority pods (cpu 3) that each preempt three of them.

    upstream: test/integration/scheduler_perf/misc/performance-config.yaml (PreemptionBasic),
    templates/pod-low-priority.yaml, templates/pod-high-priority.yaml
    """
    del rng
    nodes = [default_node(n) for n in _node_names(size)]
    return _build("PreemptionBasic", size, nodes, low_priority_pod, high_priority_pod)


WORKLOADS: Final[dict[str, WorkloadSpec]] = {
    spec.name: spec
    for spec in (
        WorkloadSpec(
            name="SchedulingBasic",
            upstream="misc/performance-config.yaml: SchedulingBasic",
            description=(
                "default nodes (cpu 4, memory 32Gi, pods 110); init and measured pods are "
                "default pods (one pause container, cpu 100m, memory 500Mi)"
            ),
            factory=scheduling_basic,
            sizes=(Size(500, 500, 1000), Size(5000, 1000, 1000), Size(5000, 1000, 10000)),
        ),
        WorkloadSpec(
            name="SchedulingPodAntiAffinity",
            upstream="affinity/performance-config.yaml: SchedulingPodAntiAffinity",
            description=(
                "default nodes; init and measured pods are default pods labelled color=green "
                "with required pod anti-affinity to color=green on kubernetes.io/hostname"
            ),
            factory=scheduling_pod_anti_affinity,
            sizes=(Size(500, 100, 400), Size(5000, 1000, 1000), Size(5000, 1000, 2000)),
        ),
        WorkloadSpec(
            name="SchedulingPodAffinity",
            upstream="affinity/performance-config.yaml: SchedulingPodAffinity",
            description=(
                "default nodes, all in zone zone1; init and measured pods are default pods "
                "labelled color=blue with required pod affinity to color=blue on "
                "topology.kubernetes.io/zone"
            ),
            factory=scheduling_pod_affinity,
            sizes=(Size(500, 500, 1000), Size(5000, 5000, 1000), Size(5000, 5000, 5000)),
        ),
        WorkloadSpec(
            name="TopologySpreading",
            upstream="topology_spreading/performance-config.yaml: TopologySpreading",
            description=(
                "default nodes in zones moon-1/2/3 (round robin); default init pods; measured "
                "pods labelled color=blue spread by zone, maxSkew 5, DoNotSchedule"
            ),
            factory=topology_spreading,
            sizes=(Size(500, 1000, 1000), Size(5000, 5000, 2000), Size(5000, 5000, 5000)),
        ),
        WorkloadSpec(
            name="PreemptionBasic",
            upstream="misc/performance-config.yaml: PreemptionBasic",
            description=(
                "default nodes; init pods are low-priority (priority 0, cpu 900m); measured "
                "pods are high-priority (priority 10, cpu 3) and each preempts three"
            ),
            factory=preemption_basic,
            sizes=(Size(500, 2000, 500), Size(1000, 4000, 1000)),
        ),
    )
}


def get_workload(name: str) -> WorkloadSpec:
    """The workload called `name`; a KeyError naming the known ones otherwise."""
    try:
        return WORKLOADS[name]
    except KeyError:
        known = ", ".join(sorted(WORKLOADS))
        raise KeyError(f"unknown workload {name!r}; known: {known}") from None
