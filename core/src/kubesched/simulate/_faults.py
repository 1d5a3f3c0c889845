"""Fault plans: what goes wrong, on purpose, in a simulated cluster
(`kubesched simulate --faults FILE`, `Simulation(faults=...)` in tests).

One YAML document of our API group, as a Scenario is:

    apiVersion: simulation.kubesched.io/v1alpha1
    kind: FaultPlan
    metadata: {name: flaky-binds}
    seed: 7                  # the faults' own random draws (default: the run's --seed)
    faults:
      - pluginError: {plugin: NodeResourcesFit, extensionPoint: Reserve}
        probability: 0.5
        times: 3
      - bindError: {reason: Conflict}
      - preBindTimeout: {plugin: VolumeBinding, after: 10m}
      - deleteBeforeBind: {kind: PersistentVolumeClaim}
      - watch: {kind: Pod, action: Drop, eventType: MODIFIED}
      - relist: {kinds: [Pod, Node], extensionPoint: Reserve}

Each fault has exactly one action and may have `probability` (of firing each time it could,
0 to 1, default 1), `times` (fires at most this often; default: no limit), `after` (not
before this virtual time, a Go duration or seconds) and `pods` (only for these pods,
`name` or `namespace/name`; not for `watch`). The actions:

- `pluginError`: the plugin raises at the extension point (one of PLUGIN_POINTS); the
  framework turns it into an Error status as it turns any plugin exception.
- `bindError`: the API server answers the pods/binding call with `reason` InternalError
  (a 500) or Conflict (a 409), before storing anything.
- `preBindTimeout`: the plugin's PreBind does not return for `after` (default 10m, the
  VolumeBinding bindTimeoutSeconds default), then fails with `context deadline exceeded`.
- `deleteBeforeBind`: an object the pod needs is deleted between Reserve and binding:
  `kind` Node (the pod's node), PersistentVolumeClaim (its claims), PersistentVolume (the
  volumes of its claims, or with `name` that one), ResourceClaim (its resource claims) when
  its binding cycle starts PreBind; PodGroup (its gang) when Permit tells it to wait.
- `watch`: an event of the scheduler's informer for `kind` (`eventType` ADDED, MODIFIED or
  DELETED, default any) is dropped (`Drop`: the informer never sees it, until a relist),
  delivered twice (`Duplicate`: an add or update again as a resync would, an update to
  itself; never a delete, whose object an informer's store no longer has), or held
  with every later event of its kind for `delay` (`Delay`).
- `relist`: the informers of `kinds` (default Pod and Node) list again while a scheduling
  cycle is at `extensionPoint` (default Reserve): a new object is an add, every known one
  an update (changed or not, as a Replace delivers), a missing one a delete; events held by
  a `Delay` are superseded.

Every draw comes from one generator seeded by `seed`, and the simulation runs on virtual
time, so a plan and a seed give the same run every time. This module reads and checks a
plan; `_faults_inject` applies it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Final

from kubesched._documents import check_document, load_document
from kubesched._errors import ManifestError
from kubesched.config import parse_duration
from kubesched.simulate._manifests import _path
from kubesched.simulate._scenario import SCENARIO_API_VERSION

__all__ = [
    "ACTIONS",
    "DELETE_KINDS",
    "FAULT_PLAN_KIND",
    "PLUGIN_POINTS",
    "Fault",
    "FaultPlan",
    "load_fault_plan",
    "parse_fault_plan",
]

FAULT_PLAN_KIND: Final = "FaultPlan"
_WHAT: Final = "a fault plan"

ACTIONS: Final = (
    "pluginError",
    "bindError",
    "preBindTimeout",
    "deleteBeforeBind",
    "watch",
    "relist",
)
PLUGIN_POINTS: Final = (
    "PreFilter",
    "Filter",
    "PostFilter",
    "PreScore",
    "Score",
    "Reserve",
    "Permit",
    "PreBind",
    "Bind",
    "PostBind",
)
"""Extension points a `pluginError` may name (those whose errors the framework handles;
Unreserve cannot fail, upstream's returns nothing)."""
RELIST_POINTS: Final = ("PreFilter", "Reserve", "Permit")
DELETE_KINDS: Final = (
    "Node",
    "PersistentVolumeClaim",
    "PersistentVolume",
    "ResourceClaim",
    "PodGroup",
)
BIND_REASONS: Final = ("InternalError", "Conflict")
WATCH_ACTIONS: Final = ("Drop", "Duplicate", "Delay")
EVENT_TYPES: Final = ("ADDED", "MODIFIED", "DELETED")
DEFAULT_PREBIND_TIMEOUT: Final = 600.0
"""VolumeBinding's bindTimeoutSeconds default (upstream apis/config/v1/defaults.go)."""

_COMMON: Final = ("probability", "times", "after", "pods")
_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "pluginError": ("plugin", "extensionPoint"),
    "bindError": ("reason",),
    "preBindTimeout": ("plugin", "after"),
    "deleteBeforeBind": ("kind", "name"),
    "watch": ("kind", "action", "eventType", "delay"),
    "relist": ("kinds", "extensionPoint"),
}


@dataclass(frozen=True)
class Fault:
    """One entry of `faults`: its 0-based `index`, its `action` (one of ACTIONS) and the
    action's fields (`spec`, parsed), with the common conditions."""

    index: int
    action: str
    spec: dict[str, Any]
    probability: float = 1.0
    times: int | None = None
    after: float = 0.0
    pods: frozenset[str] | None = None

    def describe(self) -> str:
        """`bindError Conflict`, `pluginError NodeResourcesFit/Reserve` ... for the report."""
        s = self.spec
        if self.action == "pluginError":
            detail = f"{s['plugin']}/{s['extensionPoint']}"
        elif self.action == "bindError":
            detail = s["reason"]
        elif self.action == "preBindTimeout":
            detail = f"{s['plugin']} after {s['after']:g}s"
        elif self.action == "deleteBeforeBind":
            detail = s["kind"] + (f" {s['name']}" if s.get("name") else "")
        elif self.action == "watch":
            detail = f"{s['action']} {s['kind']}"
            detail += f" {s['eventType']}" if s.get("eventType") else ""
            detail += f" {s['delay']:g}s" if s["action"] == "Delay" else ""
        else:
            detail = f"{','.join(s['kinds'])} at {s['extensionPoint']}"
        return f"{self.action} {detail}"


@dataclass(frozen=True)
class FaultPlan:
    file: str
    name: str
    faults: tuple[Fault, ...]
    seed: int | None = None
    """The generator's seed; None: the run's."""


def load_fault_plan(path: str | os.PathLike[str]) -> FaultPlan:
    """Read and check a fault plan file (ManifestError naming the file and the field of the
    first problem)."""
    file, data = load_document(path, SCENARIO_API_VERSION, FAULT_PLAN_KIND, _WHAT)
    return parse_fault_plan(data, file)


def parse_fault_plan(data: Any, file: str = "<fault plan>") -> FaultPlan:
    """A fault plan from its parsed YAML (`file` names it in errors)."""
    return _Parser(file).plan(data)


class _Parser:
    def __init__(self, file: str) -> None:
        self.file = file

    def error(self, detail: str, *loc: str | int) -> ManifestError:
        return ManifestError(detail, file=self.file, path=_path(loc) or None)

    def plan(self, data: Any) -> FaultPlan:
        data = check_document(data, self.file, SCENARIO_API_VERSION, FAULT_PLAN_KIND, _WHAT)
        for key in data:
            if key not in ("apiVersion", "kind", "metadata", "seed", "faults"):
                raise self.error("unknown field", str(key))
        metadata = data.get("metadata") or {}
        name = str(metadata.get("name", "")) if isinstance(metadata, dict) else ""
        seed = data.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise self.error(f"Invalid value: {seed!r}: an integer", "seed")
        raw = data.get("faults")
        if not isinstance(raw, list) or not raw:
            raise self.error("Required value: a non-empty list of faults", "faults")
        faults = tuple(self.fault(i, item) for i, item in enumerate(raw))
        return FaultPlan(self.file, name, faults, seed)

    def fault(self, index: int, item: Any) -> Fault:
        loc: tuple[str | int, ...] = ("faults", index)
        if not isinstance(item, dict):
            raise self.error("a fault must be a mapping with one action", *loc)
        actions = [k for k in item if k not in _COMMON]
        for key in actions:
            if key not in ACTIONS:
                raise self.error(
                    f"unknown field; expected one of {', '.join(ACTIONS + _COMMON)}", *loc, str(key)
                )
        if len(actions) != 1:
            raise self.error(
                f"a fault has exactly one action (one of {', '.join(ACTIONS)}), got {len(actions)}",
                *loc,
            )
        action = actions[0]
        body = item[action]
        if body is None and action in ("bindError", "relist"):
            body = {}
        if not isinstance(body, dict):
            raise self.error("Invalid value: a mapping", *loc, action)
        for key in body:
            if key not in _FIELDS[action]:
                want = ", ".join(_FIELDS[action])
                raise self.error(f"unknown field; expected one of {want}", *loc, action, str(key))
        spec = getattr(self, "_" + action)(body, (*loc, action))
        probability = item.get("probability", 1.0)
        if (
            isinstance(probability, bool)
            or not isinstance(probability, (int, float))
            or not 0 <= probability <= 1
        ):
            raise self.error(
                f"Invalid value: {probability!r}: a number from 0 to 1", *loc, "probability"
            )
        times = item.get("times")
        if times is not None and (
            isinstance(times, bool) or not isinstance(times, int) or times < 1
        ):
            raise self.error(f"Invalid value: {times!r}: a positive integer", *loc, "times")
        after = self.duration(item.get("after", 0), *loc, "after")
        pods = item.get("pods")
        if pods is not None:
            if action == "watch":
                raise self.error("a watch fault applies to events, not pods", *loc, "pods")
            if not isinstance(pods, list) or not all(isinstance(p, str) and p for p in pods):
                raise self.error(
                    "Invalid value: a list of pod names (name or namespace/name)", *loc, "pods"
                )
            pods = frozenset(p if "/" in p else f"default/{p}" for p in pods)
        return Fault(index, action, spec, float(probability), times, after, pods)

    # -- the fields of each action ------------------------------------------------------
    def duration(self, value: Any, *loc: str | int) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise self.error("Invalid value: a duration such as 5m or a number of seconds", *loc)
        try:
            seconds = float(value) if not isinstance(value, str) else parse_duration(value)
        except ValueError as error:
            raise self.error(f"Invalid value: {error}", *loc) from error
        if seconds < 0:
            raise self.error("Invalid value: must not be negative", *loc)
        return seconds

    def choice(
        self,
        body: dict[str, Any],
        key: str,
        allowed: tuple[str, ...],
        loc: tuple[str | int, ...],
        default: str | None = None,
    ) -> str:
        value = body.get(key, default)
        if value is None:
            raise self.error(f"Required value: one of {', '.join(allowed)}", *loc, key)
        if value not in allowed:
            supported = ", ".join(f'"{a}"' for a in allowed)
            raise self.error(
                f'Unsupported value: "{value}": supported values: {supported}', *loc, key
            )
        return str(value)

    def name(self, body: dict[str, Any], key: str, loc: tuple[str | int, ...]) -> str:
        value = body.get(key)
        if not isinstance(value, str) or not value:
            raise self.error("Required value: a plugin name", *loc, key)
        return value

    def _pluginError(self, body: dict[str, Any], loc: tuple[str | int, ...]) -> dict[str, Any]:
        return {
            "plugin": self.name(body, "plugin", loc),
            "extensionPoint": self.choice(body, "extensionPoint", PLUGIN_POINTS, loc),
        }

    def _bindError(self, body: dict[str, Any], loc: tuple[str | int, ...]) -> dict[str, Any]:
        return {"reason": self.choice(body, "reason", BIND_REASONS, loc, "InternalError")}

    def _preBindTimeout(self, body: dict[str, Any], loc: tuple[str | int, ...]) -> dict[str, Any]:
        after = self.duration(body.get("after", DEFAULT_PREBIND_TIMEOUT), *loc, "after")
        return {"plugin": self.name(body, "plugin", loc), "after": after}

    def _deleteBeforeBind(self, body: dict[str, Any], loc: tuple[str | int, ...]) -> dict[str, Any]:
        kind = self.choice(body, "kind", DELETE_KINDS, loc)
        name = body.get("name")
        if name is not None and (
            kind != "PersistentVolume" or not isinstance(name, str) or not name
        ):
            raise self.error(
                "Invalid value: a PersistentVolume's name (only kind PersistentVolume takes one)",
                *loc,
                "name",
            )
        return {"kind": kind, "name": name}

    def _watch(self, body: dict[str, Any], loc: tuple[str | int, ...]) -> dict[str, Any]:
        kind = body.get("kind")
        if not isinstance(kind, str) or not kind:
            raise self.error("Required value: the kind whose events (Pod, Node ...)", *loc, "kind")
        action = self.choice(body, "action", WATCH_ACTIONS, loc)
        event_type = None
        if "eventType" in body:
            event_type = self.choice(body, "eventType", EVENT_TYPES, loc)
        if action == "Delay":
            if "delay" not in body:
                raise self.error(
                    "Required value: how long a Delay holds the events (5s)", *loc, "delay"
                )
            delay = self.duration(body["delay"], *loc, "delay")
        elif "delay" in body:
            raise self.error(
                f"Invalid value: only a Delay takes a delay, not a {action}", *loc, "delay"
            )
        else:
            delay = 0.0
        return {"kind": kind, "action": action, "eventType": event_type, "delay": delay}

    def _relist(self, body: dict[str, Any], loc: tuple[str | int, ...]) -> dict[str, Any]:
        kinds = body.get("kinds", ["Pod", "Node"])
        if (
            not isinstance(kinds, list)
            or not kinds
            or not all(isinstance(k, str) and k for k in kinds)
        ):
            raise self.error("Invalid value: a non-empty list of kinds", *loc, "kinds")
        point = self.choice(body, "extensionPoint", RELIST_POINTS, loc, "Reserve")
        return {"kinds": list(kinds), "extensionPoint": point}
