"""The workload kinds (apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet; batch/v1 Job),
as far as their controllers need them to make pods.

upstream: staging/src/k8s.io/api/apps/v1/types.go and batch/v1/types.go for the fields,
pkg/apis/apps/v1/defaults.go and pkg/apis/batch/v1/defaults.go for the defaults the API
server fills in (replicas 1, podManagementPolicy OrderedReady, a Job's parallelism and
completions 1, backoffLimit 6). Fields the controllers here do not act on (update
strategies, revision history, minReadySeconds ...) are read and ignored, as every kubesched
model ignores what it does not need.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator

from kubesched.api import K8sModel, KindInfo, LabelSelector, ObjectMeta, PodSpec

__all__ = [
    "DaemonSet",
    "DaemonSetSpec",
    "DaemonSetStatus",
    "Deployment",
    "DeploymentSpec",
    "DeploymentStatus",
    "DeploymentStrategy",
    "IntOrString",
    "Job",
    "JobCondition",
    "JobSpec",
    "JobStatus",
    "PodTemplateSpec",
    "ReplicaSet",
    "ReplicaSetSpec",
    "ReplicaSetStatus",
    "RollingUpdateDeployment",
    "StatefulSet",
    "StatefulSetSpec",
    "StatefulSetStatus",
    "TemplatePodSpec",
    "Workload",
    "workload_kinds",
]

RestartPolicy = Literal["Always", "OnFailure", "Never"]


class TemplatePodSpec(PodSpec):
    """A pod template's spec: a PodSpec plus `restartPolicy`, which decides what a
    controller accepts (Always for ReplicaSets, StatefulSets and DaemonSets; OnFailure or
    Never for Jobs) and is not part of what the scheduler reads of a pod."""

    restart_policy: RestartPolicy | None = None


class PodTemplateSpec(K8sModel):
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: TemplatePodSpec = Field(default_factory=TemplatePodSpec)


class _Workload(K8sModel):
    """What every workload has: metadata, and a pod template under `spec.template`."""

    api_version: str = "apps/v1"
    metadata: ObjectMeta

    @property
    def template(self) -> PodTemplateSpec:
        template: PodTemplateSpec = self.spec.template  # type: ignore[attr-defined]
        return template


# -- ReplicaSet and Deployment ---------------------------------------------------------------


class ReplicaSetSpec(K8sModel):
    replicas: int = Field(default=1, ge=0)
    selector: LabelSelector | None = None
    template: PodTemplateSpec = Field(default_factory=PodTemplateSpec)


class ReplicaSetStatus(K8sModel):
    replicas: int = 0
    available_replicas: int = 0
    """Active pods bound to a node (a simulation has no readiness, nor minReadySeconds)."""
    observed_generation: int = 0


class ReplicaSet(_Workload):
    kind: Literal["ReplicaSet"] = "ReplicaSet"
    spec: ReplicaSetSpec = Field(default_factory=ReplicaSetSpec)
    status: ReplicaSetStatus = Field(default_factory=ReplicaSetStatus)


IntOrString = int | str
"""`intstr.IntOrString`: a count (`2`) or a percentage (`"25%"`)."""


def _check_int_or_percent(value: IntOrString) -> IntOrString:
    # upstream ValidatePositiveIntOrPercent
    if isinstance(value, int):
        if value < 0:
            raise ValueError("must be greater than or equal to 0")
    elif not (value.endswith("%") and value[:-1].isdigit()):
        raise ValueError(
            "a valid percent string must be a numeric string followed by an ending '%'"
        )
    return value


class RollingUpdateDeployment(K8sModel):
    max_surge: Annotated[IntOrString, AfterValidator(_check_int_or_percent)] = "25%"
    max_unavailable: Annotated[IntOrString, AfterValidator(_check_int_or_percent)] = "25%"


class DeploymentStrategy(K8sModel):
    type: Literal["RollingUpdate", "Recreate"] = "RollingUpdate"
    rolling_update: RollingUpdateDeployment | None = None


class DeploymentSpec(ReplicaSetSpec):
    paused: bool = False
    strategy: DeploymentStrategy = Field(default_factory=DeploymentStrategy)
    # minReadySeconds, revisionHistoryLimit, progressDeadlineSeconds: ignored


class DeploymentStatus(K8sModel):
    replicas: int = 0
    updated_replicas: int = 0
    available_replicas: int = 0
    observed_generation: int = 0
    collision_count: int | None = None


class Deployment(_Workload):
    kind: Literal["Deployment"] = "Deployment"
    spec: DeploymentSpec = Field(default_factory=DeploymentSpec)
    status: DeploymentStatus = Field(default_factory=DeploymentStatus)


# -- StatefulSet ---------------------------------------------------------------------------


class StatefulSetSpec(K8sModel):
    replicas: int = Field(default=1, ge=0)
    selector: LabelSelector | None = None
    template: PodTemplateSpec = Field(default_factory=PodTemplateSpec)
    service_name: str = ""
    pod_management_policy: Literal["OrderedReady", "Parallel"] = "OrderedReady"
    volume_claim_templates: list[dict[str, Any]] = Field(default_factory=list)
    """PersistentVolumeClaims as written (the PVC kind belongs to kubesched-volumebinding,
    which validates them when they are created)."""


class StatefulSetStatus(K8sModel):
    replicas: int = 0
    observed_generation: int = 0


class StatefulSet(_Workload):
    kind: Literal["StatefulSet"] = "StatefulSet"
    spec: StatefulSetSpec = Field(default_factory=StatefulSetSpec)
    status: StatefulSetStatus = Field(default_factory=StatefulSetStatus)


# -- DaemonSet -----------------------------------------------------------------------------


class DaemonSetSpec(K8sModel):
    selector: LabelSelector | None = None
    template: PodTemplateSpec = Field(default_factory=PodTemplateSpec)


class DaemonSetStatus(K8sModel):
    desired_number_scheduled: int = 0
    current_number_scheduled: int = 0
    observed_generation: int = 0


class DaemonSet(_Workload):
    kind: Literal["DaemonSet"] = "DaemonSet"
    spec: DaemonSetSpec = Field(default_factory=DaemonSetSpec)
    status: DaemonSetStatus = Field(default_factory=DaemonSetStatus)


# -- Job -----------------------------------------------------------------------------------


class JobSpec(K8sModel):
    parallelism: int | None = Field(default=None, ge=0)
    completions: int | None = Field(default=None, ge=0)
    backoff_limit: int = Field(default=6, ge=0)
    completion_mode: Literal["NonIndexed", "Indexed"] = "NonIndexed"
    suspend: bool = False
    active_deadline_seconds: int | None = Field(default=None, ge=0)
    manual_selector: bool | None = None
    selector: LabelSelector | None = None
    template: PodTemplateSpec = Field(default_factory=PodTemplateSpec)

    @model_validator(mode="after")
    def _defaults(self) -> JobSpec:
        # upstream SetDefaults_Job: both unset is a single pod; parallelism defaults to 1
        if self.completions is None and self.parallelism is None:
            self.completions = 1
        if self.parallelism is None:
            self.parallelism = 1
        return self


class JobCondition(K8sModel):
    type: str
    status: Literal["True", "False", "Unknown"] = "True"
    reason: str = ""
    message: str = ""
    last_transition_time: datetime | None = None


class JobStatus(K8sModel):
    active: int = 0
    succeeded: int = 0
    failed: int = 0
    start_time: datetime | None = None
    completion_time: datetime | None = None
    conditions: list[JobCondition] = Field(default_factory=list)

    def condition(self, type_: str) -> JobCondition | None:
        return next((c for c in self.conditions if c.type == type_ and c.status == "True"), None)


class Job(_Workload):
    api_version: str = "batch/v1"
    kind: Literal["Job"] = "Job"
    spec: JobSpec = Field(default_factory=JobSpec)
    status: JobStatus = Field(default_factory=JobStatus)

    @property
    def finished(self) -> bool:
        """Complete or Failed (upstream IsJobFinished)."""
        return bool(self.status.condition("Complete") or self.status.condition("Failed"))


Workload = Deployment | ReplicaSet | StatefulSet | DaemonSet | Job
"""Any of the workload kinds."""


def workload_kinds() -> list[KindInfo]:
    """The workload kinds, for `kubesched_register_kinds` (validated on create by
    `kubesched.workloads._validation`)."""
    from kubesched.workloads._validation import validate_workload

    apps = [
        ("Deployment", "deployments", Deployment),
        ("ReplicaSet", "replicasets", ReplicaSet),
        ("StatefulSet", "statefulsets", StatefulSet),
        ("DaemonSet", "daemonsets", DaemonSet),
    ]
    kinds = [
        KindInfo("apps/v1", kind, plural, namespaced=True, model=model, validate=validate_workload)
        for kind, plural, model in apps
    ]
    kinds.append(
        KindInfo("batch/v1", "Job", "jobs", namespaced=True, model=Job, validate=validate_workload)
    )
    return kinds
