"""The Kubernetes objects the scheduler reads, as pydantic models, and the rules that come
with them: quantities, label and node selectors, taints and tolerations, pod requests.

This is the bottom layer: it imports nothing else from kubesched.
"""

from kubesched.api._affinity import (
    Affinity,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    PreferredSchedulingTerm,
    WeightedPodAffinityTerm,
)
from kubesched.api._base import K8sModel, Quantity, ResourceList, format_quantity
from kubesched.api._cluster_kinds import Namespace, PriorityClass
from kubesched.api._defaults import default_pod_level_resources
from kubesched.api._duration import go_duration
from kubesched.api._images import normalized_image_name
from kubesched.api._kinds import KindInfo, KindRegistry, core_kinds
from kubesched.api._labels import LabelSelector, LabelSelectorRequirement, selector_matches
from kubesched.api._merge_patch import apply_merge_patch
from kubesched.api._meta import ObjectMeta, OwnerReference
from kubesched.api._node import ContainerImage, Node, NodeCondition, NodeSpec, NodeStatus
from kubesched.api._pod import (
    DEFAULT_SCHEDULER_NAME,
    POD_REASON_SCHEDULING_GATED,
    POD_SCHEDULED,
    SCHEDULING_GATED_MESSAGE,
    Container,
    ContainerPort,
    Pod,
    PodCondition,
    PodSchedulingGate,
    PodSpec,
    PodStatus,
    ResourceRequirements,
    TopologySpreadConstraint,
    Volume,
)
from kubesched.api._quantity import int_value, milli_value, parse_quantity
from kubesched.api._resources import (
    CPU,
    DEFAULT_MEMORY_REQUEST,
    DEFAULT_MILLI_CPU_REQUEST,
    EPHEMERAL_STORAGE,
    HUGEPAGES_PREFIX,
    MEMORY,
    PODS,
    aggregate_container_limits,
    aggregate_container_requests,
    is_hugepages,
    is_pod_level_requests_set,
    is_pod_level_resources_set,
    is_supported_pod_level_resource,
    node_non_zero_requests,
    pod_requests,
    resource_units,
)
from kubesched.api._taints import (
    Taint,
    TaintEffect,
    Toleration,
    find_untolerated_taint,
    tolerates_any,
)

__all__ = [
    "CPU",
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "DEFAULT_SCHEDULER_NAME",
    "EPHEMERAL_STORAGE",
    "HUGEPAGES_PREFIX",
    "MEMORY",
    "PODS",
    "POD_REASON_SCHEDULING_GATED",
    "POD_SCHEDULED",
    "SCHEDULING_GATED_MESSAGE",
    "Affinity",
    "Container",
    "ContainerImage",
    "ContainerPort",
    "K8sModel",
    "KindInfo",
    "KindRegistry",
    "LabelSelector",
    "LabelSelectorRequirement",
    "Namespace",
    "Node",
    "NodeAffinity",
    "NodeCondition",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "NodeSpec",
    "NodeStatus",
    "ObjectMeta",
    "OwnerReference",
    "Pod",
    "PodAffinity",
    "PodAffinityTerm",
    "PodAntiAffinity",
    "PodCondition",
    "PodSchedulingGate",
    "PodSpec",
    "PodStatus",
    "PreferredSchedulingTerm",
    "PriorityClass",
    "Quantity",
    "ResourceList",
    "ResourceRequirements",
    "Taint",
    "TaintEffect",
    "Toleration",
    "TopologySpreadConstraint",
    "Volume",
    "WeightedPodAffinityTerm",
    "aggregate_container_limits",
    "aggregate_container_requests",
    "apply_merge_patch",
    "core_kinds",
    "default_pod_level_resources",
    "find_untolerated_taint",
    "format_quantity",
    "go_duration",
    "int_value",
    "is_hugepages",
    "is_pod_level_requests_set",
    "is_pod_level_resources_set",
    "is_supported_pod_level_resource",
    "milli_value",
    "node_non_zero_requests",
    "normalized_image_name",
    "parse_quantity",
    "pod_requests",
    "resource_units",
    "selector_matches",
    "tolerates_any",
]
