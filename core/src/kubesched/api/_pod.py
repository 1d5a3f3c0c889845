"""Pods, as far as a scheduler reads and writes them."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Literal

from pydantic import ConfigDict, Field, model_validator

from kubesched.api._affinity import Affinity
from kubesched.api._base import K8sModel, ResourceList
from kubesched.api._labels import LabelSelector
from kubesched.api._meta import ObjectMeta
from kubesched.api._taints import Toleration

__all__ = [
    "DEFAULT_SCHEDULER_NAME",
    "POD_REASON_SCHEDULING_GATED",
    "POD_SCHEDULED",
    "SCHEDULING_GATED_MESSAGE",
    "Container",
    "ContainerPort",
    "ContainerResourceClaim",
    "Pod",
    "PodCondition",
    "PodResourceClaim",
    "PodResourceClaimStatus",
    "PodSchedulingGate",
    "PodSpec",
    "PodStatus",
    "ResourceRequirements",
    "TopologySpreadConstraint",
    "Volume",
]

DEFAULT_SCHEDULER_NAME = "default-scheduler"

# upstream: k8s.io/api/core/v1/types.go (PodScheduled, PodReasonSchedulingGated) and
# pkg/registry/core/pod/strategy.go (applySchedulingGatedCondition), the condition the API
# server gives a pod created with scheduling gates.
POD_SCHEDULED = "PodScheduled"
POD_REASON_SCHEDULING_GATED = "SchedulingGated"
SCHEDULING_GATED_MESSAGE = "Scheduling is blocked due to non-empty scheduling gates"


class ContainerResourceClaim(K8sModel):
    """An entry of a container's `resources.claims` (upstream core/v1 ResourceClaim): the
    pod's `spec.resourceClaims[].name` it uses and, optionally, one request of it."""

    name: str
    request: str = ""


class ResourceRequirements(K8sModel):
    requests: ResourceList = Field(default_factory=dict)
    limits: ResourceList = Field(default_factory=dict)
    claims: list[ContainerResourceClaim] = Field(default_factory=list)


class ContainerPort(K8sModel):
    container_port: int = 0
    host_port: int = 0
    protocol: Literal["TCP", "UDP", "SCTP"] = "TCP"
    host_ip: str = Field(default="", alias="hostIP")
    name: str | None = None


class Container(K8sModel):
    name: str = ""
    image: str = ""
    resources: ResourceRequirements = Field(default_factory=ResourceRequirements)
    ports: list[ContainerPort] = Field(default_factory=list)
    restart_policy: str | None = None

    @model_validator(mode="after")
    def _default_requests_from_limits(self) -> Container:
        # API defaulting (pkg/apis/core/v1/defaults.go, SetDefaults_Pod): a resource with a
        # limit but no request gets the limit as its request.
        for name, limit in self.resources.limits.items():
            self.resources.requests.setdefault(name, limit)
        return self


class Volume(K8sModel):
    """A pod volume; only the source types the scheduler reads are typed, others are kept."""

    model_config: ClassVar[ConfigDict] = ConfigDict(extra="allow")

    name: str
    persistent_volume_claim: dict[str, Any] | None = None
    ephemeral: dict[str, Any] | None = None


class PodSchedulingGate(K8sModel):
    name: str


class TopologySpreadConstraint(K8sModel):
    max_skew: int
    topology_key: str
    when_unsatisfiable: Literal["DoNotSchedule", "ScheduleAnyway"]
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: Literal["Honor", "Ignore"] | None = None
    node_taints_policy: Literal["Honor", "Ignore"] | None = None
    match_label_keys: list[str] = Field(default_factory=list)


class PodResourceClaim(K8sModel):
    """An entry of `spec.resourceClaims`: a claim by name (`resourceClaimName`) or one the
    resourceclaim controller creates for the pod from a template
    (`resourceClaimTemplateName`); exactly one of the two is set."""

    name: str
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


class PodSpec(K8sModel):
    node_name: str = ""
    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    priority: int | None = None
    priority_class_name: str = ""
    preemption_policy: Literal["PreemptLowerPriority", "Never"] | None = None
    node_selector: dict[str, str] = Field(default_factory=dict)
    affinity: Affinity | None = None
    tolerations: list[Toleration] = Field(default_factory=list)
    containers: list[Container] = Field(default_factory=list)
    init_containers: list[Container] = Field(default_factory=list)
    overhead: ResourceList = Field(default_factory=dict)
    resources: ResourceRequirements | None = None
    """Pod-level requests and limits (KEP-2837, PodLevelResources); None when unset."""
    scheduling_gates: list[PodSchedulingGate] = Field(default_factory=list)
    volumes: list[Volume] = Field(default_factory=list)
    resource_claims: list[PodResourceClaim] = Field(default_factory=list)
    topology_spread_constraints: list[TopologySpreadConstraint] = Field(default_factory=list)
    host_network: bool = False
    termination_grace_period_seconds: int | None = None
    """Seconds a deleted pod may take to stop; None is the API default, 30."""


class PodCondition(K8sModel):
    type: str
    status: Literal["True", "False", "Unknown"]
    reason: str = ""
    message: str = ""
    last_transition_time: datetime | None = None
    last_probe_time: datetime | None = None


class PodResourceClaimStatus(K8sModel):
    """An entry of `status.resourceClaimStatuses`: the claim generated for the pod's
    `spec.resourceClaims[].name` from its template (None: none was needed)."""

    name: str
    resource_claim_name: str | None = None


class PodStatus(K8sModel):
    phase: str = "Pending"
    conditions: list[PodCondition] = Field(default_factory=list)
    nominated_node_name: str = ""
    start_time: datetime | None = None
    resource_claim_statuses: list[PodResourceClaimStatus] = Field(default_factory=list)

    def condition(self, type_: str) -> PodCondition | None:
        return next((c for c in self.conditions if c.type == type_), None)


class Pod(K8sModel):
    api_version: str = "v1"
    kind: Literal["Pod"] = "Pod"
    metadata: ObjectMeta
    spec: PodSpec = Field(default_factory=PodSpec)
    status: PodStatus = Field(default_factory=PodStatus)

    @property
    def key(self) -> str:
        """`namespace/name`, the key the queue and reports use."""
        return f"{self.metadata.namespace or 'default'}/{self.metadata.name}"

    @property
    def uid(self) -> str:
        return self.metadata.uid

    @property
    def priority(self) -> int:
        """`spec.priority`, 0 when unset (upstream corev1helpers.PodPriority)."""
        return self.spec.priority or 0

    @property
    def is_terminating(self) -> bool:
        return self.metadata.deletion_timestamp is not None

    @property
    def is_terminal(self) -> bool:
        return self.status.phase in ("Succeeded", "Failed")
