"""A node's taints and a pod's tolerations as the API server validates them.

upstream: pkg/apis/core/validation/validation.go (validateNodeTaints, ValidateTolerations,
validateTaintEffect).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from kubesched.api import Taint, Toleration
from kubesched.api.field import FieldError, Stringer, duplicate, invalid, not_supported, required
from kubesched.api.validation import is_valid_label_value, validate_label_name

__all__ = ["validate_taints", "validate_tolerations"]

_EFFECTS: Final = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _effect(effect: str, path: str, allow_empty: bool) -> list[FieldError]:
    if not effect and not allow_empty:
        return [required(path)]
    return [] if effect in _EFFECTS else [not_supported(path, effect, _EFFECTS)]


def _go_taint(taint: Taint) -> Stringer:
    """The taint as Go's %#v prints the internal core.Taint a Duplicate error carries (a set
    timeAdded prints as a pointer's address there, a fixed one here)."""
    added = "(*v1.Time)(nil)" if taint.time_added is None else "(*v1.Time)(0xc000000000)"
    return Stringer(
        f'core.Taint{{Key:"{taint.key}", Value:"{taint.value}", Effect:"{taint.effect}", '
        f"TimeAdded:{added}}}"
    )


def validate_taints(taints: Sequence[Taint], path: str) -> list[FieldError]:
    """Keys, values and effects, each (key, effect) pair once."""
    errors: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate(taints):
        at = f"{path}[{i}]"
        errors += validate_label_name(taint.key, f"{at}.key")
        problems = is_valid_label_value(taint.value)
        if problems:
            errors.append(invalid(f"{at}.value", taint.value, ";".join(problems)))
        errors += _effect(taint.effect, f"{at}.effect", allow_empty=False)
        if (taint.key, taint.effect) in seen:
            detail = "taints must be unique by key and effect pair"
            errors.append(duplicate(at, _go_taint(taint), detail))
            continue
        seen.add((taint.key, taint.effect))
    return errors


def validate_tolerations(tolerations: Sequence[Toleration], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for i, t in enumerate(tolerations):
        at = f"{path}[{i}]"
        if t.key:
            errors += validate_label_name(t.key, f"{at}.key")
        if not t.key and t.operator != "Exists":
            detail = (
                'operator must be Exists when `key` is empty, which means "match all values '
                'and all keys"'
            )
            errors.append(invalid(f"{at}.operator", t.operator, detail))
        if t.toleration_seconds is not None and t.effect != "NoExecute":
            detail = "effect must be 'NoExecute' when `tolerationSeconds` is set"
            errors.append(invalid(f"{at}.effect", t.effect, detail))
        # upstream reports a bad value at the operator
        if t.operator == "Equal":
            problems = is_valid_label_value(t.value)
            if problems:
                errors.append(invalid(f"{at}.operator", t.value, ";".join(problems)))
        elif t.value:
            detail = "value must be empty when `operator` is 'Exists'"
            errors.append(invalid(f"{at}.operator", t.value, detail))
        if t.effect:
            errors += _effect(t.effect, f"{at}.effect", allow_empty=True)
    return errors
