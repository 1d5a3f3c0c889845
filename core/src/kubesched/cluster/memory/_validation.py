"""What the API server refuses to store: each core kind's validation on create.

The memory cluster stands in for the API server, so it validates what it creates as
kube-apiserver does after defaulting and admission, and refuses an invalid object with the
API server's text: ``Pod "web-1" is invalid: spec.containers[0].resources.requests[cpu]:
Invalid value: "-1": must be greater than or equal to 0`` (several errors read ``[a, b]``).

upstream: pkg/apis/core/validation/validation.go (ValidatePodCreate, ValidateNode,
ValidateNamespace, ValidateObjectMeta), pkg/apis/scheduling/validation/validation.go
(ValidatePriorityClass) and staging/src/k8s.io/apiserver/pkg/registry/rest/create.go
(BeforeCreate), whose errors.NewInvalid names the kind as ``<Kind>.<group>``. Only the rules
that bear on scheduling are ported (see `_validation_pod`); kinds that plugin packages
register are validated by the `validate` function their `KindInfo` names, if any.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from kubesched.api import (
    K8sModel,
    KindInfo,
    KindRegistry,
    Namespace,
    Node,
    ObjectMeta,
    Pod,
    PriorityClass,
)
from kubesched.api.field import FieldError, aggregate, forbidden, invalid, required
from kubesched.api.validation import is_qualified_name, validate_labels
from kubesched.cluster.memory._admission import SYSTEM_PRIORITY_CLASSES, AdmissionError
from kubesched.cluster.memory._validation_field import name_is_dns_label, name_is_dns_subdomain
from kubesched.cluster.memory._validation_pod import validate_pod_spec
from kubesched.cluster.memory._validation_resources import validate_quantities
from kubesched.cluster.memory._validation_taints import validate_taints

__all__ = ["HIGHEST_USER_DEFINABLE_PRIORITY", "validate_on_create"]

HIGHEST_USER_DEFINABLE_PRIORITY: Final = 1_000_000_000
"""upstream scheduling.HighestUserDefinablePriority: above it only the system classes."""

_SYSTEM_PREFIX: Final = "system-"

NameCheck = Callable[[str, bool], list[str]]


def validate_on_create(obj: K8sModel, info: KindInfo, kinds: KindRegistry | None = None) -> None:
    """Raise AdmissionError (reason ``invalid``) when the API server would refuse `obj`,
    which has been defaulted and admitted already. A kind registered with a `validate`
    function is checked by it (given `kinds`, the cluster's registry)."""
    errors: list[FieldError]
    if isinstance(obj, Pod):
        errors = _meta(obj.metadata, True, name_is_dns_subdomain) + validate_pod_spec(obj)
    elif isinstance(obj, Node):
        errors = _node(obj)
    elif isinstance(obj, PriorityClass):
        errors = _priority_class(obj)
    elif isinstance(obj, Namespace):
        errors = _meta(obj.metadata, False, name_is_dns_label)
    elif info.validate is not None:
        meta: ObjectMeta = obj.metadata  # type: ignore[attr-defined]
        errors = _meta(meta, info.namespaced, name_is_dns_subdomain)
        errors += info.validate(obj, kinds if kinds is not None else KindRegistry())
    else:
        return
    if errors:
        kind = f"{info.kind}.{info.group}" if info.group else info.kind
        name: str = obj.metadata.name  # type: ignore[attr-defined]
        raise AdmissionError(kind, name, aggregate(errors), reason="invalid")


def _meta(meta: ObjectMeta, namespaced: bool, check_name: NameCheck) -> list[FieldError]:
    """upstream ValidateObjectMetaAccessor: names, namespace, labels, annotation keys. A
    cluster-scoped object's namespace has been cleared before, as upstream clears it."""
    errors: list[FieldError] = []
    if meta.generate_name:
        prefix = meta.generate_name
        errors += [invalid("metadata.generateName", prefix, m) for m in check_name(prefix, True)]
    if not meta.name:
        errors.append(required("metadata.name", "name or generateName is required"))
    else:
        errors += [invalid("metadata.name", meta.name, m) for m in check_name(meta.name, False)]
    if namespaced:
        namespace = meta.namespace or ""
        if not namespace:
            errors.append(required("metadata.namespace"))
        for message in name_is_dns_label(namespace) if namespace else []:
            errors.append(invalid("metadata.namespace", namespace, message))
    errors += validate_labels(meta.labels, "metadata.labels")
    for key in meta.annotations:
        # annotation keys are qualified names whatever their case
        errors += [invalid("metadata.annotations", key, m) for m in is_qualified_name(key.lower())]
    return errors


def _node(node: Node) -> list[FieldError]:
    errors = _meta(node.metadata, False, name_is_dns_subdomain)
    # upstream ValidateNode builds the taints' path from "metadata", not "spec"
    errors += validate_taints(node.spec.taints, "metadata.taints")
    errors += validate_quantities(node.status.capacity, "status.capacity")
    errors += validate_quantities(node.status.allocatable, "status.allocatable")
    return errors


def _system_class_problem(pc: PriorityClass) -> str | None:
    """upstream IsKnownSystemPriorityClass: None when `pc` is the system class it names."""
    name = pc.metadata.name
    value = SYSTEM_PRIORITY_CLASSES.get(name)
    if value is None:
        return f"{name} is not a known system priority class"
    if pc.value != value:
        return f"value of {name} PriorityClass must be {value}"
    if pc.global_default:
        return f"globalDefault of {name} PriorityClass must be false"
    return None


def _priority_class(pc: PriorityClass) -> list[FieldError]:
    errors = _meta(pc.metadata, False, name_is_dns_subdomain)
    if pc.metadata.name.startswith(_SYSTEM_PREFIX):
        problem = _system_class_problem(pc)
        if problem is not None:
            detail = (
                f"priority class names with '{_SYSTEM_PREFIX}' prefix are reserved for system "
                f"use only. error: {problem}"
            )
            errors.append(forbidden("metadata.name", detail))
    elif pc.value > HIGHEST_USER_DEFINABLE_PRIORITY:
        detail = "maximum allowed value of a user defined priority is "
        detail += str(HIGHEST_USER_DEFINABLE_PRIORITY)
        errors.append(forbidden("value", detail))
    return errors
