"""scheduler_perf-shaped workloads: which nodes exist, which pods run first, which are measured.

upstream: test/integration/scheduler_perf/ (misc/performance-config.yaml and the templates
under templates/). A workload there is a list of ops (createNodes, createPods, ...); the last
createPods op has `collectMetrics: true` and is the measured phase. Here a workload is the
objects those ops would create, split into the three phases the runner needs: nodes, pods
scheduled before measuring (`init_pods`) and measured pods (`pods`).

To add a workload (pod anti-affinity, topology spreading, preemption, gangs, volumes ...),
write a `WorkloadFactory` below and add a `WorkloadSpec` for it to `WORKLOADS`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from kubesched.api import K8sModel, Node, Pod

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
    "scheduling_basic",
]

# upstream: scheduler_perf gives each createPods op its own namespace ("namespace-<op index>")
# unless the op names one; the init and the measured pods therefore never share one.
INIT_NAMESPACE: Final = "sched-init"
MEASURED_NAMESPACE: Final = "sched-measured"


def default_node(name: str) -> Node:
    """The node of `templates/node-default.yaml`: capacity cpu 4, memory 32Gi, pods 110,
    Ready, no labels and no taints."""
    return Node.model_validate(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name},
            "spec": {},
            "status": {
                "capacity": {"pods": "110", "cpu": "4", "memory": "32Gi"},
                "conditions": [{"type": "Ready", "status": "True"}],
                "phase": "Running",
            },
        }
    )


def default_pod(name: str, namespace: str) -> Pod:
    """The pod of `templates/pod-default.yaml`: one pause container requesting (and limited
    to) cpu 100m and memory 500Mi, so a default node holds at most 40 of them."""
    resources = {"cpu": "100m", "memory": "500Mi"}
    return Pod.model_validate(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "containers": [
                    {
                        "name": "pause",
                        "image": "registry.k8s.io/pause:3.10",
                        "ports": [{"containerPort": 80}],
                        "resources": {"limits": dict(resources), "requests": dict(resources)},
                    }
                ]
            },
        }
    )


def _clone(template: Pod, name: str) -> Pod:
    """A copy of `template` under another name: validating one pod and copying it is much
    faster than validating thousands of identical dicts (setup time is not measured, but a
    50k-pod workload should not take a minute to build)."""
    meta = template.metadata.model_copy(update={"name": name})
    return template.model_copy(update={"metadata": meta}, deep=True)


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


def scheduling_basic(size: Size, rng: random.Random) -> Workload:
    """SchedulingBasic: default nodes, default init pods, default measured pods.

    upstream: test/integration/scheduler_perf/misc/performance-config.yaml (SchedulingBasic)
    """
    del rng  # every object is identical; the scheduler's seed decides ties
    width = max(len(str(max(size.nodes, size.init_pods, size.pods, 1))), 5)
    nodes = [default_node(f"scheduler-perf-{i:0{width}d}") for i in range(size.nodes)]
    init_template = default_pod("pod-init", INIT_NAMESPACE)
    pod_template = default_pod("pod", MEASURED_NAMESPACE)
    init_pods = [_clone(init_template, f"pod-init-{i:0{width}d}") for i in range(size.init_pods)]
    pods = [_clone(pod_template, f"pod-{i:0{width}d}") for i in range(size.pods)]
    return Workload("SchedulingBasic", size, nodes, init_pods, pods)


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
    )
}


def get_workload(name: str) -> WorkloadSpec:
    """The workload called `name`; a KeyError naming the known ones otherwise."""
    try:
        return WORKLOADS[name]
    except KeyError:
        known = ", ".join(sorted(WORKLOADS))
        raise KeyError(f"unknown workload {name!r}; known: {known}") from None
