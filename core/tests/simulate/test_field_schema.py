"""The shipped field schema is what core/tools/generate_field_schema.py makes from the
installed kubernetes_asyncio models (the generator needs it: the `kube` extra)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

TOOL = Path(__file__).parents[2] / "tools" / "generate_field_schema.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate_field_schema", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_regenerating_the_schema_gives_the_shipped_file() -> None:
    pytest.importorskip("kubernetes_asyncio")
    generator = _generator()
    shipped = generator.SCHEMA_PATH.read_text(encoding="utf-8")
    assert generator.render(generator.generate()) == shipped
    assert generator.main(["--check"]) == 0


def test_the_generator_reads_list_and_map_types() -> None:
    pytest.importorskip("kubernetes_asyncio")
    types = _generator().generate()["types"]
    assert types["V1PodSpec"]["containers"] == "[]V1Container"
    assert types["V1PodSpec"]["nodeSelector"] == ""
    assert types["V1ResourceRequirements"]["requests"] == ""
    assert types["V1ObjectMeta"]["managedFields"] == "[]V1ManagedFieldsEntry"
    assert types["V1ManagedFieldsEntry"]["fieldsV1"] == ""
