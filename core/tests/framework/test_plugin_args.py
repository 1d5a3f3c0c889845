"""Typed plugin args: `Plugin[ArgsT]` and the `PluginArgs` base (plugin API 0.4)."""

from __future__ import annotations

from typing import ClassVar

import pytest
from pydantic import BaseModel, ValidationError

from kubesched.api import Pod
from kubesched.api.field import ErrorList, invalid
from kubesched.framework import (
    API_VERSION,
    CycleState,
    FilterPlugin,
    NoArgs,
    NodeInfo,
    PluginArgs,
    ScorePlugin,
    Status,
)


class WidthArgs(PluginArgs):
    max_width: int = 0
    unit: str = ""

    def set_defaults(self) -> None:
        if not self.unit:
            self.unit = "m"

    def validation_errors(self) -> ErrorList:
        errs: ErrorList = []
        if self.max_width < 0:
            errs.append(invalid("maxWidth", self.max_width, "must not be negative"))
        if self.unit not in ("m", "cm"):
            errs.append(invalid("unit", self.unit, "must be m or cm"))
        return errs


class Width(FilterPlugin[WidthArgs], ScorePlugin[WidthArgs]):
    name: ClassVar[str] = "Width"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        return self.args.max_width, None


class Plain(FilterPlugin):
    name: ClassVar[str] = "Plain"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


def test_typed_args_came_with_plugin_api_0_4() -> None:
    assert API_VERSION == (0, 4)


def test_the_type_parameter_is_the_plugins_args_model() -> None:
    assert Width.Args is WidthArgs
    assert Plain.Args is NoArgs


def test_the_base_stores_args_of_the_declared_model() -> None:
    plugin = Width(WidthArgs(max_width=3), handle=None)  # type: ignore[arg-type]
    assert plugin.args.max_width == 3
    assert plugin.args.unit == "m"


def test_none_stands_for_the_default_args() -> None:
    assert Width(None, handle=None).args == WidthArgs()  # type: ignore[arg-type]
    assert Plain(None, handle=None).args == NoArgs()  # type: ignore[arg-type]


def test_args_of_another_model_are_refused_once_by_the_base() -> None:
    with pytest.raises(TypeError, match="plugin 'Width' wants args of type WidthArgs, got NoArgs"):
        Width(NoArgs(), handle=None)  # type: ignore[arg-type]


def test_bases_parameterized_with_different_models_are_refused() -> None:
    class OtherArgs(PluginArgs):
        pass

    with pytest.raises(
        TypeError, match="Mixed: its bases are parameterized with WidthArgs and OtherArgs"
    ):

        class Mixed(FilterPlugin[WidthArgs], ScorePlugin[OtherArgs]):
            pass


def test_an_args_attribute_that_contradicts_the_parameter_is_refused() -> None:
    with pytest.raises(TypeError, match="Args is NoArgs but its bases are parameterized"):

        class Contradicting(FilterPlugin[WidthArgs]):
            Args: ClassVar[type[BaseModel]] = NoArgs


def test_plugin_args_take_camel_case_or_python_names_and_forbid_unknown_fields() -> None:
    assert WidthArgs.model_validate({"maxWidth": 2}).max_width == 2
    assert WidthArgs(max_width=2).max_width == 2
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        WidthArgs.model_validate({"maxWidht": 2})


def test_defaults_are_set_before_validation_and_errors_are_aggregated() -> None:
    assert WidthArgs().unit == "m"
    with pytest.raises(ValidationError) as caught:
        WidthArgs.model_validate({"maxWidth": -1, "unit": "km"})
    [error] = caught.value.errors(include_url=False)
    assert error["msg"] == (
        "Value error, [maxWidth: Invalid value: -1: must not be negative, "
        'unit: Invalid value: "km": must be m or cm]'
    )


def test_one_error_alone_is_not_bracketed() -> None:
    with pytest.raises(ValidationError, match=r"Value error, maxWidth: Invalid value: -1: must"):
        WidthArgs(max_width=-1)
