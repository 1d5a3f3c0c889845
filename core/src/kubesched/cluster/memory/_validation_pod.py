"""A pod's spec as the API server validates it on create, as far as scheduling reads it.

upstream: pkg/apis/core/validation/validation.go (ValidatePodCreate, ValidatePodSpec and the
functions it calls). Field paths and texts are upstream's, its quirks included (a container
limit above the pod's is reported at ``spec.resources.containers[0][cpu].limits``, the
namespaces of a pod affinity term at ``...namespace``). Rules for fields kubesched does not
model (probes, security contexts, DNS ...) are left out, and so are those whose fields API
defaulting always fills (``terminationGracePeriodSeconds``, a container's
``terminationMessagePolicy``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from kubesched.api import (
    Affinity,
    Container,
    LabelSelector,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodResourceClaim,
    PodSchedulingGate,
    ResourceRequirements,
    TopologySpreadConstraint,
)
from kubesched.api.field import (
    FieldError,
    Stringer,
    duplicate,
    forbidden,
    go_quote,
    invalid,
    not_found,
    not_supported,
    required,
)
from kubesched.api.validation import (
    is_dns1123_label,
    is_qualified_name,
    is_valid_label_value,
    is_valid_port_name,
    validate_label_name,
    validate_label_selector,
    validate_labels,
)
from kubesched.cluster.memory._validation_field import name_is_dns_label, name_is_dns_subdomain
from kubesched.cluster.memory._validation_resources import (
    validate_container_resource_name,
    validate_pod_resource_consistency,
    validate_pod_resource_name,
    validate_requirements,
)
from kubesched.cluster.memory._validation_taints import validate_tolerations
from kubesched.cluster.memory._validation_volumes import validate_volumes

__all__ = ["validate_pod_spec"]

_PORT_RANGE: Final = "must be between 1 and 65535, inclusive"


def validate_pod_spec(pod: Pod) -> list[FieldError]:
    """ValidatePodSpec, then what ValidatePodCreate adds for a pod (not a template)."""
    spec = pod.spec
    errors = validate_volumes(pod)
    errors += _pod_resource_claims(spec.resource_claims)
    # upstream gatherPodResourceClaimNames: every non-empty name, valid or not
    claims = frozenset(c.name for c in spec.resource_claims if c.name)
    errors += _containers(spec.containers, claims)
    errors += _init_containers(spec.init_containers, spec.containers, claims)
    if spec.resources is not None:
        errors += validate_requirements(
            spec.resources, validate_pod_resource_name, "spec.resources"
        )
        errors += validate_pod_resource_consistency(pod, "spec.resources")
    errors += _host_network_ports(pod)
    errors += validate_labels(spec.node_selector, "spec.nodeSelector")
    errors += _affinity(spec.affinity, pod, "spec.affinity")
    errors += _scheduling_gates(spec.scheduling_gates, "spec.schedulingGates")
    errors += _spread_constraints(spec.topology_spread_constraints)
    if spec.node_name:
        errors += [invalid("spec.nodeName", spec.node_name, m) for m in _node_name(spec.node_name)]
    errors += validate_tolerations(spec.tolerations, "spec.tolerations")
    if spec.priority_class_name:
        name = spec.priority_class_name
        errors += [invalid("spec.priorityClassName", name, m) for m in name_is_dns_subdomain(name)]
    if spec.overhead:
        overhead = ResourceRequirements(limits=spec.overhead)
        errors += validate_requirements(overhead, validate_container_resource_name, "spec.overhead")
    errors += _image_whitespace(spec.containers, "spec.containers")
    errors += _image_whitespace(spec.init_containers, "spec.initContainers")
    if spec.node_name and spec.scheduling_gates:
        detail = "cannot be set until all schedulingGates have been cleared"
        errors.append(forbidden("spec.nodeName", detail))
    return errors


def _node_name(name: str) -> list[str]:
    return name_is_dns_subdomain(name)


def _image_whitespace(containers: Sequence[Container], path: str) -> list[FieldError]:
    """upstream validateContainerOnlyForPod."""
    detail = "must not have leading or trailing whitespace"
    return [
        invalid(f"{path}[{i}].image", c.image, detail)
        for i, c in enumerate(containers)
        if c.image != c.image.strip()
    ]


# -- containers ------------------------------------------------------------------------------


def _container(c: Container, path: str, claims: frozenset[str]) -> list[FieldError]:
    """upstream validateContainerCommon: name, image, ports and resources (`claims`: the
    names in the pod's spec.resourceClaims)."""
    errors: list[FieldError] = []
    if not c.name:
        errors.append(required(f"{path}.name"))
    else:
        errors += [invalid(f"{path}.name", c.name, m) for m in is_dns1123_label(c.name)]
    if not c.image:
        errors.append(required(f"{path}.image"))
    names: set[str] = set()
    for i, port in enumerate(c.ports):
        at = f"{path}.ports[{i}]"
        if port.name:
            problems = is_valid_port_name(port.name)
            errors += [invalid(f"{at}.name", port.name, m) for m in problems]
            if not problems and port.name in names:
                errors.append(duplicate(f"{at}.name", port.name))
            names.add(port.name)
        if port.container_port == 0:
            errors.append(required(f"{at}.containerPort"))
        elif not 1 <= port.container_port <= 65535:
            errors.append(invalid(f"{at}.containerPort", port.container_port, _PORT_RANGE))
        if port.host_port != 0 and not 1 <= port.host_port <= 65535:
            errors.append(invalid(f"{at}.hostPort", port.host_port, _PORT_RANGE))
    errors += validate_requirements(
        c.resources, validate_container_resource_name, f"{path}.resources"
    )
    return errors + _resource_claim_names(c, claims, f"{path}.resources.claims")


def _host_port_conflicts(containers: Sequence[Container], path: str) -> list[FieldError]:
    """upstream AccumulateUniqueHostPorts: a protocol/hostIP/hostPort used twice."""
    seen: set[str] = set()
    errors: list[FieldError] = []
    for ci, c in enumerate(containers):
        for pi, port in enumerate(c.ports):
            if port.host_port == 0:
                continue
            key = f"{port.protocol}/{port.host_ip}/{port.host_port}"
            if key in seen:
                errors.append(duplicate(f"{path}[{ci}].ports[{pi}].hostPort", key))
            seen.add(key)
    return errors


def _containers(containers: Sequence[Container], claims: frozenset[str]) -> list[FieldError]:
    if not containers:
        return [required("spec.containers")]
    errors: list[FieldError] = []
    names: set[str] = set()
    for i, c in enumerate(containers):
        at = f"spec.containers[{i}]"
        errors += _container(c, at, claims)
        if c.name in names:
            errors.append(duplicate(f"{at}.name", c.name))
        names.add(c.name)
        if c.restart_policy is not None:
            errors.append(
                forbidden(f"{at}.restartPolicy", "may not be set for non-init containers")
            )
    return errors + _host_port_conflicts(containers, "spec.containers")


def _init_containers(
    containers: Sequence[Container], regular: Sequence[Container], claims: frozenset[str]
) -> list[FieldError]:
    errors: list[FieldError] = []
    names = {c.name for c in regular}
    for i, c in enumerate(containers):
        at = f"spec.initContainers[{i}]"
        errors += _container(c, at, claims)
        if c.restart_policy is not None and c.restart_policy != "Always":
            errors.append(not_supported(f"{at}.restartPolicy", c.restart_policy, ["Always"]))
        if c.name in names:
            errors.append(duplicate(f"{at}.name", c.name))
        elif c.name:
            names.add(c.name)
        # upstream checks each init container alone, so its index always reads [0]
        errors += _host_port_conflicts([c], "spec.initContainers")
    return errors


# -- resource claims ---------------------------------------------------------------------------


def _pod_resource_claims(claims: Sequence[PodResourceClaim]) -> list[FieldError]:
    """upstream validatePodResourceClaims / validatePodResourceClaim: a unique DNS-label
    name and exactly one of resourceClaimName and resourceClaimTemplateName, a DNS
    subdomain (ValidateResourceClaimName / ValidateResourceClaimTemplateName)."""
    errors: list[FieldError] = []
    names: set[str] = set()
    for i, claim in enumerate(claims):
        at = f"spec.resourceClaims[{i}]"
        if not claim.name:
            errors.append(required(f"{at}.name"))
        elif claim.name in names:
            errors.append(duplicate(f"{at}.name", claim.name))
        else:
            errors += [invalid(f"{at}.name", claim.name, m) for m in is_dns1123_label(claim.name)]
            names.add(claim.name)
        by_name, by_template = claim.resource_claim_name, claim.resource_claim_template_name
        if by_name is not None and by_template is not None:
            detail = (
                "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"
            )
            errors.append(invalid(at, _claim_value(claim), detail))
        if by_name is None and by_template is None:
            detail = "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"
            errors.append(invalid(at, _claim_value(claim), detail))
        for field, value in (
            ("resourceClaimName", by_name),
            ("resourceClaimTemplateName", by_template),
        ):
            if value is not None:
                errors += [invalid(f"{at}.{field}", value, m) for m in name_is_dns_subdomain(value)]
    return errors


def _claim_value(claim: PodResourceClaim) -> Stringer:
    """The entry as Go's %#v prints the internal core.PodResourceClaim, except that a set
    pointer shows its string where Go prints its address (docs/fidelity.md)."""

    def pointer(value: str | None) -> str:
        return "(*string)(nil)" if value is None else f"(*string)({go_quote(value)})"

    return Stringer(
        f"core.PodResourceClaim{{Name:{go_quote(claim.name)}, "
        f"ResourceClaimName:{pointer(claim.resource_claim_name)}, "
        f"ResourceClaimTemplateName:{pointer(claim.resource_claim_template_name)}}}"
    )


def _resource_claim_names(c: Container, claims: frozenset[str], path: str) -> list[FieldError]:
    """upstream validateResourceClaimNames: each entry of a container's resources.claims
    names a pod claim (and optionally a DNS-label request), once."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, claim in enumerate(c.resources.claims):
        at = f"{path}[{i}]"
        if not claim.name:
            errors.append(required(at))
            continue
        key = claim.name
        if claim.request:
            problems = is_dns1123_label(claim.request)
            errors += [invalid(f"{at}.request", claim.request, m) for m in problems]
            key += "/" + claim.request
        if key in seen:
            errors.append(duplicate(at, key))
        else:
            seen.add(key)
        if claim.name not in claims:
            detail = "must be one of the names in pod.spec.resourceClaims"
            detail += ": " + ", ".join(sorted(claims)) if claims else " which is empty"
            errors.append(not_found(at, claim.name, detail))
    return errors


def _host_network_ports(pod: Pod) -> list[FieldError]:
    """upstream validatePodHostNetworkDeps. API defaulting gives a hostNetwork pod's ports
    their containerPort as hostPort first, so only a different hostPort set by hand fails."""
    if not pod.spec.host_network:
        return []
    errors: list[FieldError] = []
    for i, c in enumerate(pod.spec.containers):
        for j, port in enumerate(c.ports):
            if port.host_port not in (0, port.container_port):
                at = f"spec.containers[{i}].ports[{j}].hostPort"
                detail = "must match `containerPort` when `hostNetwork` is true"
                errors.append(invalid(at, port.host_port, detail))
    return errors


# -- affinity --------------------------------------------------------------------------------


def _affinity(affinity: Affinity | None, pod: Pod, path: str) -> list[FieldError]:
    if affinity is None:
        return []
    errors: list[FieldError] = []
    node = affinity.node_affinity
    if node is not None:
        at = f"{path}.nodeAffinity"
        if node.required_during_scheduling_ignored_during_execution is not None:
            errors += _node_selector(
                node.required_during_scheduling_ignored_during_execution,
                f"{at}.requiredDuringSchedulingIgnoredDuringExecution",
            )
        preferred = f"{at}.preferredDuringSchedulingIgnoredDuringExecution"
        for i, term in enumerate(node.preferred_during_scheduling_ignored_during_execution):
            errors += _weight(term.weight, f"{preferred}[{i}].weight")
            # invalid label values are allowed in preferred terms
            errors += _node_selector_term(term.preference, f"{preferred}[{i}].preference", False)
    if affinity.pod_affinity is not None:
        errors += _pod_affinity(affinity.pod_affinity, pod, f"{path}.podAffinity")
    if affinity.pod_anti_affinity is not None:
        errors += _pod_affinity(affinity.pod_anti_affinity, pod, f"{path}.podAntiAffinity")
    return errors


def _weight(weight: int, path: str) -> list[FieldError]:
    return [] if 1 <= weight <= 100 else [invalid(path, weight, "must be in the range 1-100")]


def _node_selector(selector: NodeSelector, path: str) -> list[FieldError]:
    terms = f"{path}.nodeSelectorTerms"
    if not selector.node_selector_terms:
        return [required(terms, "must have at least one node selector term")]
    errors: list[FieldError] = []
    for i, term in enumerate(selector.node_selector_terms):
        errors += _node_selector_term(term, f"{terms}[{i}]", True)
    return errors


def _node_selector_term(term: NodeSelectorTerm, path: str, check_values: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    for j, req in enumerate(term.match_expressions):
        errors += _node_selector_requirement(req, f"{path}.matchExpressions[{j}]", check_values)
    for j, req in enumerate(term.match_fields):
        errors += _node_field_requirement(req, f"{path}.matchFields[{j}]")
    return errors


def _node_selector_requirement(
    req: NodeSelectorRequirement, path: str, check_values: bool
) -> list[FieldError]:
    errors: list[FieldError] = []
    values = f"{path}.values"
    if req.operator in ("In", "NotIn") and not req.values:
        errors.append(required(values, "must be specified when `operator` is 'In' or 'NotIn'"))
    elif req.operator in ("Exists", "DoesNotExist") and req.values:
        detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
        errors.append(forbidden(values, detail))
    elif req.operator in ("Gt", "Lt") and len(req.values) != 1:
        detail = "must be specified single value when `operator` is 'Lt' or 'Gt'"
        errors.append(required(values, detail))
    errors += validate_label_name(req.key, f"{path}.key")
    if check_values:
        for i, value in enumerate(req.values):
            errors += [invalid(f"{values}[{i}]", value, m) for m in is_valid_label_value(value)]
    return errors


def _node_field_requirement(req: NodeSelectorRequirement, path: str) -> list[FieldError]:
    """upstream ValidateNodeFieldSelectorRequirement: only metadata.name, In or NotIn, and
    exactly one node name."""
    errors: list[FieldError] = []
    if req.operator not in ("In", "NotIn"):
        errors.append(invalid(f"{path}.operator", req.operator, "not a valid selector operator"))
    elif len(req.values) != 1:
        detail = "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
        errors.append(required(f"{path}.values", detail))
    if req.key != "metadata.name":
        errors.append(invalid(f"{path}.key", req.key, "not a valid field selector key"))
    else:
        for i, value in enumerate(req.values):
            errors += [invalid(f"{path}.values[{i}]", value, m) for m in _node_name(value)]
    return errors


def _pod_affinity(affinity: PodAffinity, pod: Pod, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    at = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
    for i, term in enumerate(affinity.required_during_scheduling_ignored_during_execution):
        errors += _pod_affinity_term(term, pod, f"{at}[{i}]")
    at = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    for i, weighted in enumerate(affinity.preferred_during_scheduling_ignored_during_execution):
        errors += _weight(weighted.weight, f"{at}[{i}].weight")
        errors += _pod_affinity_term(weighted.pod_affinity_term, pod, f"{at}[{i}].podAffinityTerm")
    return errors


def _pod_affinity_term(term: PodAffinityTerm, pod: Pod, path: str) -> list[FieldError]:
    errors = validate_label_selector(term.label_selector, f"{path}.labelSelector")
    errors += validate_label_selector(term.namespace_selector, f"{path}.namespaceSelector")
    for name in term.namespaces:
        errors += [invalid(f"{path}.namespace", name, m) for m in name_is_dns_label(name)]
    errors += _label_keys(term.match_label_keys, term.label_selector, f"{path}.matchLabelKeys")
    errors += _label_keys(
        term.mismatch_label_keys, term.label_selector, f"{path}.mismatchLabelKeys"
    )
    selector = term.label_selector
    if selector is not None:
        # upstream sees the selector after matchLabelKeys were merged into it (for the keys the
        # pod has), so a key also written in the selector shows up twice; it reports it at
        # the term's path indexed by the key's position
        written = {*selector.match_labels, *(e.key for e in selector.match_expressions)}
        for i, key in enumerate(term.match_label_keys):
            if key in written and key in pod.metadata.labels:
                detail = "exists in both matchLabelKeys and labelSelector"
                errors.append(invalid(f"{path}[{i}]", key, detail))
    for i, key in enumerate(term.match_label_keys):
        if key in term.mismatch_label_keys:
            detail = "exists in both matchLabelKeys and mismatchLabelKeys"
            errors.append(invalid(f"{path}.matchLabelKeys[{i}]", key, detail))
    if not term.topology_key:
        errors.append(required(f"{path}.topologyKey", "can not be empty"))
    return errors + validate_label_name(term.topology_key, f"{path}.topologyKey")


def _label_keys(keys: Sequence[str], selector: LabelSelector | None, path: str) -> list[FieldError]:
    if not keys:
        return []
    if selector is None:
        return [forbidden(path, "must not be specified when labelSelector is not set")]
    errors: list[FieldError] = []
    for i, key in enumerate(keys):
        errors += validate_label_name(key, f"{path}[{i}]")
    return errors


# -- gates and spreading ---------------------------------------------------------------------


def _scheduling_gates(gates: Sequence[PodSchedulingGate], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for i, gate in enumerate(gates):
        errors += [invalid(f"{path}[{i}]", gate.name, m) for m in is_qualified_name(gate.name)]
        if gate.name in seen:
            errors.append(duplicate(f"{path}[{i}]", gate.name))
        seen.add(gate.name)
    return errors


def _spread_constraints(constraints: Sequence[TopologySpreadConstraint]) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, c in enumerate(constraints):
        at = f"spec.topologySpreadConstraints[{i}]"
        if c.max_skew <= 0:
            errors.append(invalid(f"{at}.maxSkew", c.max_skew, "must be greater than zero"))
        if not c.topology_key:
            errors.append(required(f"{at}.topologyKey", "can not be empty"))
        if any(
            (o.topology_key, o.when_unsatisfiable) == (c.topology_key, c.when_unsatisfiable)
            for o in constraints[i + 1 :]
        ):
            pair = f"{{{c.topology_key}, {c.when_unsatisfiable}}}"
            errors.append(duplicate(f"{at}.{{topologyKey, whenUnsatisfiable}}", pair))
        if c.min_domains is not None:
            if c.min_domains <= 0:
                detail = "must be greater than zero"
                errors.append(invalid(f"{at}.minDomains", c.min_domains, detail))
            if c.when_unsatisfiable != "DoNotSchedule":
                detail = "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not "
                errors.append(
                    invalid(f"{at}.minDomains", c.min_domains, detail + c.when_unsatisfiable)
                )
        errors += _spread_label_keys(c, f"{at}.matchLabelKeys")
        errors += validate_label_selector(c.label_selector, f"{at}.labelSelector")
    return errors


def _spread_label_keys(c: TopologySpreadConstraint, path: str) -> list[FieldError]:
    if not c.match_label_keys:
        return []
    selector = c.label_selector
    errors: list[FieldError] = []
    written: set[str] = set()
    if selector is None:
        errors.append(forbidden(path, "must not be specified when labelSelector is not set"))
    else:
        written = {*selector.match_labels, *(e.key for e in selector.match_expressions)}
    for i, key in enumerate(c.match_label_keys):
        errors += validate_label_name(key, f"{path}[{i}]")
        if key in written:
            detail = "exists in both matchLabelKeys and labelSelector"
            errors.append(invalid(f"{path}[{i}]", key, detail))
    return errors
