"""Label selectors compiled for fast matching, validated as the API machinery parses them.

Upstream: k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go (LabelSelectorAsSelector) and
pkg/labels/selector.go (NewRequirement). A missing selector selects nothing, an empty one
everything. A selector that does not parse is an error whose text is upstream's field error
(`values[0][service]: Invalid value: "{{.bad}}": a valid label must be ...`), because
InterPodAffinity reports it as the reason a pod cannot be scheduled.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Final

from kubesched.api import LabelSelector

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


# -- validation (k8s.io/apimachinery/pkg/util/validation) ----------------------------------

_QUALIFIED_NAME_FMT: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_NAME_RE: Final = re.compile(f"^{_QUALIFIED_NAME_FMT}$")
_QUALIFIED_NAME_MSG: Final = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character"
)
_LABEL_VALUE_FMT: Final = f"({_QUALIFIED_NAME_FMT})?"
_LABEL_VALUE_RE: Final = re.compile(f"^{_LABEL_VALUE_FMT}$")
_LABEL_VALUE_MSG: Final = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character"
)
_DNS_LABEL: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_SUBDOMAIN_FMT: Final = f"{_DNS_LABEL}(\\.{_DNS_LABEL})*"
_DNS_SUBDOMAIN_RE: Final = re.compile(f"^{_DNS_SUBDOMAIN_FMT}$")
_DNS_SUBDOMAIN_MSG: Final = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character"
)


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    shown = ",  or ".join(f"'{e}'" for e in examples)
    return f"{msg} (e.g. {shown}, regex used for validation is '{fmt}')"


def _quote(value: str) -> str:
    return json.dumps(value)


def _go_strings(values: list[str]) -> str:
    """A []string as Go's %#v prints it (field errors show bad values this way)."""
    if not values:
        return "[]string(nil)"
    return "[]string{" + ", ".join(_quote(v) for v in values) + "}"


def _name_errors(key: str) -> list[str]:
    """upstream IsQualifiedName."""
    parts = key.split("/")
    if len(parts) > 2:
        name_err = _regex_error(
            _QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc"
        )
        return [
            f"a qualified name {name_err} with an optional DNS subdomain prefix and '/' "
            "(e.g. 'example.com/MyName')"
        ]
    errs: list[str] = []
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errs.append("prefix part must be non-empty")
        elif len(prefix) > 253:
            errs.append("prefix part must be no more than 253 characters")
        elif not _DNS_SUBDOMAIN_RE.match(prefix):
            errs.append(
                "prefix part " + _regex_error(_DNS_SUBDOMAIN_MSG, _DNS_SUBDOMAIN_FMT, "example.com")
            )
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part must be no more than 63 characters")
    elif not _QUALIFIED_NAME_RE.match(name):
        errs.append(
            "name part "
            + _regex_error(_QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def _value_errors(value: str) -> list[str]:
    """upstream IsValidLabelValue."""
    errs: list[str] = []
    if len(value) > 63:
        errs.append("must be no more than 63 characters")
    if not _LABEL_VALUE_RE.match(value):
        errs.append(
            _regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345")
        )
    return errs


def _check(key: str, operator: str, values: list[str]) -> None:
    """upstream labels.NewRequirement: every problem, aggregated as utilerrors does."""
    errs: list[str] = []
    name_errs = _name_errors(key)
    if name_errs:
        errs.append(f"key: Invalid value: {_quote(key)}: {'; '.join(name_errs)}")
    if operator in ("In", "NotIn") and not values:
        errs.append(
            f"values: Invalid value: {_go_strings(values)}: "
            "for 'in', 'notin' operators, values set can't be empty"
        )
    elif operator in ("Exists", "DoesNotExist") and values:
        errs.append(
            f"values: Invalid value: {_go_strings(values)}: "
            "values set must be empty for exists and does not exist"
        )
    for i, value in enumerate(values):
        value_errs = _value_errors(value)
        if value_errs:
            errs.append(
                f"values[{i}][{key}]: Invalid value: {_quote(value)}: {'; '.join(value_errs)}"
            )
    if len(errs) == 1:
        raise SelectorError(errs[0])
    if errs:
        raise SelectorError(f"[{', '.join(errs)}]")
