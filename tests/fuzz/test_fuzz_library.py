"""Fuzzing the library parsers: quantities and label selectors.

Property: bad input raises only the documented error (QuantityError, pydantic's
ValidationError for a model), never anything else; what is accepted round-trips through its
canonical form.
"""

from __future__ import annotations

from typing import Any

import pydantic
import pytest
from fuzz_support import FUZZ_SETTINGS, mutated, odd_scalars, odd_text
from hypothesis import example, given
from hypothesis import strategies as st

from kubesched._errors import QuantityError
from kubesched.api import LabelSelector, format_quantity, parse_quantity

_quantity_text = st.one_of(
    odd_text,
    st.from_regex(
        r"[+-]?([0-9]{1,30}|[0-9]{0,12}\.[0-9]{1,12})([eE][+-]?[0-9]{1,3}|[numkMGTPE]|[KMGTPE]i)?",
        fullmatch=True,
    ),
)


@FUZZ_SETTINGS
@given(value=st.one_of(_quantity_text, odd_scalars))
@example(value="1.5.3Gi")
@example(value="1e99999999")
@example(value="9" * 5000)
@example(value="10000000.000000001")
@example(value="\n")  # once broke the error line  # format_quantity once rounded it through float
def test_parse_quantity_fails_only_with_quantity_error_and_round_trips(value: Any) -> None:
    try:
        parsed = parse_quantity(value)
    except QuantityError as error:
        assert "\n" not in str(error)
        return
    assert parse_quantity(format_quantity(parsed)) == parsed


def test_malformed_quantity_is_named_in_one_line() -> None:
    with pytest.raises(QuantityError, match=r'^quantity "1\.5\.3Gi" is not valid: expected'):
        parse_quantity("1.5.3Gi")
    with pytest.raises(QuantityError, match=r'^quantity "1\\nGi" is not valid: expected'):
        parse_quantity("1\nGi")


_labels = st.dictionaries(odd_text, odd_text, max_size=4)
_SELECTOR = {
    "matchLabels": {"app": "web", "tier": "front"},
    "matchExpressions": [
        {"key": "zone", "operator": "In", "values": ["a", "b"]},
        {"key": "gpu", "operator": "DoesNotExist"},
    ],
}


@FUZZ_SETTINGS
@given(raw=mutated(_SELECTOR), labels=_labels)
def test_label_selector_validates_or_fails_with_validation_error(
    raw: Any, labels: dict[str, str]
) -> None:
    try:
        selector = LabelSelector.model_validate(raw)
    except pydantic.ValidationError:
        return
    matched = selector.matches(labels)
    again = LabelSelector.model_validate(selector.to_dict())
    assert again == selector
    assert again.matches(labels) == matched
