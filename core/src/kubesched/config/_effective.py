"""The effective configuration of a resolved config, as a v1 document.

`kubesched config defaults` prints it. It is a valid KubeSchedulerConfiguration that loads
back to the same resolved profiles: ``multiPoint`` disables ``'*'`` (so no default is merged
in again) and each extension point lists its plugins in call order, Score with weights;
``pluginConfig`` holds every enabled plugin's args with their defaults filled in.
"""

from __future__ import annotations

from typing import Any

from kubesched.config._merge import point_path
from kubesched.config._resolve import ResolvedConfig, ResolvedProfile
from kubesched.framework import EXTENSION_POINTS

__all__ = ["effective_config_dict"]


def _plugins(profile: ResolvedProfile) -> dict[str, Any]:
    plugins: dict[str, Any] = {"multiPoint": {"disabled": [{"name": "*"}]}}
    for point in EXTENSION_POINTS:
        names = profile.points.get(point, [])
        if not names:
            continue
        key = point_path(point).removeprefix("plugins.")
        if point == "Score":
            enabled = [{"name": n, "weight": profile.weights.get(n, 1)} for n in names]
        else:
            enabled = [{"name": n} for n in names]
        plugins[key] = {"enabled": enabled}
    return plugins


def _profile(profile: ResolvedProfile) -> dict[str, Any]:
    result: dict[str, Any] = {"schedulerName": profile.scheduler_name}
    if profile.percentage_of_nodes_to_score is not None:
        result["percentageOfNodesToScore"] = profile.percentage_of_nodes_to_score
    result["plugins"] = _plugins(profile)
    result["pluginConfig"] = [
        {"name": name, "args": args.model_dump(by_alias=True, mode="json")}
        for name, args in profile.args.items()
        if type(args).model_fields  # plugins without arguments get no entry, as upstream
    ]
    return result


def effective_config_dict(resolved: ResolvedConfig) -> dict[str, Any]:
    """The configuration ``resolved`` runs with, as a plain (YAML/JSON-ready) dict."""
    top = resolved.config.model_dump(
        by_alias=True, mode="json", exclude={"profiles"}, exclude_none=True
    )
    head = {"apiVersion": top.pop("apiVersion"), "kind": top.pop("kind")}
    return {**head, **top, "profiles": [_profile(p) for p in resolved.profiles]}
