"""kubesched's own files (a scenario, a sweep) read the same way: a file that cannot be read,
is not YAML, not a mapping, or another document is a ManifestError naming the file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubesched._errors import ManifestError
from kubesched.cluster.memory import default_kinds
from kubesched.runtime import make_plugin_manager
from kubesched.simulate import load_scenario
from kubesched.sweep import load_sweep


def _scenario(path: Path) -> Any:
    return load_scenario(path, default_kinds(make_plugin_manager(load_entrypoints=False)))


LOADERS: list[tuple[Callable[[Path], Any], str, str]] = [
    (_scenario, "Scenario", "a scenario"),
    (load_sweep, "Sweep", "a sweep"),
]


@pytest.mark.parametrize(("load", "kind", "what"), LOADERS)
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[unclosed", "not valid YAML"),
        ("- a list", "must be a YAML mapping"),
        ("apiVersion: v1\nkind: {kind}", 'apiVersion: Unsupported value: "v1"'),
        (
            "apiVersion: simulation.kubesched.io/v1alpha1\nkind: FaultPlan",
            'kind: Unsupported value: "FaultPlan": supported values: "{kind}"',
        ),
    ],
)
def test_a_file_not_of_the_kind_names_it(
    tmp_path: Path, load: Callable[[Path], Any], kind: str, what: str, text: str, message: str
) -> None:
    path = tmp_path / "input.yaml"
    path.write_text(text.format(kind=kind), encoding="utf-8")
    with pytest.raises(ManifestError) as raised:
        load(path)
    assert str(path) in str(raised.value)
    assert message.format(kind=kind) in str(raised.value)
    if "mapping" in message:
        assert f"{what} must be a YAML mapping" in str(raised.value)


@pytest.mark.parametrize(("load", "kind", "what"), LOADERS)
def test_a_file_that_cannot_be_read_names_it(
    tmp_path: Path, load: Callable[[Path], Any], kind: str, what: str
) -> None:
    with pytest.raises(ManifestError) as raised:
        load(tmp_path)  # a folder
    assert str(tmp_path) in str(raised.value)
