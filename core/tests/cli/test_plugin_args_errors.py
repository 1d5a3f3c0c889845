"""Args given to `kubesched conformance --args` that do not validate read like the config
loader's errors: `<file>: args of <plugin>: <field>: <detail>`, a line per problem, never
pydantic's multi-line dump."""

from __future__ import annotations

import pydantic
import pytest
from pydantic import BaseModel, ConfigDict

from kubesched.config import plugin_args_error


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid")

    labels: list[str] = []
    weight: int = 1


def error_of(data: dict[str, object]) -> str:
    with pytest.raises(pydantic.ValidationError) as caught:
        Args.model_validate(data)
    return str(plugin_args_error(caught.value, Args, "LabelFilter", "args.yaml"))


def test_an_unknown_field_is_one_line_listing_the_known_ones() -> None:
    assert error_of({"lables": ["a"]}) == (
        "args.yaml: args of LabelFilter: lables: unknown field; expected one of: labels, weight"
    )


def test_each_problem_is_its_own_line() -> None:
    assert error_of({"weight": "heavy", "labels": [1]}).splitlines() == [
        "args.yaml: args of LabelFilter: labels[0]: Invalid value: 1: Input should be a valid "
        "string",
        'args.yaml: args of LabelFilter: weight: Invalid value: "heavy": Input should be a '
        "valid integer, unable to parse string as an integer",
    ]
