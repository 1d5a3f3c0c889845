"""What the API server does to an object on create, before it is stored.

System fields (uid, creationTimestamp, generation, a name from generateName) and, for pods,
API defaulting of pod-level resources, the pod strategy's PrepareForCreate (pod-level
resources dropped while the PodLevelResources gate is off, the SchedulingGated condition)
and the Priority admission plugin: `spec.priority` and `spec.preemptionPolicy` from the
pod's PriorityClass or the cluster's global default. Everything random comes from one
seeded generator, so two runs with the same seed produce the same uids and names.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterable
from typing import Final, Literal

from kubesched._errors import KubeschedError
from kubesched.api import (
    POD_REASON_SCHEDULING_GATED,
    POD_SCHEDULED,
    SCHEDULING_GATED_MESSAGE,
    K8sModel,
    Pod,
    PodCondition,
    PriorityClass,
    default_pod_level_resources,
)
from kubesched.api.field import go_value
from kubesched.clock import Clock
from kubesched.features import feature_enabled

__all__ = ["SYSTEM_PRIORITY_CLASSES", "Admission", "AdmissionError"]

# upstream: pkg/apis/scheduling/types.go (SystemClusterCritical, SystemNodeCritical). The API
# server creates these at start-up; pods copied from a real cluster (coredns, kube-proxy ...)
# name them, so they resolve here even when no manifest defines them.
SYSTEM_PRIORITY_CLASSES: Final[dict[str, int]] = {
    "system-cluster-critical": 2_000_000_000,
    "system-node-critical": 2_000_001_000,
}

# upstream: staging/src/k8s.io/apiserver/pkg/storage/names/generate.go (utilrand.String)
_NAME_ALPHABET: Final = "bcdfghjklmnpqrstvwxz2456789"
_GENERATED_SUFFIX_LENGTH: Final = 5
_MAX_GENERATE_NAME_PREFIX: Final = 63 - _GENERATED_SUFFIX_LENGTH


class AdmissionError(KubeschedError, ValueError):
    """An object the API server would refuse to create (403 Forbidden / 422 Invalid).

    ``plural`` is the kind's resource name (``pods``), ``name`` the object's name; the message
    reads like upstream's: ``pods "web-1" is forbidden: no PriorityClass with name x was found``.
    """

    def __init__(self, plural: str, name: str, detail: str, *, reason: str = "forbidden") -> None:
        super().__init__(plural, name, detail)
        self.plural = plural
        self.name = name
        self.detail = detail
        self.reason = reason

    def __str__(self) -> str:
        # upstream formats the name with %q (apimachinery/pkg/api/errors NewInvalid/NewForbidden)
        return f"{self.plural} {go_value(self.name)} is {self.reason}: {self.detail}"


class Admission:
    """Fills in what the API server owns on create. Mutates the object it is given, which
    must already be the cluster's private copy."""

    def __init__(self, clock: Clock, uid_seed: int = 0) -> None:
        self._clock = clock
        self._rng = random.Random(uid_seed)

    def new_uid(self) -> str:
        return str(uuid.UUID(int=self._rng.getrandbits(128), version=4))

    def admit(
        self,
        obj: K8sModel,
        plural: str,
        priority_classes: Callable[[], Iterable[PriorityClass]],
        priority_class: Callable[[str], PriorityClass | None],
    ) -> None:
        """System fields, then the Pod-only plugins. `priority_classes` lists the stored
        classes (only read when a pod names none); `priority_class` looks one up by name."""
        meta = obj.metadata  # type: ignore[attr-defined]
        if not meta.name:
            if not meta.generate_name:
                raise AdmissionError(
                    plural,
                    "",
                    "metadata.name: Required value: name or generateName is required",
                    reason="invalid",
                )
            suffix = "".join(self._rng.choices(_NAME_ALPHABET, k=_GENERATED_SUFFIX_LENGTH))
            meta.name = meta.generate_name[:_MAX_GENERATE_NAME_PREFIX] + suffix
        # Kept when the manifest carries them (a `kubectl get -o yaml` snapshot), so
        # ownerReferences and ages stay meaningful; upstream always overwrites both.
        if not meta.uid:
            meta.uid = self.new_uid()
        if meta.creation_timestamp is None:
            meta.creation_timestamp = self._clock.wall_time()
        meta.generation = 1
        if isinstance(obj, Pod):
            self._prepare_pod(obj)
            admit_pod_priority(obj, priority_classes, priority_class)

    def _prepare_pod(self, pod: Pod) -> None:
        """Defaulting, then the pod strategy's PrepareForCreate, as far as a scheduler sees.

        upstream: pkg/apis/core/v1/defaults.go (SetDefaults_Pod), pkg/api/pod/util.go
        (dropDisabledPodLevelResources), pkg/registry/core/pod/strategy.go
        (PrepareForCreate, applySchedulingGatedCondition). Deviation: the status a manifest
        carries is kept (upstream resets it), so a snapshot's conditions survive.
        """
        if feature_enabled("PodLevelResources"):
            default_pod_level_resources(pod)
        else:
            pod.spec.resources = None
        if pod.spec.scheduling_gates and pod.status.condition(POD_SCHEDULED) is None:
            pod.status.conditions.append(
                PodCondition(
                    type=POD_SCHEDULED,
                    status="False",
                    reason=POD_REASON_SCHEDULING_GATED,
                    message=SCHEDULING_GATED_MESSAGE,
                    last_transition_time=self._clock.wall_time(),
                )
            )


def admit_pod_priority(
    pod: Pod,
    priority_classes: Callable[[], Iterable[PriorityClass]],
    priority_class: Callable[[str], PriorityClass | None],
) -> None:
    """Resolve the pod's priority from its PriorityClass, or from the global default.

    upstream: plugin/pkg/admission/priority/admission.go (admitPod, getDefaultPriority).
    Deviation: a pod that names no class but sets `spec.priority` itself keeps it (upstream
    forbids that), so hand-written simulation manifests can state priorities directly.
    """
    spec = pod.spec
    preemption_policy: Literal["PreemptLowerPriority", "Never"] | None
    if spec.priority_class_name:
        name = spec.priority_class_name
        pc = priority_class(name)
        if pc is not None:
            priority, preemption_policy = pc.value, pc.preemption_policy
        elif name in SYSTEM_PRIORITY_CLASSES:
            priority, preemption_policy = SYSTEM_PRIORITY_CLASSES[name], None
        else:
            raise AdmissionError(
                "pods", pod.metadata.name, f"no PriorityClass with name {name} was found"
            )
    else:
        if spec.priority is not None:
            spec.preemption_policy = spec.preemption_policy or "PreemptLowerPriority"
            return
        default = _global_default(priority_classes())
        if default is not None:
            spec.priority_class_name = default.metadata.name
            priority, preemption_policy = default.value, default.preemption_policy
        else:
            # upstream: scheduling.DefaultPriorityWhenNoDefaultClassExists
            priority, preemption_policy = 0, None

    if spec.priority is not None and spec.priority != priority:
        raise AdmissionError(
            "pods",
            pod.metadata.name,
            f"the integer value of priority ({spec.priority}) must not be provided in pod spec; "
            f"priority admission controller computed {priority} from the given PriorityClass name",
        )
    spec.priority = priority
    # A PriorityClass's preemptionPolicy defaults to PreemptLowerPriority (API defaulting).
    policy = preemption_policy or "PreemptLowerPriority"
    if spec.preemption_policy is not None and spec.preemption_policy != policy:
        raise AdmissionError(
            "pods",
            pod.metadata.name,
            f"the string value of PreemptionPolicy ({spec.preemption_policy}) must not be "
            f"provided in pod spec; priority admission controller computed {policy} from the "
            "given PriorityClass name",
        )
    spec.preemption_policy = policy


def _global_default(classes: Iterable[PriorityClass]) -> PriorityClass | None:
    # upstream: getDefaultPriorityClass. Should a race leave several global defaults, the
    # one with the lowest value wins.
    default: PriorityClass | None = None
    for pc in classes:
        if pc.global_default and (default is None or pc.value < default.value):
            default = pc
    return default
