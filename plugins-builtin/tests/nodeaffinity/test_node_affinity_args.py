"""NodeAffinityArgs validation, from upstream validation_pluginargs_test.go
TestValidateNodeAffinityArgs, and the selector parser's upstream error texts."""

from __future__ import annotations

import pytest
from nodeaffinity_helpers import expr, field_in, preferred, required, term
from pydantic import ValidationError

from kubesched.api import NodeSelector
from kubesched_builtin.nodeaffinity import NodeAffinity, NodeAffinityArgs, NodeSelectorMatcher

QUALIFIED_NAME_TOO_MANY_SLASHES = (
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
    "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') "
    "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
)


def test_empty_args_are_valid() -> None:
    assert NodeAffinityArgs().added_affinity is None
    assert NodeAffinityArgs.model_validate({}).added_affinity is None


def test_valid_added_affinity() -> None:
    args = NodeAffinityArgs.model_validate(
        {
            "addedAffinity": {
                **required(term(expr("label-1", "In", "label-1-val"))),
                **preferred((1, term(fields=[field_in("node-1")]))),
            }
        }
    )
    assert args.added_affinity is not None


def test_invalid_added_affinity_reports_every_error_with_its_path() -> None:
    with pytest.raises(ValidationError) as info:
        NodeAffinityArgs.model_validate(
            {
                "addedAffinity": {
                    **required(term(expr("invalid/label/key", "In", "label-1-val"))),
                    **preferred((1, term(fields=[field_in("node-1", "node-2")]))),
                }
            }
        )
    want = (
        "[addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        '.matchExpressions[0].key: Invalid value: "invalid/label/key": '
        f"{QUALIFIED_NAME_TOO_MANY_SLASHES}, "
        "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0]"
        '.values: Invalid value: []string{"node-1", "node-2"}: must have one element]'
    )
    assert want in str(info.value)


def test_unknown_field_is_rejected() -> None:
    with pytest.raises(ValidationError, match="extra"):
        NodeAffinityArgs.model_validate({"addedAfinity": {}})


def test_plugin_refuses_other_args() -> None:
    from kubesched.framework import NoArgs

    with pytest.raises(TypeError, match="wants args of type NodeAffinityArgs"):
        NodeAffinity(NoArgs(), None)  # type: ignore[arg-type]


def _errors(*terms: dict[str, object]) -> list[str]:
    selector = NodeSelector.model_validate({"nodeSelectorTerms": list(terms)})
    return [str(e) for e in NodeSelectorMatcher.parse(selector).errors]


@pytest.mark.parametrize(
    ("requirement", "want"),
    [
        (
            expr("k", "In"),
            "nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: []string(nil): "
            "for 'in', 'notin' operators, values set can't be empty",
        ),
        (
            expr("k", "Exists", "v"),
            'nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: []string{"v"}: '
            "values set must be empty for exists and does not exist",
        ),
        (
            expr("k", "Gt", "1", "2"),
            'nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: []string{"1", "2"}: '
            "for 'Gt', 'Lt' operators, exactly one value is required",
        ),
        (
            expr("k", "Lt", "x"),
            'nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "x": '
            "for 'Gt', 'Lt' operators, the value must be an integer",
        ),
        (
            expr("k", "In", "bad value"),
            'nodeSelectorTerms[0].matchExpressions[0].values[0][k]: Invalid value: "bad value": '
            "a valid label must be an empty string or consist of alphanumeric characters, '-', "
            "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  "
            "or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
        (
            expr("Example.com/k", "Exists"),
            'nodeSelectorTerms[0].matchExpressions[0].key: Invalid value: "Example.com/k": '
            "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
            "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
    ],
)
def test_expression_errors(requirement: dict[str, object], want: str) -> None:
    assert _errors(term(requirement)) == [want]


def test_field_errors() -> None:
    exists = {"key": "metadata.name", "operator": "Exists", "values": []}
    assert _errors(term(fields=[exists])) == [
        'nodeSelectorTerms[0].matchFields[0].operator: Unsupported value: "Exists": '
        'supported values: "In", "NotIn"'
    ]


def test_empty_terms_are_dropped_before_parsing() -> None:
    assert _errors({}, term(expr("k", "In"))) != []
    assert (
        NodeSelectorMatcher.parse(NodeSelector.model_validate({"nodeSelectorTerms": [{}]})).terms
        == ()
    )
