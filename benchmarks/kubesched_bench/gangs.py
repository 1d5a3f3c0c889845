"""GangScheduling: gangs of default pods, each with its PodGroup, on default nodes.

Upstream kube-scheduler's scheduler_perf has no coscheduling workload (scheduler-plugins
has none either), so this one follows scheduler_perf's shape with scheduler-plugins'
objects and profile: default nodes (`templates/node-default.yaml`), default pods
(`templates/pod-default.yaml`) carrying the `scheduling.x-k8s.io/pod-group` label, one
`scheduling.x-k8s.io/v1alpha1` PodGroup per gang with `minMember` = the gang's size, and
the default profile plus Coscheduling at every point it implements (scheduler-plugins'
`manifests/coscheduling/scheduler-config.yaml`, as `examples/training/scheduler-config.yaml`).

A default node holds 40 default pods (cpu 4 / 100m), so 500 nodes hold 20000: both
recorded shapes (100 gangs of 10, 10 gangs of 1000) fit whole, with room to spare.
"""

from __future__ import annotations

import random
from typing import Any, Final

from kubesched.api import K8sModel
from kubesched_bench.spec import Gang, Requirement, Size, Workload, index_width, node_names
from kubesched_bench.templates import (
    INIT_NAMESPACE,
    MEASURED_NAMESPACE,
    clone_pod,
    default_node,
    default_pod,
)

__all__ = [
    "COSCHEDULING",
    "COSCHEDULING_CONFIG",
    "POD_GROUP_API_VERSION",
    "POD_GROUP_LABEL",
    "gang_scheduling",
]

# scheduler-plugins: apis/scheduling/v1alpha1 (kept here as strings so that this module
# imports without the package; the factory imports it to build the PodGroups).
POD_GROUP_API_VERSION: Final = "scheduling.x-k8s.io/v1alpha1"
POD_GROUP_LABEL: Final = "scheduling.x-k8s.io/pod-group"

COSCHEDULING: Final = Requirement(
    distribution="kubesched-coscheduling",
    source="./plugins-coscheduling",
    provides="the PodGroup kind and the Coscheduling plugin",
)

COSCHEDULING_CONFIG: Final[dict[str, Any]] = {
    # the same document as examples/training/scheduler-config.yaml (a test compares them)
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "plugins": {
                "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                "queueSort": {
                    "enabled": [{"name": "Coscheduling"}],
                    "disabled": [{"name": "*"}],
                },
            },
            "pluginConfig": [
                {
                    "name": "Coscheduling",
                    "args": {
                        "permitWaitingTimeSeconds": 60,
                        "podGroupBackoffSeconds": 0,
                        "podGroupRejectPercentage": 10,
                    },
                }
            ],
        }
    ],
}


def _pod_group(name: str, namespace: str, min_member: int) -> K8sModel:
    from kubesched_coscheduling import PodGroup  # installed: WorkloadSpec.build checked

    return PodGroup.model_validate(
        {
            "apiVersion": POD_GROUP_API_VERSION,
            "kind": "PodGroup",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"minMember": min_member},
        }
    )


def gang_scheduling(size: Size, rng: random.Random) -> Workload:
    """GangScheduling: `size.pods // size.gang_size` gangs of `size.gang_size` default
    pods, each gang with its PodGroup (minMember = gang size), created gang after gang;
    init pods are plain default pods.

    Raises ValueError unless `size.gang_size` is positive and divides `size.pods`.
    """
    del rng  # every object is fixed; the scheduler's seed decides ties
    gang_size = size.gang_size
    if gang_size <= 0 or size.pods % gang_size:
        raise ValueError(
            f"GangScheduling needs a gang size that divides the measured pods; "
            f"got {size.pods} pods in gangs of {gang_size}"
        )
    width = index_width(size)
    nodes = [default_node(n) for n in node_names(size)]
    init = default_pod("pod-init", INIT_NAMESPACE)
    init_pods = [clone_pod(init, f"pod-init-{i:0{width}d}") for i in range(size.init_pods)]
    template = default_pod("pod", MEASURED_NAMESPACE)
    groups: list[K8sModel] = []
    gangs: list[Gang] = []
    pods = []
    gang_width = max(len(str(size.pods // gang_size - 1)), 3)
    for g in range(size.pods // gang_size):
        group = f"gang-{g:0{gang_width}d}"
        groups.append(_pod_group(group, MEASURED_NAMESPACE, gang_size))
        members = [
            clone_pod(template, f"{group}-{i:0{width}d}", labels={POD_GROUP_LABEL: group})
            for i in range(gang_size)
        ]
        pods.extend(members)
        gangs.append(
            Gang(f"{MEASURED_NAMESPACE}/{group}", gang_size, tuple(p.key for p in members))
        )
    return Workload(
        "GangScheduling",
        size,
        nodes,
        init_pods,
        pods,
        setup=groups,
        config=COSCHEDULING_CONFIG,
        profile="default + Coscheduling",
        gangs=gangs,
    )
