"""scheduler_perf-shaped workloads: which nodes exist, which pods run first, which are measured.

upstream: test/integration/scheduler_perf/ (misc/performance-config.yaml and the templates
under templates/). A workload there is a list of ops (createNodes, createPods, ...); the last
createPods op has `collectMetrics: true` and is the measured phase. Here a workload is the
objects those ops would create, split into the three phases the runner needs: nodes, pods
scheduled before measuring (`init_pods`) and measured pods (`pods`).

The node and pod templates are in `kubesched_bench.templates`, the workload types in
`kubesched_bench.spec`; GangScheduling is in `kubesched_bench.gangs` and VolumeBinding in
`kubesched_bench.volumes`. To add a workload, write a `WorkloadFactory` and add a
`WorkloadSpec` for it to `WORKLOADS` (with `requires` when it needs a plugin package).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from kubesched.api import Node, Pod
from kubesched_bench.dra import DRA, scheduling_with_resource_claim_template
from kubesched_bench.gangs import COSCHEDULING, gang_scheduling
from kubesched_bench.spec import (
    Gang,
    Requirement,
    Size,
    Workload,
    WorkloadFactory,
    WorkloadSpec,
    index_width,
    node_names,
)
from kubesched_bench.templates import (
    INIT_NAMESPACE,
    MEASURED_NAMESPACE,
    clone_pod,
    default_node,
    default_pod,
    high_priority_pod,
    low_priority_pod,
    pod_with_node_affinity,
    pod_with_pod_affinity,
    pod_with_pod_anti_affinity,
    pod_with_topology_spreading,
    zoned_nodes,
)
from kubesched_bench.volumes import VOLUMEBINDING, volume_binding

__all__ = [
    "INIT_NAMESPACE",
    "MEASURED_NAMESPACE",
    "WORKLOADS",
    "Gang",
    "Requirement",
    "Size",
    "Workload",
    "WorkloadFactory",
    "WorkloadSpec",
    "default_node",
    "default_pod",
    "gang_scheduling",
    "get_workload",
    "preemption_basic",
    "scheduling_basic",
    "scheduling_node_affinity",
    "scheduling_pod_affinity",
    "scheduling_pod_anti_affinity",
    "topology_spreading",
    "volume_binding",
]


PodTemplate = Callable[[str, str], Pod]
"""template(name, namespace) -> Pod, one of `kubesched_bench.templates`."""


def _build(
    name: str,
    size: Size,
    nodes: list[Node],
    init_template: PodTemplate,
    pod_template: PodTemplate,
) -> Workload:
    """The workload with `size.init_pods` copies of `init_template` (in INIT_NAMESPACE) and
    `size.pods` copies of `pod_template` (in MEASURED_NAMESPACE)."""
    width = index_width(size)
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
    nodes = [default_node(n) for n in node_names(size)]
    return _build("SchedulingBasic", size, nodes, default_pod, default_pod)


def scheduling_pod_anti_affinity(size: Size, rng: random.Random) -> Workload:
    """SchedulingPodAntiAffinity: default nodes; init and measured pods are green pods with
    required anti-affinity to green pods on the same host, so each lands on its own node.

    upstream: test/integration/scheduler_perf/affinity/performance-config.yaml
    (SchedulingPodAntiAffinity), templates/pod-with-pod-anti-affinity.yaml
    """
    del rng
    nodes = [default_node(n) for n in node_names(size)]
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
    nodes = zoned_nodes(node_names(size), ["zone1"])
    return _build(
        "SchedulingPodAffinity", size, nodes, pod_with_pod_affinity, pod_with_pod_affinity
    )


def scheduling_node_affinity(size: Size, rng: random.Random) -> Workload:
    """SchedulingNodeAffinity: default nodes all in zone `zone1`; init and measured pods
    require a node in zone1 or zone2.

    upstream: test/integration/scheduler_perf/affinity/performance-config.yaml
    (SchedulingNodeAffinity), templates/pod-with-node-affinity.yaml
    """
    del rng
    nodes = zoned_nodes(node_names(size), ["zone1"])
    return _build(
        "SchedulingNodeAffinity", size, nodes, pod_with_node_affinity, pod_with_node_affinity
    )


def topology_spreading(size: Size, rng: random.Random) -> Workload:
    """TopologySpreading: default nodes in zones moon-1, moon-2, moon-3 (in turn); default
    init pods; measured pods spread over the zones (maxSkew 5, DoNotSchedule).

    upstream: test/integration/scheduler_perf/topology_spreading/performance-config.yaml
    (TopologySpreading), templates/pod-with-topology-spreading.yaml
    """
    del rng
    nodes = zoned_nodes(node_names(size), ["moon-1", "moon-2", "moon-3"])
    return _build("TopologySpreading", size, nodes, default_pod, pod_with_topology_spreading)


def preemption_basic(size: Size, rng: random.Random) -> Workload:
    """PreemptionBasic: default nodes filled by low-priority pods (cpu 900m, four to a node
    at the upstream sizes), then high-priority pods (cpu 3) that each preempt three of them.

    upstream: test/integration/scheduler_perf/misc/performance-config.yaml (PreemptionBasic),
    templates/pod-low-priority.yaml, templates/pod-high-priority.yaml
    """
    del rng
    nodes = [default_node(n) for n in node_names(size)]
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
            name="SchedulingNodeAffinity",
            upstream="affinity/performance-config.yaml: SchedulingNodeAffinity",
            description=(
                "default nodes, all in zone zone1; init and measured pods are default pods "
                "with required node affinity to topology.kubernetes.io/zone in (zone1, zone2)"
            ),
            factory=scheduling_node_affinity,
            sizes=(Size(500, 500, 1000), Size(5000, 5000, 1000), Size(5000, 5000, 10000)),
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
            # 5000Nodes is commented out upstream ("always seems to fail", kubernetes#108308)
            sizes=(Size(500, 2000, 500), Size(1000, 4000, 1000), Size(5000, 20000, 5000)),
        ),
        WorkloadSpec(
            name="GangScheduling",
            upstream="scheduler-plugins coscheduling (no upstream scheduler_perf case)",
            description=(
                "default nodes; measured pods are default pods in gangs of --gang-size, "
                "each gang a PodGroup with minMember = gang size; default profile plus "
                "Coscheduling (examples/training/scheduler-config.yaml)"
            ),
            factory=gang_scheduling,
            sizes=(Size(500, 0, 1000, gang_size=10), Size(500, 0, 10000, gang_size=1000)),
            requires=(COSCHEDULING,),
        ),
        WorkloadSpec(
            name="VolumeBinding",
            upstream=(
                "volumes/performance-config.yaml: SchedulingCSIPVs, SchedulingInTreePVs; "
                "benchmark_test.go: SchedulingWaitForFirstConsumerPVs"
            ),
            description=(
                "default nodes in zones zone-a/b/c; init and measured pods are default "
                "pods with one 1Gi claim each, in turn: pre-bound CSI PV, local PV "
                "(WaitForFirstConsumer, node affinity), provisioned (WaitForFirstConsumer)"
            ),
            factory=volume_binding,
            sizes=(Size(500, 500, 1000), Size(5000, 5000, 1000)),
            requires=(VOLUMEBINDING,),
        ),
        WorkloadSpec(
            name="SchedulingWithResourceClaimTemplate",
            upstream="dra/performance-config.yaml: SchedulingWithResourceClaimTemplate",
            description=(
                "nodes scheduler-perf-dra-* each publishing ceil(pods / nodes) devices "
                "(test-driver.cdi.k8s.io); init and measured pods are pause pods each with "
                "a claim from the template test-claim-template (one device of test-class)"
            ),
            factory=scheduling_with_resource_claim_template,
            sizes=(Size(500, 2500, 2500), Size(100, 1000, 1000), Size(5000, 5000, 5000)),
            requires=(DRA,),
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
