"""kubesched.api.field: paths, field errors and their aggregate, worded as upstream's
apimachinery util/validation/field (errors_test.go, path_test.go) and util/errors."""

from __future__ import annotations

import pytest

from kubesched.api import field


def test_paths_render_as_field_path_string() -> None:
    root = field.new_path("spec")
    assert str(root) == "spec"
    assert str(root.child("containers").index(0).child("name")) == "spec.containers[0].name"
    assert str(field.new_path("requests").key("cpu")) == "requests[cpu]"
    assert str(field.new_path("a", "b", "c")) == "a.b.c"
    assert str(field.Path().child("top")) == "top"
    assert str(field.Path("a.b").index(2)) == "a.b[2]"
    assert str(field.invalid(root.child("x"), 1, "d")) == "spec.x: Invalid value: 1: d"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (3, "3"),
        (1.5, "1.5"),
        ("a b", '"a b"'),
        ('q"uote', '"q\\"uote"'),
        ("é", '"é"'),
        (["a", "b"], '[]string{"a", "b"}'),
        ([], "[]string(nil)"),
        (field.Stringer("500m"), "500m"),
    ],
)
def test_values_print_as_error_body_prints_them(value: object, shown: str) -> None:
    assert field.go_value(value) == shown


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (field.invalid("a.b", 0, "must be 1"), "a.b: Invalid value: 0: must be 1"),
        (field.required("a", ""), "a: Required value"),
        (field.required("a", "can not be empty"), "a: Required value: can not be empty"),
        (field.duplicate("a[1].name", "x"), 'a[1].name: Duplicate value: "x"'),
        (field.duplicate("a", "x", "twice"), 'a: Duplicate value: "x": twice'),
        (
            field.not_supported("t", "X", ["A", "B"]),
            't: Unsupported value: "X": supported values: "A", "B"',
        ),
        (field.not_supported("t", "X", []), 't: Unsupported value: "X"'),
        (field.forbidden("s", "not allowed"), "s: Forbidden: not allowed"),
        (field.not_found("n", "x"), 'n: Not found: "x"'),
        (field.too_long("n", "xxxx", 3), "n: Too long: may not be more than 3 bytes"),
        (field.too_long("n", "xxxx", -1), "n: Too long: value is too long"),
        (field.too_many("l", 4, 3), "l: Too many: 4: must have at most 3 items"),
        (field.internal_error("x", ValueError("boom")), "x: Internal error: boom"),
    ],
)
def test_errors_read_as_upstream(error: field.FieldError, text: str) -> None:
    assert str(error) == text
    assert error.body() == text.removeprefix(f"{error.field}: ")


def test_aggregate_is_one_error_alone_or_a_bracketed_list_without_repeats() -> None:
    first = field.invalid("a", 1, "bad")
    second = field.required("b")
    assert field.aggregate([]) == ""
    assert field.aggregate([first]) == "a: Invalid value: 1: bad"
    assert field.aggregate([first, second, first]) == (
        "[a: Invalid value: 1: bad, b: Required value]"
    )
    assert field.aggregate([first, first]) == "a: Invalid value: 1: bad"
    assert field.aggregate(["x", "y"]) == "[x, y]"
