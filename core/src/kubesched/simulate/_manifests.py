"""Kubernetes manifests in, validated objects out, in an order safe to create them.

Reads what people already have: `kubectl apply` files (multi-document YAML), `kubectl get -o
yaml|json` output (`kind: List`, `PodList` ...), folders of either, and `-` for standard
input. Kinds nobody registered (Deployments, Services ...) are skipped and reported, not
errors, so a real cluster's dump loads as is. A field no Kubernetes type has is an error, as
with `kubectl apply` (see `_fields`). Everything else that is wrong stops the load with a
`ManifestError` naming the file, the document and the field; so does an object the cluster
then refuses to create (`create_objects`).
"""

from __future__ import annotations

import json
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import yaml
from pydantic import ValidationError

from kubesched._errors import ManifestError
from kubesched.api import K8sModel, KindRegistry
from kubesched.cluster import Cluster
from kubesched.cluster.memory import AdmissionError
from kubesched.simulate._fields import FieldValidation, UnknownField, list_fields, unknown_fields

__all__ = [
    "STDIN",
    "LoadedManifests",
    "ManifestWarning",
    "SkippedObject",
    "create_objects",
    "load_manifests",
]

STDIN: Final = "<stdin>"
"""The file name of manifests read from standard input (a path given as ``-``)."""

Warn = Callable[[str], None]

_SUFFIXES: Final = frozenset({".yaml", ".yml", ".json"})
_YAML_LOADER: Final[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# Creation order: what others refer to first (a pod's namespace and PriorityClass must exist
# for admission; nodes before the pods already bound to them), pods last.
_KIND_GROUP: Final = {"Namespace": 0, "PriorityClass": 1, "Node": 2}
_OTHER_GROUP: Final = 3
_POD_GROUP: Final = 4

_NOT_AN_OBJECT: Final = "expected a Kubernetes object (a mapping with apiVersion and kind)"

# upstream lists these supported values in another order than kubesched's models do
# (sets.List sorts the protocols; ValidateTolerations lists Equal first)
_UPSTREAM_ORDER: Final = (("Equal", "Exists"), ("SCTP", "TCP", "UDP"))
_LITERAL: Final = re.compile(r"'((?:[^'\\]|\\.)*)'")


class ManifestWarning(UserWarning):
    """A problem `load_manifests` reports and goes on: an unknown field with ``warn``."""


@dataclass(frozen=True)
class SkippedObject:
    """An object of a kind no installed package registered, left out of the cluster."""

    file: str
    document: int
    api_version: str
    kind: str
    reason: str


@dataclass
class LoadedManifests:
    """The loaded objects in creation order with the (file, document) each came from, what
    was skipped, the files read and the warnings given."""

    objects: list[K8sModel] = field(default_factory=list)
    skipped: list[SkippedObject] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    origins: list[tuple[str, int]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def load_manifests(
    paths: Sequence[str | os.PathLike[str]],
    kinds: KindRegistry,
    *,
    validate: FieldValidation = "strict",
    warn: Warn | None = None,
) -> LoadedManifests:
    """Load every object in `paths` (files, folders read recursively for *.yaml, *.yml and
    *.json in path order, or ``-`` for standard input, named ``<stdin>`` in errors).

    Objects come back sorted for creation: Namespaces, PriorityClasses, Nodes, other kinds
    in file order, then Pods, each group in file order. Raises ManifestError on the first
    file, document or field that is not valid. A field no Kubernetes type has is such an
    error with `validate` ``strict``; with ``warn`` it is passed to `warn` (by default a
    ManifestWarning) and kept in `LoadedManifests.warnings`; with ``ignore`` it is not
    looked for.
    """
    loader = _Loader(kinds, validate, warn)
    for file in _expand(paths):
        loader.result.files.append(file)
        for document, data in _documents(file):
            loader.add(file, document, data, ())
    loaded = loader.result
    order = sorted(range(len(loaded.objects)), key=lambda i: (loader.groups[i], i))
    loaded.objects = [loaded.objects[i] for i in order]
    loaded.origins = [loaded.origins[i] for i in order]
    return loaded


async def create_objects(
    cluster: Cluster, objects: Sequence[K8sModel], origins: Sequence[tuple[str, int]] = ()
) -> None:
    """Create `objects` in order. An object the cluster refuses (AdmissionError: the API
    server's 403 or 422) stops it with a ManifestError naming the file and document the
    object came from (`origins`, parallel to `objects`, when known)."""
    for index, obj in enumerate(objects):
        try:
            await cluster.create(obj)
        except AdmissionError as error:
            if index >= len(origins):
                raise
            file, document = origins[index]
            raise ManifestError(str(error), file=file, document=document) from error


def _expand(paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    files: list[str] = []
    for raw in paths:
        if os.fspath(raw) == "-":
            files.append(STDIN)
            continue
        path = Path(raw)
        if path.is_dir():
            found = sorted(
                p for p in path.rglob("*") if p.suffix.lower() in _SUFFIXES and p.is_file()
            )
            files.extend(str(p) for p in found)
        elif path.is_file():
            files.append(str(path))
        else:
            raise ManifestError("no such file or directory", file=os.fspath(raw))
    return files


def _documents(file: str) -> Iterator[tuple[int, Any]]:
    """(1-based document number, parsed document) for each document in `file`, empty
    documents included (as None) so the numbers match the file's `---` separators. Standard
    input is JSON when it starts with ``{`` (`kubectl get -o json`), else YAML."""
    try:
        text = sys.stdin.read() if file == STDIN else Path(file).read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ManifestError(f"not UTF-8 text: {error.reason}", file=file) from error
    except OSError as error:
        raise ManifestError(f"cannot read: {error.strerror or error}", file=file) from error
    as_json = text.lstrip().startswith("{") if file == STDIN else file.lower().endswith(".json")
    if as_json:
        try:
            yield 1, json.loads(text)
        except json.JSONDecodeError as error:
            detail = f"invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
            raise ManifestError(detail, file=file, document=1) from error
        except RecursionError:
            raise ManifestError("invalid JSON: nested too deeply", file=file, document=1) from None
        return
    documents = yaml.load_all(text, Loader=_YAML_LOADER)
    number = 0
    while True:
        try:
            data = next(documents)
        except StopIteration:
            return
        except yaml.YAMLError as error:
            raise ManifestError(_yaml_detail(error), file=file, document=number + 1) from error
        number += 1
        yield number, data


def _yaml_detail(error: yaml.YAMLError) -> str:
    if isinstance(error, yaml.reader.ReaderError):  # its str() adds a second line
        first_line = str(error).split("\n", 1)[0]
        return f"invalid YAML at character {error.position + 1}: {first_line}"
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    context = getattr(error, "context", None)
    what = f"{problem} ({context})" if context else problem
    if mark is None:
        return f"invalid YAML: {what}"
    return f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {what}"


class _Loader:
    """Validates documents one at a time and collects objects, groups and skips."""

    def __init__(self, kinds: KindRegistry, validate: FieldValidation, warn: Warn | None) -> None:
        self.kinds = kinds
        self.validate = validate
        self.warn = warn
        self.result = LoadedManifests()
        self.groups: list[int] = []
        self._seen: dict[tuple[str, str], str] = {}

    def check_fields(self, unknown: list[UnknownField], where: dict[str, Any]) -> None:
        """Raise the first unknown field (strict) or warn of each (warn)."""
        for problem in unknown if self.validate != "ignore" else []:
            error = ManifestError(problem.detail, path=_path(problem.loc), **where)
            if self.validate == "strict":
                raise error
            self.result.warnings.append(str(error))
            if self.warn is not None:
                self.warn(str(error))
            else:
                warnings.warn(str(error), ManifestWarning, stacklevel=4)

    def add(self, file: str, document: int, data: Any, loc: tuple[str | int, ...]) -> None:
        if data is None:
            return
        where: dict[str, Any] = {"file": file, "document": document}
        if not isinstance(data, dict):
            got = _type_name(data)
            raise ManifestError(f"{_NOT_AN_OBJECT}, got {got}", path=_path(loc) or None, **where)
        api_version = _required_string(data, "apiVersion", loc, where)
        kind = _required_string(data, "kind", loc, where)

        if self._is_list(api_version, kind, data):
            self._add_list(file, document, data, api_version, kind, loc)
            return

        info = self.kinds.get(api_version, kind)
        if info is None:
            self.result.skipped.append(
                SkippedObject(
                    file, document, api_version, kind, self._skip_reason(api_version, kind)
                )
            )
            return
        self.check_fields(unknown_fields(data, api_version, kind, loc), where)
        try:
            obj = info.model.model_validate(data)
        except ValidationError as error:
            first = error.errors()[0]
            field_loc = tuple(_clean_loc(first["loc"]))
            path = _path(loc + field_loc)
            detail = _error_detail(first, field_loc)
            raise ManifestError(detail, path=path or None, **where) from error

        meta = obj.metadata  # type: ignore[attr-defined]
        if not meta.name and not meta.generate_name:
            raise ManifestError(
                "Required value: name or generateName is required",
                path=_path((*loc, "metadata", "name")),
                **where,
            )
        if meta.name:
            namespace = (meta.namespace or "default") if info.namespaced else ""
            key = (info.kind, f"{namespace}/{meta.name}" if namespace else meta.name)
            earlier = self._seen.get(key)
            if earlier is not None:
                raise ManifestError(
                    f'{kind} "{key[1]}" is defined twice; first in {earlier}',
                    path=_path((*loc, "metadata", "name")),
                    **where,
                )
            self._seen[key] = f"{file} document {document}"
        self.result.objects.append(obj)
        self.result.origins.append((file, document))
        self.groups.append(
            _POD_GROUP if info.kind == "Pod" else _KIND_GROUP.get(info.kind, _OTHER_GROUP)
        )

    def _is_list(self, api_version: str, kind: str, data: dict[str, Any]) -> bool:
        # `kubectl get -o yaml` writes `kind: List`; typed lists (PodList) come from the API.
        if kind == "List":
            return True
        return (
            kind.endswith("List") and "items" in data and self.kinds.get(api_version, kind) is None
        )

    def _add_list(
        self,
        file: str,
        document: int,
        data: dict[str, Any],
        api_version: str,
        kind: str,
        loc: tuple[str | int, ...],
    ) -> None:
        self.check_fields(list_fields(data, loc), {"file": file, "document": document})
        items = data.get("items") or []
        if not isinstance(items, list):
            raise ManifestError(
                f"expected a list of objects, got {_type_name(items)}",
                file=file,
                document=document,
                path=_path((*loc, "items")),
            )
        item_kind = kind.removesuffix("List") if kind != "List" else None
        for index, item in enumerate(items):
            if item_kind and isinstance(item, dict) and not item.get("kind"):
                # Items of a typed list may leave out their own kind and apiVersion.
                item = {"apiVersion": api_version, **item, "kind": item_kind}
            self.add(file, document, item, (*loc, "items", index))

    def _skip_reason(self, api_version: str, kind: str) -> str:
        given_apart = _GIVEN_APART.get((api_version.split("/", 1)[0], kind))
        if given_apart is not None:
            return f'kind "{kind}" is not a cluster object: {given_apart}'
        registered = self.kinds.by_kind(kind)
        if registered is not None:
            return (
                f'kind "{kind}" is registered as apiVersion {registered.api_version}, '
                f"not {api_version}"
            )
        return f'kind "{kind}" ({api_version}) is not registered by any installed package'


_GIVEN_APART: Final = {
    ("kubescheduler.config.k8s.io", "KubeSchedulerConfiguration"): "give it with --config",
    ("simulation.kubesched.io", "Scenario"): "give it with --scenario",
    ("simulation.kubesched.io", "FaultPlan"): "give it with --faults",
    ("simulation.kubesched.io", "Sweep"): "run it with `kubesched sweep`",
}
"""Input documents of the scheduler and of kubesched itself, by API group and kind, that a
folder of manifests may hold beside the cluster's objects: skipped, saying where they go."""


def _required_string(
    data: dict[str, Any], key: str, loc: tuple[str | int, ...], where: dict[str, Any]
) -> str:
    value = data.get(key)
    if isinstance(value, str) and value:
        return value
    if value is None or value == "":
        detail = "Required value: every object needs apiVersion and kind"
    else:
        detail = f"expected a string, got {_show(value)}"
    raise ManifestError(detail, path=_path((*loc, key)), **where)


def _clean_loc(loc: tuple[str | int, ...]) -> Iterator[str | int]:
    # pydantic puts validator and union-member tags in `loc` ("function-after[...]",
    # "list[str]"); no Kubernetes field name contains a bracket.
    return (part for part in loc if isinstance(part, int) or "[" not in part)


def _path(loc: tuple[str | int, ...] | list[str | int]) -> str:
    """`("spec", "containers", 0, "image")` -> `spec.containers[0].image`."""
    out: list[str] = []
    for part in loc:
        if isinstance(part, int):
            out.append(f"[{part}]")
        else:
            out.append(f".{part}" if out else part)
    return "".join(out)


def _error_detail(error: Any, loc: tuple[str | int, ...]) -> str:
    """One pydantic error as `what was expected, got <value>`; a value outside a field's
    enumeration as the API server words it."""
    if error["type"] == "missing":
        return "Required value"
    if error["type"] == "literal_error":
        return _unsupported(error, loc)
    got = _show(error.get("input"))
    cause = (error.get("ctx") or {}).get("error")
    if error["type"] == "value_error" and cause is not None:
        message = str(cause)
    else:
        message = str(error["msg"]).removeprefix("Value error, ")
        if message.startswith("Input should be "):
            message = "expected " + message.removeprefix("Input should be ")
    # QuantityError and friends already quote the bad value.
    return message if got in message else f"{message}, got {got}"


def _unsupported(error: Any, loc: tuple[str | int, ...]) -> str:
    """upstream field.NotSupported, or for a selector's operator field.Invalid (pkg/apis/core
    and meta/v1 validation: ValidateNodeSelectorRequirement, ValidateLabelSelectorRequirement)."""
    got = _show(error.get("input"))
    if len(loc) >= 3 and loc[-1] == "operator" and loc[-3] in ("matchExpressions", "matchFields"):
        return f"Invalid value: {got}: not a valid selector operator"
    # an empty value in a model's choices stands for "unset", which upstream never lists
    values = [v for v in _LITERAL.findall(str((error.get("ctx") or {}).get("expected", ""))) if v]
    values = next((list(o) for o in _UPSTREAM_ORDER if set(o) == set(values)), values)
    listed = ", ".join(json.dumps(v) for v in values)
    return f"Unsupported value: {got}: supported values: {listed}"


def _show(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _type_name(value: Any) -> str:
    names = {list: "a list", str: "a string", int: "a number", float: "a number", bool: "a boolean"}
    return names.get(type(value), type(value).__name__)
