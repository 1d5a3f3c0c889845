"""/configz: the configuration the scheduler runs with, as kube-scheduler serves it.

Upstream: staging/src/k8s.io/component-base/configz/configz.go writes every registered
config as one compact JSON object by name; cmd/kube-scheduler/app/server.go registers
"componentconfig" with `cc.ComponentConfig`, the *internal* KubeSchedulerConfiguration
(pkg/scheduler/apis/config/types.go). Its fields have no JSON tags, so they appear under
their Go names, in declaration order (`Parallelism`, `LeaderElection`, `Profiles` ...);
only the embedded TypeMeta keeps its tags, and the loader sets just its `apiVersion`
(options/configfile.go). Each profile holds its plugin sets after defaulting, before
MultiPoint expansion (v1/default_plugins.go mergePlugins), and its pluginConfig: the entries
given, then defaults for the other plugins with arguments, by name (v1/defaults.go).

Deliberate differences: plugins a profile leaves out because their distribution is not
installed are not listed; an empty list in plugin arguments shows as `null`, as the nil
slice defaulting leaves (an explicit `[]` in the file shows so too).
"""

from __future__ import annotations

import json
from typing import Any, Final

from kubesched.config import (
    MergedSet,
    Profile,
    ResolvedConfig,
    ResolvedProfile,
    default_plugins,
    effective_config_dict,
    merge_plugins,
)

__all__ = ["CONFIGZ_NAME", "componentconfig", "configz_body"]

CONFIGZ_NAME: Final = "componentconfig"

_PLUGIN_SETS: Final = (
    "PreEnqueue",
    "QueueSort",
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
    "MultiPoint",
)
"""The internal Plugins struct's fields, in order."""

_GO_NAMES: Final = {"qps": "QPS"}
_API_TYPED: Final = frozenset({"addedAffinity", "defaultConstraints"})
"""Plugin arguments of core/v1 types (NodeAffinity, TopologySpreadConstraint): their JSON
tags stay."""


def _go_name(key: str) -> str:
    return _GO_NAMES.get(key, key[:1].upper() + key[1:])


def _go_fields(value: Any, *, empty_is_nil: bool = False) -> Any:
    """A v1 document's keys as the internal type's Go field names (`empty_is_nil`: an
    empty list as `null`)."""
    if isinstance(value, dict):
        return {
            _go_name(k): v if k in _API_TYPED else _go_fields(v, empty_is_nil=empty_is_nil)
            for k, v in value.items()
        }
    if isinstance(value, list):
        if not value and empty_is_nil:
            return None
        return [_go_fields(v, empty_is_nil=empty_is_nil) for v in value]
    return value


def _plugin_set(merged: MergedSet, left_out: set[str]) -> dict[str, Any]:
    enabled = [
        {"Name": p.name, "Weight": p.weight or 0} for p in merged.enabled if p.name not in left_out
    ]
    disabled = [{"Name": name, "Weight": 0} for name in merged.disabled]
    return {"Enabled": enabled or None, "Disabled": disabled or None}


def _profile(raw: Profile, resolved: ResolvedProfile) -> dict[str, Any]:
    merged = merge_plugins(default_plugins(), raw.plugins)
    left_out = {name for name, _ in resolved.left_out}
    given = [entry.name for entry in raw.plugin_config]
    names = [n for n in dict.fromkeys(given) if n in resolved.args]
    names += sorted(n for n in resolved.args if n not in names)
    plugin_config = [
        {
            "Name": name,
            "Args": _go_fields(args.model_dump(by_alias=True, mode="json"), empty_is_nil=True),
        }
        for name in names
        if type(args := resolved.args[name]).model_fields
    ]
    return {
        "SchedulerName": resolved.scheduler_name,
        "PercentageOfNodesToScore": resolved.percentage_of_nodes_to_score,
        "Plugins": {point: _plugin_set(merged[point], left_out) for point in _PLUGIN_SETS},
        "PluginConfig": plugin_config or None,
    }


def componentconfig(resolved: ResolvedConfig) -> dict[str, Any]:
    """The internal KubeSchedulerConfiguration of `resolved`, as Go's encoding/json writes it."""
    effective = effective_config_dict(resolved)
    top = _go_fields({k: v for k, v in effective.items() if k != "profiles"})
    raw = {p.scheduler_name: p for p in resolved.config.profiles}
    return {
        "apiVersion": effective["apiVersion"],
        "Parallelism": top["Parallelism"],
        "LeaderElection": top["LeaderElection"],
        "ClientConnection": top["ClientConnection"],
        "EnableProfiling": top["EnableProfiling"],
        "EnableContentionProfiling": top["EnableContentionProfiling"],
        "PercentageOfNodesToScore": top.get("PercentageOfNodesToScore"),
        "PodInitialBackoffSeconds": top["PodInitialBackoffSeconds"],
        "PodMaxBackoffSeconds": top["PodMaxBackoffSeconds"],
        "Profiles": [
            _profile(raw.get(prof.scheduler_name) or Profile(), prof) for prof in resolved.profiles
        ],
        "Extenders": top.get("Extenders") or None,
        "DelayCacheUntilActive": top["DelayCacheUntilActive"],
    }


def _go_numbers(value: Any) -> Any:
    # Go writes a float32 such as QPS 50 as `50`
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _go_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_go_numbers(v) for v in value]
    return value


def configz_body(configs: dict[str, Any]) -> bytes:
    """configz.go's response: compact JSON, keys of the outer object sorted, `<`, `>` and
    `&` escaped as Go's encoding/json does."""
    text = json.dumps(
        _go_numbers({name: configs[name] for name in sorted(configs)}),
        separators=(",", ":"),
        ensure_ascii=False,
    )
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escaped)
    return text.encode()
