"""Node selectors parsed as kube-scheduler parses them: lazily, with upstream's errors.

Upstream: k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go and the
label requirement rules of k8s.io/apimachinery/pkg/labels (NewRequirement, Matches).

- Terms of a selector are ORed, requirements within a term ANDed; a term with neither
  `matchExpressions` nor `matchFields` is dropped (it selects nothing).
- A term that does not parse (a bad label key or value, `In` without values, `Gt` with a
  non-integer, `matchFields` with more than one value ...) never matches. Its errors are
  reported only when no other term matched (the "lazy" selector pods use), or up front for
  the scheduler's own `addedAffinity` and for preferred terms.
- `matchFields` compares against `metadata.name` only; preferred terms of weight 0 are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from kubesched.api import (
    Node,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Pod,
    PreferredSchedulingTerm,
)
from kubesched.api.field import ErrorList, FieldError, Path, aggregate, invalid, not_supported
from kubesched.api.validation import is_qualified_name, is_valid_label_value

__all__ = [
    "OBJECT_NAME_FIELD",
    "NodeSelectorMatcher",
    "ParsedTerm",
    "PreferredTerms",
    "RequiredNodeAffinity",
    "go_parse_int",
    "required_node_affinity",
]

OBJECT_NAME_FIELD: Final = "metadata.name"
"""The only field `matchFields` can select on."""

_INT_RE: Final = re.compile(r"[+-]?[0-9]+")
_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1


def go_parse_int(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64), or None where Go reports an error."""
    if not _INT_RE.fullmatch(text):
        return None
    value = int(text)
    return value if _INT64_MIN <= value <= _INT64_MAX else None


# -- one requirement ------------------------------------------------------------------------


def _expression_errors(req: NodeSelectorRequirement, path: Path) -> ErrorList:
    """labels.NewRequirement's checks for one `matchExpressions` entry."""
    errs: ErrorList = []
    key_errs = is_qualified_name(req.key)
    if key_errs:
        errs.append(invalid(path.child("key"), req.key, "; ".join(key_errs)))
    values_path = path.child("values")
    op, values = req.operator, req.values
    if op in ("In", "NotIn"):
        if not values:
            errs.append(
                invalid(
                    values_path, values, "for 'in', 'notin' operators, values set can't be empty"
                )
            )
    elif op in ("Exists", "DoesNotExist"):
        if values:
            errs.append(
                invalid(
                    values_path, values, "values set must be empty for exists and does not exist"
                )
            )
    else:  # Gt, Lt
        if len(values) != 1:
            errs.append(
                invalid(
                    values_path, values, "for 'Gt', 'Lt' operators, exactly one value is required"
                )
            )
        for i, v in enumerate(values):
            if go_parse_int(v) is None:
                errs.append(
                    invalid(
                        values_path.index(i),
                        v,
                        "for 'Gt', 'Lt' operators, the value must be an integer",
                    )
                )
    for i, v in enumerate(values):
        value_errs = is_valid_label_value(v)
        if value_errs:
            errs.append(invalid(values_path.index(i).key(req.key), v, "; ".join(value_errs)))
    return errs


def _field_errors(req: NodeSelectorRequirement, path: Path) -> ErrorList:
    """The field-selector checks for one `matchFields` entry."""
    if req.operator not in ("In", "NotIn"):
        return [not_supported(path.child("operator"), req.operator, ("In", "NotIn"))]
    if len(req.values) != 1:
        return [invalid(path.child("values"), req.values, "must have one element")]
    return []


def _label_requirement_matches(req: NodeSelectorRequirement, labels: Mapping[str, str]) -> bool:
    """labels.Requirement.Matches for a requirement that parsed."""
    op = req.operator
    value = labels.get(req.key)
    if op == "In":
        return value is not None and value in req.values
    if op == "NotIn":
        return value is None or value not in req.values
    if op == "Exists":
        return value is not None
    if op == "DoesNotExist":
        return value is None
    if value is None:
        return False
    have, want = go_parse_int(value), go_parse_int(req.values[0])
    if have is None or want is None:
        return False
    return have > want if op == "Gt" else have < want


# -- one term -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParsedTerm:
    """A node selector term with the errors found parsing it (none: it can match)."""

    term: NodeSelectorTerm
    errors: tuple[FieldError, ...] = ()

    @classmethod
    def parse(cls, term: NodeSelectorTerm, path: Path | str) -> ParsedTerm:
        errs: ErrorList = []
        exprs_path = Path(str(path)).child("matchExpressions")
        for i, req in enumerate(term.match_expressions):
            errs += _expression_errors(req, exprs_path.index(i))
        fields_path = Path(str(path)).child("matchFields")
        for i, req in enumerate(term.match_fields):
            errs += _field_errors(req, fields_path.index(i))
        return cls(term, tuple(errs))

    def matches(self, node_name: str, labels: Mapping[str, str]) -> bool:
        """Whether the term selects the node; a term with errors selects nothing."""
        if self.errors:
            return False
        term = self.term
        if term.match_expressions and not all(
            _label_requirement_matches(r, labels) for r in term.match_expressions
        ):
            return False
        if term.match_fields and node_name:
            # fields.Set lookup: a missing field reads as ""
            fields = {OBJECT_NAME_FIELD: node_name}
            for r in term.match_fields:
                have = fields.get(r.key, "")
                if (have == r.values[0]) != (r.operator == "In"):
                    return False
        return True


def _is_empty(term: NodeSelectorTerm) -> bool:
    return not term.match_expressions and not term.match_fields


# -- selectors ------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeSelectorMatcher:
    """A parsed NodeSelector (upstream LazyErrorNodeSelector)."""

    terms: tuple[ParsedTerm, ...]

    @classmethod
    def parse(cls, selector: NodeSelector, path: str = "") -> NodeSelectorMatcher:
        terms_path = Path(path).child("nodeSelectorTerms")
        return cls(
            tuple(
                ParsedTerm.parse(t, terms_path.index(i))
                for i, t in enumerate(selector.node_selector_terms)
                if not _is_empty(t)
            )
        )

    @property
    def errors(self) -> ErrorList:
        """Every term's parse errors, in order (upstream NewNodeSelector's complaint)."""
        return [e for t in self.terms for e in t.errors]

    def match(self, node_name: str, labels: Mapping[str, str]) -> tuple[bool, str]:
        """(matched, error): the error text is only set when no term matched and some term
        did not parse."""
        for t in self.terms:
            if t.matches(node_name, labels):
                return True, ""
        return False, aggregate(self.errors)

    def matches(self, node: Node) -> bool:
        return self.match(node.metadata.name, node.metadata.labels)[0]


@dataclass(frozen=True)
class PreferredTerms:
    """Parsed weighted preferences: a node's score is the sum of the weights it matches."""

    terms: tuple[tuple[int, ParsedTerm], ...]
    errors: tuple[FieldError, ...] = ()

    @classmethod
    def parse(cls, preferred: Sequence[PreferredSchedulingTerm], path: str = "") -> PreferredTerms:
        """Parse preferred terms; terms with errors are left out and their errors kept.
        Weight-0 and empty terms are skipped without checking."""
        terms: list[tuple[int, ParsedTerm]] = []
        errs: ErrorList = []
        for i, entry in enumerate(preferred):
            if entry.weight == 0 or _is_empty(entry.preference):
                continue
            parsed = ParsedTerm.parse(entry.preference, Path(path).index(i))
            if parsed.errors:
                errs += parsed.errors
            else:
                terms.append((entry.weight, parsed))
        return cls(tuple(terms), tuple(errs))

    def score(self, node: Node) -> int:
        name, labels = node.metadata.name, node.metadata.labels
        return sum(weight for weight, t in self.terms if t.matches(name, labels))


@dataclass(frozen=True)
class RequiredNodeAffinity:
    """A pod's hard node constraints: `spec.nodeSelector` and the required node affinity,
    both of which must hold (upstream nodeaffinity.RequiredNodeAffinity)."""

    node_selector: Mapping[str, str] = field(default_factory=dict)
    affinity: NodeSelectorMatcher | None = None

    def match(self, node: Node) -> tuple[bool, str]:
        """(matched, error); the error is set only when the affinity had unparsable terms
        and none matched."""
        labels = node.metadata.labels
        for k, v in self.node_selector.items():
            if labels.get(k) != v:
                return False, ""
        if self.affinity is not None:
            return self.affinity.match(node.metadata.name, labels)
        return True, ""

    def matches(self, node: Node) -> bool:
        """Whether the pod may run on the node (parse errors count as no match)."""
        return self.match(node)[0]


def required_node_affinity(pod: Pod) -> RequiredNodeAffinity:
    """The pod's nodeSelector and required node affinity, parsed (upstream
    GetRequiredNodeAffinity)."""
    affinity = pod.spec.affinity
    required = None
    if affinity is not None and affinity.node_affinity is not None:
        required = affinity.node_affinity.required_during_scheduling_ignored_during_execution
    matcher = NodeSelectorMatcher.parse(required) if required is not None else None
    return RequiredNodeAffinity(dict(pod.spec.node_selector), matcher)
