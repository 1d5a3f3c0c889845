"""Scenario files: changes to the simulated cluster at virtual times, and checkpoints of its
state, for `kubesched simulate --scenario FILE`.

The anchor is KEP-140 (scenario-based simulation, kubernetes-sigs/kube-scheduler-simulator):
a scenario is a list of operations at points of (virtual) time, and the result records the
cluster's state at chosen points. Ours is one YAML document of our own API group:

    apiVersion: simulation.kubesched.io/v1alpha1
    kind: Scenario
    metadata: {name: zone-outage}
    steps:
      - {at: 9m, checkpoint: before}
      - {at: 10m, deleteNode: [a1, a2]}
      - {at: 10m, scale: {kind: Deployment, name: web, replicas: 9}}
      - {at: 15m, checkpoint: after}

Each step has `at` (a Go duration from the start of the run, `90s`, `1h30m`, or seconds as a
number; never earlier than the step before it) and exactly one action:

- `create`: a manifest or a list of manifests, created as the input's are (`addNode`: a Node).
- `delete`, `scale`, `patch`: `{kind, name, namespace}` (namespace `default` for a namespaced
  kind); `scale` sets `spec.replicas` (`replicas`) of a Deployment, ReplicaSet or
  StatefulSet; `patch` applies a JSON merge patch (RFC 7386, `patch: {...}`).
- `cordon`, `uncordon`, `drain`, `deleteNode`: a node name or a list of them. `drain` cordons
  the node and deletes its pods (gracefully, as an eviction does) except DaemonSet pods, as
  `kubectl drain --ignore-daemonsets`; `deleteNode` deletes the node, and its pods are then
  force-deleted (the pod GC controller, `GarbageCollector(orphaned_pods=True)`): their
  controllers make them again, wherever the scheduler now puts them.
- `taint`: `{node, key, value, effect}` adds (or replaces) a taint; `untaint`:
  `{node, key, effect}` removes the node's taints with that key (and effect, when given).
- `checkpoint`: a name; the cluster's state at that moment (placements, pending pods,
  counts) goes into the report (`Checkpoint`).

The steps run in order, one after the other, through the cluster's API (create, update,
delete), and the controllers react through their watches as they would to kubectl. The
controllers, the scheduler and the steps share one virtual clock, so a run is as
deterministic as one without a scenario. A step naming an object that does not exist (known
before the run from the manifests and the earlier steps, or, for a pod a controller made,
when the step runs) is a `ManifestError` naming the file, the step and the field.

This module reads and checks a scenario; `_scenario_runner` runs it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from kubesched._documents import load_document
from kubesched._errors import ManifestError
from kubesched.api import K8sModel, KindRegistry, Node
from kubesched.config import parse_duration
from kubesched.simulate._fields import FieldValidation
from kubesched.simulate._manifests import Warn, _Loader, _path

__all__ = [
    "SCENARIO_API_VERSION",
    "SCENARIO_KIND",
    "Checkpoint",
    "Scenario",
    "Step",
    "check_scenario",
    "load_scenario",
    "missing_object",
]

SCENARIO_API_VERSION: Final = "simulation.kubesched.io/v1alpha1"
SCENARIO_KIND: Final = "Scenario"

_NODE_ACTIONS: Final = ("cordon", "uncordon", "drain", "deleteNode")
_REF_ACTIONS: Final = ("delete", "scale", "patch")
ACTIONS: Final = (
    "create",
    "addNode",
    *_REF_ACTIONS,
    *_NODE_ACTIONS,
    "taint",
    "untaint",
    "checkpoint",
)
_SCALABLE: Final = ("Deployment", "ReplicaSet", "StatefulSet")
_EFFECTS: Final = ("NoSchedule", "PreferNoSchedule", "NoExecute")


@dataclass(frozen=True)
class ObjectRef:
    """The object a `delete`, `scale` or `patch` step names."""

    kind: str
    name: str
    namespace: str | None
    """None for a cluster-scoped kind."""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


@dataclass(frozen=True)
class Step:
    """One step: its 0-based `index` in `steps`, when (`at`, virtual seconds from the start)
    and what (`action`, one of ACTIONS, with its parsed `value`)."""

    index: int
    at: float
    action: str
    value: Any
    """create/addNode: the objects; delete/scale/patch: (ObjectRef, replicas or patch or
    None); node actions: the node names; taint/untaint: (nodes, taint dict); checkpoint:
    its name."""

    def where(self, *fields: str | int) -> str:
        """The field path of this step (`steps[3].scale.name`)."""
        return _path(("steps", self.index, self.action, *fields))


@dataclass(frozen=True)
class Scenario:
    file: str
    name: str
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Checkpoint:
    """The cluster's state at a `checkpoint` step.

    JSON: `{"name", "step", "at", "pods", "bound", "pending", "terminating", "succeeded",
    "failed", "nodes", "placements": {"ns/name": node}, "pendingPods": ["ns/name"]}`:
    `at` the virtual seconds, `bound` pods on a node and running (terminating ones
    included, as they still hold their node), `pending` pods without a node, `nodes` the
    Nodes then in the cluster; `placements` every bound pod's node, sorted by pod."""

    name: str
    step: int
    at: float
    placements: dict[str, str]
    pending: list[str]
    counts: dict[str, int] = field(default_factory=dict)

    def to_json_dict(self, *, placements: bool = True) -> dict[str, Any]:
        """The JSON form; without `placements` (`--summary`), only the counts."""
        data = {"name": self.name, "step": self.step, "at": round(self.at, 3), **self.counts}
        if placements:
            data["placements"] = self.placements
            data["pendingPods"] = self.pending
        return data


# -- loading ------------------------------------------------------------------------------
def load_scenario(
    path: str | os.PathLike[str],
    kinds: KindRegistry,
    *,
    validate: FieldValidation = "strict",
    warn: Warn | None = None,
) -> Scenario:
    """Read and check a scenario file (ManifestError naming the file, the step and the
    field on the first problem; objects in `create` are checked as manifests are)."""
    file, data = load_document(path, SCENARIO_API_VERSION, SCENARIO_KIND, "a scenario")
    for key in data:
        if key not in ("apiVersion", "kind", "metadata", "steps"):
            raise ManifestError("unknown field", file=file, path=str(key))
    metadata = data.get("metadata") or {}
    name = str(metadata.get("name", "")) if isinstance(metadata, dict) else ""
    raw = data.get("steps")
    if not isinstance(raw, list) or not raw:
        raise ManifestError("Required value: a non-empty list of steps", file=file, path="steps")
    parser = _StepParser(file, kinds, validate, warn)
    steps: list[Step] = []
    for index, item in enumerate(raw):
        step = parser.parse(index, item)
        if steps and step.at < steps[-1].at:
            raise ManifestError(
                f"Invalid value: {_show_time(step.at)} is earlier than the step before it "
                f"({_show_time(steps[-1].at)}); steps are in time order",
                file=file,
                path=_path(("steps", index, "at")),
            )
        steps.append(step)
    return Scenario(file, name, tuple(steps))


def _show_time(seconds: float) -> str:
    return f"{seconds:g}s"


class _StepParser:
    def __init__(
        self, file: str, kinds: KindRegistry, validate: FieldValidation, warn: Warn | None
    ) -> None:
        self.file = file
        self.kinds = kinds
        self.validate = validate
        self.warn = warn
        self.checkpoints: set[str] = set()

    def error(self, detail: str, *loc: str | int) -> ManifestError:
        return ManifestError(detail, file=self.file, path=_path(loc))

    def parse(self, index: int, item: Any) -> Step:
        if not isinstance(item, dict):
            raise self.error("a step must be a mapping with `at` and one action", "steps", index)
        at = self._at(index, item.get("at"))
        actions = [k for k in item if k != "at"]
        for key in actions:
            if key not in ACTIONS:
                raise self.error(
                    f"unknown action; expected one of {', '.join(ACTIONS)}", "steps", index, key
                )
        if len(actions) != 1:
            raise self.error(
                f"a step has exactly one action (one of {', '.join(ACTIONS)}), got {len(actions)}",
                "steps",
                index,
            )
        action = actions[0]
        loc = ("steps", index, action)
        return Step(index, at, action, self._value(action, item[action], loc))

    def _at(self, index: int, value: Any) -> float:
        loc = ("steps", index, "at")
        if value is None:
            raise self.error("Required value: when the step runs (a duration such as 5m)", *loc)
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise self.error("Invalid value: a duration such as 5m or a number of seconds", *loc)
        try:
            seconds = float(value) if not isinstance(value, str) else parse_duration(value)
        except ValueError as error:
            raise self.error(f"Invalid value: {error}", *loc) from error
        if seconds < 0:
            raise self.error("Invalid value: must not be negative", *loc)
        return seconds

    def _value(self, action: str, value: Any, loc: tuple[str | int, ...]) -> Any:
        if action in ("create", "addNode"):
            return self._objects(action, value, loc)
        if action in _REF_ACTIONS:
            return self._ref(action, value, loc)
        if action in _NODE_ACTIONS:
            return self._nodes(value, loc)
        if action in ("taint", "untaint"):
            return self._taint(action, value, loc)
        if not isinstance(value, str) or not value:
            raise self.error("Invalid value: a checkpoint's name (a non-empty string)", *loc)
        if value in self.checkpoints:
            raise self.error(f'Duplicate value: checkpoint "{value}" is named twice', *loc)
        self.checkpoints.add(value)
        return value

    def _objects(self, action: str, value: Any, loc: tuple[str | int, ...]) -> tuple[Any, ...]:
        items = value if isinstance(value, list) else [value]
        loader = _Loader(self.kinds, self.validate, self.warn)
        for i, item in enumerate(items):
            item_loc = (*loc, i) if isinstance(value, list) else loc
            count = len(loader.result.objects)
            try:
                loader.add(self.file, 0, item, item_loc)
            except ManifestError as error:
                # the step's field path says where; a scenario has no documents
                raise ManifestError(error.detail, file=self.file, path=error.path) from error
            if loader.result.skipped:
                skipped = loader.result.skipped[-1]
                raise self.error(
                    f'no installed package registers {skipped.api_version} "{skipped.kind}"',
                    *item_loc,
                    "kind",
                )
            if action == "addNode" and not isinstance(loader.result.objects[count], Node):
                raise self.error("Invalid value: addNode takes a Node", *item_loc, "kind")
        return tuple(loader.result.objects)

    def _ref(self, action: str, value: Any, loc: tuple[str | int, ...]) -> tuple[ObjectRef, Any]:
        if not isinstance(value, dict):
            raise self.error("Invalid value: a mapping with kind and name", *loc)
        extra = {"scale": "replicas", "patch": "patch"}.get(action)
        for key in value:
            if key not in ("kind", "name", "namespace", extra):
                raise self.error("unknown field", *loc, key)
        for key in ("kind", "name"):
            if not isinstance(value.get(key), str) or not value[key]:
                raise self.error("Required value", *loc, key)
        kind: str = value["kind"]
        name: str = value["name"]
        info = self.kinds.by_kind(kind)
        if info is None:
            raise self.error(f'Invalid value: no installed package registers "{kind}"', *loc)
        if action == "scale" and info.kind not in _SCALABLE:
            raise self.error(
                f'Unsupported value: "{kind}": supported values: {", ".join(_SCALABLE)}',
                *loc,
                "kind",
            )
        namespace = value.get("namespace")
        if namespace is not None and not isinstance(namespace, str):
            raise self.error("Invalid value: a string", *loc, "namespace")
        ref = ObjectRef(info.kind, name, (namespace or "default") if info.namespaced else None)
        arg = value.get(extra) if extra else None
        if action == "scale" and (isinstance(arg, bool) or not isinstance(arg, int) or arg < 0):
            raise self.error("Invalid value: a number of replicas (0 or more)", *loc, "replicas")
        if action == "patch" and not isinstance(arg, dict):
            raise self.error("Required value: a JSON merge patch (a mapping)", *loc, "patch")
        return ref, arg

    def _nodes(self, value: Any, loc: tuple[str | int, ...]) -> tuple[str, ...]:
        names = value if isinstance(value, list) else [value]
        if not names or not all(isinstance(n, str) and n for n in names):
            raise self.error("Invalid value: a node name or a list of node names", *loc)
        return tuple(names)

    def _taint(
        self, action: str, value: Any, loc: tuple[str | int, ...]
    ) -> tuple[tuple[str, ...], dict[str, str]]:
        if not isinstance(value, dict):
            raise self.error("Invalid value: a mapping with node, key and effect", *loc)
        allowed = (
            ("node", "key", "value", "effect") if action == "taint" else ("node", "key", "effect")
        )
        for key in value:
            if key not in allowed:
                raise self.error("unknown field", *loc, key)
        nodes = self._nodes(value.get("node"), (*loc, "node"))
        taint = {k: value[k] for k in ("key", "value", "effect") if value.get(k) is not None}
        if not isinstance(taint.get("key"), str) or not taint["key"]:
            raise self.error("Required value", *loc, "key")
        effect = taint.get("effect")
        if (action == "taint" or effect is not None) and effect not in _EFFECTS:
            raise self.error(
                f'Unsupported value: "{effect}": supported values: {", ".join(_EFFECTS)}',
                *loc,
                "effect",
            )
        if "value" in taint:
            taint["value"] = str(taint["value"])
        return nodes, taint


def check_scenario(scenario: Scenario, objects: Sequence[K8sModel], kinds: KindRegistry) -> None:
    """Every object a step names exists when the step runs, as far as the manifests and the
    earlier steps tell (a pod only its controller names is checked when the step runs)."""
    known: set[tuple[str, str]] = set()

    def key_of(obj: Any) -> tuple[str, str]:
        info = next(i for i in kinds if type(obj) is i.model)
        meta = obj.metadata
        name = f"{meta.namespace or 'default'}/{meta.name}" if info.namespaced else meta.name
        return info.kind, name

    known.update(key_of(o) for o in objects)
    for step in scenario.steps:
        if step.action in ("create", "addNode"):
            known.update(key_of(o) for o in step.value)
            continue
        if step.action in _REF_ACTIONS:
            ref: ObjectRef = step.value[0]
            key = (ref.kind, ref.key)
            if key not in known and ref.kind != "Pod":
                raise missing_object(scenario.file, step, ref.kind, ref.key, "name")
            if step.action == "delete":
                known.discard(key)
            continue
        names = step.value if step.action in _NODE_ACTIONS else ()
        if step.action in ("taint", "untaint"):
            names = step.value[0]
        for i, name in enumerate(names):
            if ("Node", name) not in known:
                sub = ("node",) if step.action in ("taint", "untaint") else ()
                where = (*sub, i) if len(names) > 1 else sub
                raise missing_object(scenario.file, step, "Node", name, *where)
            if step.action == "deleteNode":
                known.discard(("Node", name))


def missing_object(file: str, step: Step, kind: str, key: str, *fields: str | int) -> ManifestError:
    return ManifestError(
        f'Not found: {kind} "{key}" does not exist at {_show_time(step.at)}',
        file=file,
        path=step.where(*fields),
    )


# -- running ------------------------------------------------------------------------------
