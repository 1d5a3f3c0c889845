"""Label-key validation shared by the memory cluster and the args of several plugins
(upstream apimachinery/pkg/util/validation IsQualifiedName and its validation_test.go
cases)."""

from __future__ import annotations

import pytest

from kubesched.api.validation import is_qualified_name, validate_label_name

_REGEX_ERROR = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
    "an alphanumeric character"
)


@pytest.mark.parametrize(
    "value",
    [
        "simple",
        "now-with-dashes",
        "1-starts-with-num",
        "1234",
        "simple/simple",
        "now-with-dashes/simple",
        "1-starts-with-num/simple",
        "example.com/MyName",
        "a" * 63,
        "a" * 253 + "/" + "a" * 63,
    ],
)
def test_valid_qualified_names(value: str) -> None:
    assert is_qualified_name(value) == []
    assert validate_label_name(value, "topologyKey") == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", ["name part must be non-empty", f"name part {_REGEX_ERROR}"]),
        ("a" * 64, ["name part must be no more than 63 characters"]),
        ("/simple", ["prefix part must be non-empty"]),
        ("-nope", [f"name part {_REGEX_ERROR}"]),
        ("Upper.Case/x", ["prefix part a lowercase RFC 1123 subdomain"]),
        ("a/b/c", ["a qualified name " + _REGEX_ERROR]),
    ],
)
def test_invalid_qualified_names(value: str, expected: list[str]) -> None:
    errors = is_qualified_name(value)
    assert len(errors) == len(expected)
    for got, want in zip(errors, expected, strict=True):
        assert got.startswith(want)


def test_field_errors_name_the_path_and_value() -> None:
    [error] = validate_label_name("-bad", "defaultConstraints[0].topologyKey")
    assert str(error).startswith(
        'defaultConstraints[0].topologyKey: Invalid value: "-bad": name part'
    )
