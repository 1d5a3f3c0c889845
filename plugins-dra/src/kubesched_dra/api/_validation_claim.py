"""What the API server refuses in a new ResourceClaim, ResourceClaimTemplate or
DeviceClass, with its messages.

upstream: pkg/apis/resource/validation/validation.go (ValidateResourceClaim,
ValidateResourceClaimTemplate, ValidateDeviceClass and what they call). Object metadata
is checked by the cluster itself (names are DNS subdomains). Selectors are compiled in
the DRA CEL environment (`kubesched_dra.cel`): an expression that does not compile or is
not a bool is refused with the compiler's text. Not ported: the CEL cost limit,
raw-extension size limits, node selector syntax.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from kubesched.api import KindRegistry
from kubesched.api.field import (
    ErrorList,
    Path,
    invalid,
    new_path,
    not_supported,
    required,
    too_long,
)
from kubesched.api.validation import (
    is_qualified_name,
    is_valid_label_value,
    validate_label_name,
    validate_labels,
)
from kubesched_dra.api._claim import (
    DeviceClaim,
    DeviceConstraint,
    DeviceRequest,
    DeviceSubRequest,
    ExactDeviceRequest,
    ResourceClaim,
    ResourceClaimSpec,
    ResourceClaimTemplate,
)
from kubesched_dra.api._class import DeviceClass
from kubesched_dra.api._device import (
    CEL_SELECTOR_EXPRESSION_MAX_LENGTH,
    DeviceConfiguration,
    DeviceSelector,
    DeviceToleration,
)
from kubesched_dra.api._validation_names import (
    validate_driver_name,
    validate_fully_qualified_name,
    validate_label,
    validate_set,
    validate_slice,
    validate_subdomain,
)

if TYPE_CHECKING:
    from kubesched_dra.cel import CELCache, CompilationResult

__all__ = [
    "DEVICE_TAINT_EFFECTS",
    "validate_device_class",
    "validate_label_value",
    "validate_resource_claim",
    "validate_resource_claim_template",
]

_REQUESTS_MAX: Final = 32
_CONSTRAINTS_MAX: Final = 32
_CONFIG_MAX: Final = 32
_SELECTORS_MAX: Final = 32
_FIRST_AVAILABLE_MAX: Final = 8
_COMPILED_KEPT: Final = 256
_REQUEST_REF: Final = (
    "must be the name of a request in the claim or the name of a request and a subrequest "
    "separated by '/'"
)
DEVICE_TAINT_EFFECTS: Final = ("NoExecute", "NoSchedule", "None")
"""upstream validDeviceTaintEffects, sorted as sets.List sorts them."""
_TOLERATION_OPERATORS: Final = ("Equal", "Exists")

RequestNames = dict[str, set[str] | None]
"""A request's name to its subrequests' names (None: an `exactly` request)."""


def validate_resource_claim(obj: Any, kinds: KindRegistry) -> ErrorList:
    """`KindInfo.validate` of ResourceClaim."""
    assert isinstance(obj, ResourceClaim)
    return _claim_spec(obj.spec, new_path("spec"))


def validate_resource_claim_template(obj: Any, kinds: KindRegistry) -> ErrorList:
    """`KindInfo.validate` of ResourceClaimTemplate: the template's labels and
    annotations (ValidateTemplateObjectMeta) and the claim spec it holds."""
    assert isinstance(obj, ResourceClaimTemplate)
    path = new_path("spec")
    errors = validate_labels(obj.spec.metadata.labels, path.child("metadata", "labels"))
    return errors + _claim_spec(obj.spec.spec, path.child("spec"))


def validate_device_class(obj: Any, kinds: KindRegistry) -> ErrorList:
    """`KindInfo.validate` of DeviceClass."""
    assert isinstance(obj, DeviceClass)
    path = new_path("spec")
    spec = obj.spec
    errors = validate_slice(spec.selectors, _SELECTORS_MAX, _selector, path.child("selectors"))
    errors += validate_slice(spec.config, _CONFIG_MAX, _configuration, path.child("config"))
    name = spec.extended_resource_name
    if name is not None and not _is_extended_resource_name(name):
        path_ = path.child("extendedResourceName")
        errors.append(invalid(path_, name, "must be a valid extended resource name"))
    return errors


def request_names(claim: DeviceClaim) -> RequestNames:
    """upstream gatherRequestNames."""
    return {
        r.name: ({s.name for s in r.first_available} if r.first_available else None)
        for r in claim.requests
    }


def _claim_spec(spec: ResourceClaimSpec, path: Path) -> ErrorList:
    claim = spec.devices
    path = path.child("devices")
    names = request_names(claim)
    errors = validate_set(
        claim.requests, _REQUESTS_MAX, _device_request, lambda r: r.name, path.child("requests")
    )
    errors += validate_slice(
        claim.constraints,
        _CONSTRAINTS_MAX,
        lambda c, p: _constraint(c, p, names),
        path.child("constraints"),
    )
    errors += validate_slice(
        claim.config,
        _CONFIG_MAX,
        lambda c, p: _request_refs(c.requests, p.child("requests"), names) + _configuration(c, p),
        path.child("config"),
    )
    return errors


def _device_request(request: DeviceRequest, path: Path) -> ErrorList:
    errors = validate_label(request.name, path.child("name"))
    has_exactly, has_first = request.exactly is not None, bool(request.first_available)
    if not has_exactly and not has_first:
        errors.append(required(path, "exactly one of `exactly` or `firstAvailable` is required"))
    elif has_exactly and has_first:
        detail = (
            "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"
        )
        errors.append(invalid(path, None, detail))
    elif has_first:
        errors += validate_set(
            request.first_available,
            _FIRST_AVAILABLE_MAX,
            _subrequest,
            lambda s: s.name,
            path.child("firstAvailable"),
        )
    else:
        assert request.exactly is not None
        errors += _request_fields(request.exactly, path.child("exactly"))
    return errors


def _subrequest(subrequest: DeviceSubRequest, path: Path) -> ErrorList:
    return validate_label(subrequest.name, path.child("name")) + _request_fields(subrequest, path)


def _request_fields(request: ExactDeviceRequest | DeviceSubRequest, path: Path) -> ErrorList:
    """upstream validateExactDeviceRequest / validateDeviceSubRequest: class, selectors,
    allocation mode and count, tolerations."""
    errors: ErrorList = []
    class_path = path.child("deviceClassName")
    if not request.device_class_name:
        errors.append(required(class_path))
    else:
        errors += validate_subdomain(request.device_class_name, class_path)
    errors += validate_slice(request.selectors, _SELECTORS_MAX, _selector, path.child("selectors"))
    count_path = path.child("count")
    # the model admits only All and ExactCount (upstream's NotSupported otherwise)
    if request.allocation_mode == "All" and request.count != 0:
        detail = f"must not be specified when allocationMode is '{request.allocation_mode}'"
        errors.append(invalid(count_path, request.count, detail))
    elif request.allocation_mode == "ExactCount" and request.count <= 0:
        errors.append(invalid(count_path, request.count, "must be greater than zero"))
    for i, toleration in enumerate(request.tolerations):
        errors += _toleration(toleration, path.child("tolerations").index(i))
    return errors


def _selector(selector: DeviceSelector, path: Path) -> ErrorList:
    if selector.cel is None:
        return [required(path.child("cel"))]
    expression = selector.cel.expression
    path = path.child("cel", "expression")
    if len(expression.encode()) > CEL_SELECTOR_EXPRESSION_MAX_LENGTH:
        return [too_long(path, "", CEL_SELECTOR_EXPRESSION_MAX_LENGTH)]
    error = _compiled(expression).error
    # upstream convertCELErrorToValidationError: compile errors are ErrorTypeInvalid
    return [] if error is None else [invalid(path, expression, str(error))]


_CEL: list[CELCache] = []


def _compiled(expression: str) -> CompilationResult:
    """The expression compiled in the DRA CEL environment, once per expression."""
    if not _CEL:
        # imported here: the CEL package builds on these models (an import cycle), and
        # only objects with selectors need it
        from kubesched_dra.cel import CELCache

        _CEL.append(CELCache(max_entries=_COMPILED_KEPT))
    return _CEL[0].get_or_compile(expression)


def _constraint(constraint: DeviceConstraint, path: Path, names: RequestNames) -> ErrorList:
    errors = _request_refs(constraint.requests, path.child("requests"), names)
    if constraint.match_attribute is not None:
        errors += validate_fully_qualified_name(
            constraint.match_attribute, path.child("matchAttribute")
        )
    elif constraint.distinct_attribute is not None:
        errors += validate_fully_qualified_name(
            constraint.distinct_attribute, path.child("distinctAttribute")
        )
    else:
        errors.append(required(path.child("matchAttribute")))
    return errors


def _request_refs(refs: list[str], path: Path, names: RequestNames) -> ErrorList:
    """upstream validateRequestNameRef for each of `refs`, then duplicates."""

    def check(ref: str, p: Path) -> ErrorList:
        segments = ref.split("/")
        if len(segments) > 2:
            return [invalid(p, ref, _REQUEST_REF)]
        errors: ErrorList = []
        for segment in segments:
            errors += validate_label(segment, p)
        subrequests = names.get(segments[0], set())
        known = segments[0] in names and (
            len(segments) == 1 or (subrequests is not None and segments[1] in subrequests)
        )
        if not known:
            errors.append(invalid(p, ref, _REQUEST_REF))
        return errors

    return validate_set(refs, _REQUESTS_MAX, check, lambda r: r, path)


def _configuration(config: DeviceConfiguration, path: Path) -> ErrorList:
    if config.opaque is None:
        return [required(path.child("opaque"))]
    path = path.child("opaque")
    errors = validate_driver_name(config.opaque.driver, path.child("driver"))
    parameters = config.opaque.parameters
    if parameters is None:
        errors.append(required(path.child("parameters")))
    elif not isinstance(parameters, dict):
        errors.append(
            invalid(path.child("parameters"), "<value omitted>", "must be a valid JSON object")
        )
    return errors


def _toleration(toleration: DeviceToleration, path: Path) -> ErrorList:
    """upstream validateDeviceToleration."""
    errors: ErrorList = []
    if toleration.key:
        errors += validate_label_name(toleration.key, path.child("key"))
    operator = toleration.operator
    if operator == "Exists":
        if toleration.value:
            detail = "must be empty for operator `Exists`"
            errors.append(invalid(path.child("value"), toleration.value, detail))
    elif operator == "Equal":
        errors += validate_label_value(toleration.value, path.child("value"))
    elif operator == "":
        errors.append(required(path.child("operator")))
    else:
        errors.append(not_supported(path.child("operator"), operator, _TOLERATION_OPERATORS))
    if toleration.effect and toleration.effect not in DEVICE_TAINT_EFFECTS:
        errors.append(not_supported(path.child("effect"), toleration.effect, DEVICE_TAINT_EFFECTS))
    return errors


def validate_label_value(value: str, path: Path) -> ErrorList:
    """upstream validateLabelValue (resource validation's own)."""
    return [invalid(path, value, m) for m in is_valid_label_value(value)]


def _is_extended_resource_name(name: str) -> bool:
    """upstream v1helper.IsExtendedResourceName: not native (no `/`, or `kubernetes.io/`
    in it), not `requests.` prefixed, and `requests.<name>` a qualified name."""
    if "/" not in name or "kubernetes.io/" in name or name.startswith("requests."):
        return False
    return not is_qualified_name(f"requests.{name}")
