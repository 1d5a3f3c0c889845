"""Each program hook is documented as pytest documents its hooks: what it is for, when it
is called, every argument, the return value, and whether it is historic."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pluggy
import pytest

from kubesched import hookspecs
from kubesched.runtime import make_plugin_manager

HOOKS = sorted(n for n in hookspecs.__all__ if n.startswith("kubesched_"))


def spec_of(name: str) -> tuple[Callable[..., Any], dict[str, Any]]:
    function = getattr(hookspecs, name)
    options = getattr(function, f"{hookspecs.PROJECT}_spec")
    return function, options


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_has_a_full_docstring(name: str) -> None:
    function, options = spec_of(name)
    doc = inspect.getdoc(function) or ""
    assert "Called " in doc, "when it is called"
    assert "Used " in doc, "what it is for"
    for param in inspect.signature(function).parameters:
        assert f":param {param}:" in doc, param
    assert ":return:" in doc
    assert ("historic" in doc) == bool(options["historic"])


@pytest.mark.parametrize("name", HOOKS)
def test_every_hook_is_typed(name: str) -> None:
    function, _ = spec_of(name)
    signature = inspect.signature(function)
    assert signature.return_annotation is not inspect.Signature.empty
    for param in signature.parameters.values():
        assert param.annotation is not inspect.Parameter.empty, param.name


def test_the_plugin_manager_knows_every_hook_and_no_other() -> None:
    pm = make_plugin_manager(load_entrypoints=False)
    known = {name for name in dir(pm.hook) if name.startswith("kubesched_")}
    assert known == set(HOOKS)
    assert pm.project_name == hookspecs.PROJECT == "kubesched"


def test_hookimpl_marks_for_kubesched() -> None:
    assert isinstance(hookspecs.hookimpl, pluggy.HookimplMarker)
    assert hookspecs.hookimpl.project_name == hookspecs.PROJECT
