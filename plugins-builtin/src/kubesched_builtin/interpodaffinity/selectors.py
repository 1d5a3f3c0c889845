"""Label selectors compiled for fast matching, validated as the API machinery parses them.

Upstream: k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go (LabelSelectorAsSelector) and
pkg/labels/selector.go (NewRequirement). A missing selector selects nothing, an empty one
everything. A selector that does not parse is an error whose text is upstream's field error
(`values[0][service]: Invalid value: "{{.bad}}": a valid label must be ...`), because
InterPodAffinity reports it as the reason a pod cannot be scheduled.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from kubesched.api import LabelSelector
from kubesched.api.field import ErrorList, aggregate, invalid, new_path
from kubesched.api.validation import is_qualified_name, is_valid_label_value

__all__ = ["EVERYTHING", "CompiledSelector", "SelectorError", "compile_selector"]

_IN: Final = 0
_NOT_IN: Final = 1
_EXISTS: Final = 2
_DOES_NOT_EXIST: Final = 3
_OPERATORS: Final = {
    "In": _IN,
    "NotIn": _NOT_IN,
    "Exists": _EXISTS,
    "DoesNotExist": _DOES_NOT_EXIST,
}


class SelectorError(ValueError):
    """A label selector that LabelSelectorAsSelector would refuse, with upstream's text."""


class CompiledSelector:
    """Requirements ANDed together; no requirement at all matches every label set."""

    __slots__ = ("requirements",)

    def __init__(self, requirements: Iterable[tuple[str, int, frozenset[str]]] = ()) -> None:
        self.requirements = tuple(requirements)

    def matches(self, labels: Mapping[str, str]) -> bool:
        for key, op, values in self.requirements:
            value = labels.get(key)
            if op == _IN:
                if value is None or value not in values:
                    return False
            elif op == _NOT_IN:
                if value is not None and value in values:
                    return False
            elif op == _EXISTS:
                if value is None:
                    return False
            elif value is not None:
                return False
        return True

    def with_requirement(self, key: str, operator: str, value: str) -> CompiledSelector:
        """This selector ANDed with `key <operator> (value)` (operator "In" or "NotIn")."""
        return CompiledSelector(
            (*self.requirements, (key, _OPERATORS[operator], frozenset((value,))))
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CompiledSelector):
            return NotImplemented
        return self.requirements == other.requirements

    def __hash__(self) -> int:
        return hash(self.requirements)

    @property
    def is_empty(self) -> bool:
        return not self.requirements

    def __repr__(self) -> str:
        return f"CompiledSelector({self.requirements!r})"


EVERYTHING: Final = CompiledSelector()


def compile_selector(selector: LabelSelector | None) -> CompiledSelector | None:
    """The selector ready to match (None selects nothing); SelectorError when invalid."""
    if selector is None:
        return None
    requirements: list[tuple[str, int, frozenset[str]]] = []
    # upstream ranges over the matchLabels map (random order) and stops at the first error;
    # sorted keys make the reported error deterministic
    for key in sorted(selector.match_labels):
        value = selector.match_labels[key]
        _check(key, "In", [value])
        requirements.append((key, _IN, frozenset((value,))))
    for expr in selector.match_expressions:
        _check(expr.key, expr.operator, expr.values)
        requirements.append((expr.key, _OPERATORS[expr.operator], frozenset(expr.values)))
    return CompiledSelector(requirements)


# -- validation (k8s.io/apimachinery/pkg/labels/selector.go NewRequirement) ----------------


def _check(key: str, operator: str, values: list[str]) -> None:
    """upstream labels.NewRequirement: every problem, aggregated as utilerrors does."""
    errs: ErrorList = []
    name_errs = is_qualified_name(key)
    if name_errs:
        errs.append(invalid("key", key, "; ".join(name_errs)))
    values_path = new_path("values")
    if operator in ("In", "NotIn") and not values:
        detail = "for 'in', 'notin' operators, values set can't be empty"
        errs.append(invalid(values_path, values, detail))
    elif operator in ("Exists", "DoesNotExist") and values:
        detail = "values set must be empty for exists and does not exist"
        errs.append(invalid(values_path, values, detail))
    for i, value in enumerate(values):
        value_errs = is_valid_label_value(value)
        if value_errs:
            errs.append(invalid(values_path.index(i).key(key), value, "; ".join(value_errs)))
    if errs:
        raise SelectorError(aggregate(errs))
