"""kubesched's own input files (simulation.kubesched.io/v1alpha1: a Scenario, a Sweep, a
FaultPlan): read as YAML and checked to be the document asked for, each problem a
ManifestError naming the file (and the field)."""

from __future__ import annotations

import os
from typing import Any

import yaml

from kubesched._errors import ManifestError

__all__ = ["check_document", "load_document"]


def load_document(
    path: str | os.PathLike[str], api_version: str, kind: str, what: str
) -> tuple[str, dict[str, Any]]:
    """The file's name and its document, a mapping of `api_version` and `kind`; `what`
    (`a scenario`) names it in the error when it is not a mapping."""
    file = os.fspath(path)
    try:
        with open(file, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except OSError as error:
        raise ManifestError(error.strerror or str(error), file=file) from error
    except yaml.YAMLError as error:
        raise ManifestError(f"not valid YAML: {error}", file=file) from error
    return file, check_document(data, file, api_version, kind, what)


def check_document(data: Any, file: str, api_version: str, kind: str, what: str) -> dict[str, Any]:
    """`data` (parsed YAML) when it is a mapping of `api_version` and `kind`."""
    if not isinstance(data, dict):
        raise ManifestError(f"{what} must be a YAML mapping", file=file)
    for key, want in (("apiVersion", api_version), ("kind", kind)):
        if data.get(key) != want:
            raise ManifestError(
                f'Unsupported value: "{data.get(key)}": supported values: "{want}"',
                file=file,
                path=key,
            )
    return data
