"""What the API server refuses of a workload on create, as far as its controller relies on it.

upstream: pkg/apis/apps/validation/validation.go (ValidateDeploymentSpec,
ValidateReplicaSetSpec, ValidatePodTemplateSpecForReplicaSet, ValidateStatefulSetSpec,
ValidateDaemonSetSpec) and pkg/apis/batch/validation/validation.go (validateJobSpec): a
selector is required and not empty, it must match the template's labels, the template's
restartPolicy must suit the controller. Two rules are kubesched's own: a StatefulSet needs
`serviceName` (its pods' DNS identity; optional upstream since v1.31, required here so a
StatefulSet copied without its Service is noticed), and a StatefulSet with
`volumeClaimTemplates` needs the PersistentVolumeClaim kind to be registered (by
kubesched-volumebinding); the duration annotation of a template must parse.

The errors read as the API server's (`Deployment.apps "web" is invalid:
spec.template.metadata.labels: Invalid value: ...: `selector` does not match template
`labels``), and a simulation names the file and document the workload came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from pydantic import ValidationError

from kubesched._errors import ManifestError
from kubesched.api import K8sModel, KindRegistry, LabelSelector, Pod
from kubesched.api.field import (
    FieldError,
    Path,
    Stringer,
    aggregate,
    go_quote,
    invalid,
    not_supported,
    required,
)
from kubesched.config import parse_duration
from kubesched.workloads._labels import DURATION_ANNOTATION, RESULT_ANNOTATION, RESULTS
from kubesched.workloads._models import Job, PodTemplateSpec, StatefulSet

__all__ = ["PVC_KIND", "check_pod_lifecycles", "lifecycle_annotation_errors", "validate_workload"]

PVC_KIND: Final = "PersistentVolumeClaim"

_SPEC: Final = Path("spec")
_NO_MATCH: Final = "`selector` does not match template `labels`"


def validate_workload(obj: Any, kinds: KindRegistry) -> list[FieldError]:
    """The field errors of a new Deployment, ReplicaSet, StatefulSet, DaemonSet or Job."""
    if isinstance(obj, Job):
        return _job(obj)
    errors: list[FieldError] = []
    kind = obj.kind.lower()
    selector: LabelSelector | None = obj.spec.selector
    errors += _selector(selector, kind)
    errors += _template(obj.template, selector, _SPEC.child("template"))
    policy = obj.template.spec.restart_policy or "Always"  # upstream defaulting
    if policy != "Always":
        path = _SPEC.child("template", "spec", "restartPolicy")
        errors.append(not_supported(path, policy, ["Always"]))
    if isinstance(obj, StatefulSet):
        errors += _statefulset(obj, kinds)
    return errors


def _selector(selector: LabelSelector | None, kind: str) -> list[FieldError]:
    if selector is None:
        return [required(_SPEC.child("selector"), "")]
    if selector.is_empty():
        detail = f"empty selector is invalid for {kind}"
        # the empty selector as its generated String method prints it
        empty = (
            "&LabelSelector{MatchLabels:map[string]string{},"
            "MatchExpressions:[]LabelSelectorRequirement{},}"
        )
        return [invalid(_SPEC.child("selector"), Stringer(empty), detail)]
    return []


def _template(
    template: PodTemplateSpec, selector: LabelSelector | None, path: Path
) -> list[FieldError]:
    """upstream ValidatePodTemplateSpecForReplicaSet: the selector must select the template's
    pods (else the controller would create pods forever); the simulation annotations must
    parse."""
    errors: list[FieldError] = []
    labels = template.metadata.labels
    if selector is not None and not selector.is_empty() and not selector.matches(labels):
        errors.append(invalid(path.child("metadata", "labels"), _go_map(labels), _NO_MATCH))
    errors += lifecycle_annotation_errors(
        template.metadata.annotations, path.child("metadata", "annotations")
    )
    return errors


def _go_map(labels: dict[str, str]) -> Stringer:
    """A label map as field.Error prints it (%#v): `map[string]string{"app":"web"}`."""
    pairs = ",".join(f"{go_quote(k)}:{go_quote(v)}" for k, v in sorted(labels.items()))
    return Stringer(f"map[string]string{{{pairs}}}")


def lifecycle_annotation_errors(annotations: dict[str, str], path: Path) -> list[FieldError]:
    """The problems of the simulation's duration and result annotations, if present."""
    errors: list[FieldError] = []
    duration = annotations.get(DURATION_ANNOTATION)
    if duration is not None:
        try:
            seconds = parse_duration(duration)
        except ValueError:
            seconds = -1.0
        if seconds < 0:
            detail = 'a non-negative Go duration such as "90s" or "1h30m"'
            errors.append(invalid(path.key(DURATION_ANNOTATION), duration, detail))
    result = annotations.get(RESULT_ANNOTATION)
    if result is not None and result not in RESULTS:
        errors.append(not_supported(path.key(RESULT_ANNOTATION), result, list(RESULTS)))
    return errors


def _statefulset(sts: StatefulSet, kinds: KindRegistry) -> list[FieldError]:
    errors: list[FieldError] = []
    if not sts.spec.service_name:
        errors.append(required(_SPEC.child("serviceName"), "a StatefulSet needs serviceName"))
    templates = sts.spec.volume_claim_templates
    if not templates:
        return errors
    path = _SPEC.child("volumeClaimTemplates")
    info = kinds.by_kind(PVC_KIND)
    if info is None:
        detail = (
            f'kind "{PVC_KIND}" is not registered by any installed package '
            "(install kubesched-volumebinding to simulate volumes)"
        )
        errors.append(invalid(path, f"{len(templates)} template(s)", detail))
        return errors
    seen: set[str] = set()
    for i, template in enumerate(templates):
        name = (template.get("metadata") or {}).get("name") or ""
        if not name:
            errors.append(required(path.index(i).child("metadata", "name"), ""))
        elif name in seen:
            errors.append(invalid(path.index(i).child("metadata", "name"), name, "duplicate"))
        seen.add(name)
        try:
            info.model.model_validate(
                {"apiVersion": info.api_version, "kind": PVC_KIND, "metadata": {"name": "x"}}
                | {k: v for k, v in template.items() if k not in ("apiVersion", "kind", "metadata")}
            )
        except ValidationError as error:
            first = error.errors()[0]
            where = path.index(i).child(*(str(p) for p in first["loc"]))
            errors.append(invalid(where, first.get("input"), str(first["msg"])))
    return errors


def _job(job: Job) -> list[FieldError]:
    """upstream validateJobSpec: a manual selector must match the template; the template's
    restartPolicy is OnFailure or Never."""
    errors: list[FieldError] = []
    selector = job.spec.selector
    if job.spec.manual_selector:
        errors += _selector(selector, "job")
    else:
        selector = None  # the API server generates it from the Job's uid
    errors += _template(job.template, selector, _SPEC.child("template"))
    policy = job.template.spec.restart_policy
    path = _SPEC.child("template", "spec", "restartPolicy")
    if policy is None:
        errors.append(required(path, 'valid values: "OnFailure", "Never"'))
    elif policy not in ("OnFailure", "Never"):
        errors.append(not_supported(path, policy, ["OnFailure", "Never"]))
    return errors


def check_pod_lifecycles(
    objects: Sequence[K8sModel], origins: Sequence[tuple[str, int]] = ()
) -> None:
    """Raise ManifestError for the first pod whose simulation annotations do not parse,
    naming the file and document it came from (`origins`, parallel to `objects`)."""
    for index, obj in enumerate(objects):
        if not isinstance(obj, Pod):
            continue
        path = Path("metadata").child("annotations")
        errors = lifecycle_annotation_errors(obj.metadata.annotations, path)
        if errors:
            file, document = origins[index] if index < len(origins) else (None, None)
            # worded as the API server's refusals are (create_objects' other errors)
            detail = f"pods {go_quote(obj.metadata.name)} is invalid: {aggregate(errors)}"
            raise ManifestError(detail, file=file, document=document)
