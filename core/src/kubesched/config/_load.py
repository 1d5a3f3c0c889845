"""Reading a KubeSchedulerConfiguration file (YAML or JSON) into a validated model.

Like kube-scheduler's strict decoder, a repeated key, an unknown field or a value of the
wrong type is an error; then the configuration is defaulted and validated
(`kubesched.config._validate`). Every error is a ConfigError naming the file and field path.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from kubesched._errors import ConfigError
from kubesched.config._field_errors import FieldErrors, pydantic_errors, required, unsupported
from kubesched.config._models import API_VERSION, KIND, KubeSchedulerConfiguration
from kubesched.config._validate import validate_config

__all__ = ["load_config", "parse_config"]


_MERGE_TAG = "tag:yaml.org,2002:merge"


class _DuplicateKey(Exception):
    def __init__(self, key: Any, line: int | None) -> None:
        super().__init__(key, line)
        self.key = key
        self.line = line


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that rejects a key repeated within one mapping."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[tuple[str, str]] = set()
        for key_node, _ in node.value:
            # merge keys (`<<`) may legitimately repeat what they merge; only plain keys count
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE_TAG:
                continue
            key = (key_node.tag, key_node.value)
            if key in seen:
                raise _DuplicateKey(key_node.value, key_node.start_mark.line + 1)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _json_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key, None)
        result[key] = value
    return result


def _decode(text: str, file: str, as_json: bool) -> Any:
    try:
        if as_json:
            return json.loads(text, object_pairs_hook=_json_pairs)
        return yaml.load(text, Loader=_StrictLoader)  # a SafeLoader subclass: safe
    except _DuplicateKey as exc:
        where = f" (line {exc.line})" if exc.line is not None else ""
        raise ConfigError(f'duplicate field "{exc.key}"{where}', file=file) from None
    except json.JSONDecodeError as exc:
        detail = f"malformed JSON: line {exc.lineno}, column {exc.colno}: {exc.msg}"
        raise ConfigError(detail, file=file) from None
    except RecursionError:
        raise ConfigError("malformed JSON: nested too deeply", file=file) from None
    except yaml.reader.ReaderError as exc:  # its str() adds a second line
        first_line = str(exc).split("\n", 1)[0]
        detail = f"malformed YAML: character {exc.position + 1}: {first_line}"
        raise ConfigError(detail, file=file) from None
    except yaml.YAMLError as exc:
        detail = "malformed YAML"
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            detail += f": line {mark.line + 1}, column {mark.column + 1}"
        problem = getattr(exc, "problem", None)
        detail += f": {problem}" if problem else f": {exc}"
        raise ConfigError(detail, file=file) from None


def load_config(path: str | os.PathLike[str] | None) -> KubeSchedulerConfiguration:
    """The configuration in the YAML or JSON file at ``path`` (None: the defaults, one
    profile ``default-scheduler`` with the default plugins).

    Raises ConfigError naming the file, the field path and what was expected.
    """
    if path is None:
        return parse_config({"apiVersion": API_VERSION, "kind": KIND}, source="<defaults>")
    file = os.fspath(path)
    try:
        text = Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the configuration: {exc}", file=file) from None
    data = _decode(text, file, as_json=file.endswith(".json"))
    config = parse_config(data, source=file)
    return config


def parse_config(data: Mapping[str, Any], source: str = "<config>") -> KubeSchedulerConfiguration:
    """The configuration in ``data`` (a decoded file: camelCase keys), defaulted and
    validated. ``source`` names the input in errors."""
    if not isinstance(data, Mapping):
        detail = (
            f"expected a {KIND} mapping (apiVersion, kind, profiles ...), "
            f"got {'an empty document' if data is None else type(data).__name__}"
        )
        raise ConfigError(detail, file=source)
    errors = FieldErrors()
    for key, expected in (("apiVersion", API_VERSION), ("kind", KIND)):
        value = data.get(key)
        if value is None:
            errors.add(key, required(f'expected "{expected}"'))
        elif value != expected:
            errors.add(key, unsupported(value, [expected]))
    errors.raise_if_any(source)
    try:
        config = KubeSchedulerConfiguration.model_validate(dict(data), by_name=False)
    except ValidationError as exc:
        errors.extend(pydantic_errors(exc, "", KubeSchedulerConfiguration))
        raise errors.error(source) from None
    errors.extend(validate_config(config))
    errors.raise_if_any(source)
    config._source = source
    return config
