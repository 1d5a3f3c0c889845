"""Merging a profile's plugin sets with the defaults, and expanding ``multiPoint``.

Upstream: pkg/scheduler/apis/config/v1/default_plugins.go (mergePlugins, mergePluginSet) and
pkg/scheduler/framework/runtime/framework.go (updatePluginList, expandMultiPointPlugins,
getScoreWeights). Merging needs no knowledge of the installed plugins; expansion is told which
extension points each plugin implements.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from kubesched.config._models import POINT_FIELDS, Plugins, PluginSet
from kubesched.framework import EXTENSION_POINTS, MAX_NODE_SCORE, MAX_TOTAL_SCORE

__all__ = [
    "EXPANSION_ORDER",
    "MergedPlugin",
    "MergedSet",
    "expand_multi_point",
    "merge_plugin_set",
    "merge_plugins",
    "point_path",
    "score_weights",
]

EXPANSION_ORDER: Final[tuple[str, ...]] = (
    "PreFilter",
    "Filter",
    "PostFilter",
    "Reserve",
    "PreScore",
    "Score",
    "PreBind",
    "Bind",
    "PostBind",
    "Permit",
    "PreEnqueue",
    "QueueSort",
)
"""upstream: framework.go getExtensionPoints — the order points are filled and expanded in,
which decides which error is reported first."""

assert set(EXPANSION_ORDER) == set(EXTENSION_POINTS)

PointsOf = Callable[[str], Sequence[str] | None]
"""Plugin name → the extension points its class implements, None when it is not installed."""

Problem = tuple[str, str]
"""(path below the profile, detail), e.g. ("plugins.score.enabled[1]", "...")."""


@dataclass(frozen=True)
class MergedPlugin:
    """An enabled plugin after merging. ``index`` is its position in the user's ``enabled``
    list at that point, None when it comes from the defaults."""

    name: str
    weight: int | None
    index: int | None


@dataclass(frozen=True)
class MergedSet:
    """One extension point's plugin set after merging with the defaults."""

    enabled: tuple[MergedPlugin, ...]
    disabled: tuple[str, ...]

    @property
    def all_disabled(self) -> bool:
        return "*" in self.disabled


def point_path(point: str, index: int | None = None) -> str:
    """``plugins.<point>`` (``.enabled[i]`` for a user entry) as written in the file."""
    field = POINT_FIELDS[point]
    head, *rest = field.split("_")
    path = "plugins." + head + "".join(word.capitalize() for word in rest)
    return path if index is None else f"{path}.enabled[{index}]"


def merge_plugin_set(default: PluginSet, custom: PluginSet) -> MergedSet:
    """upstream mergePluginSet: defaults in order, less the disabled ones (all of them with
    ``"*"``), a default the user also enables replaced in place by the user's entry, then the
    user's other entries in order. Duplicates are kept; building the profile rejects them."""
    disabled = tuple(p.name for p in custom.disabled) + tuple(p.name for p in default.disabled)
    # a repeated custom name maps to its last entry, as upstream's map does
    custom_by_name = {p.name: i for i, p in enumerate(custom.enabled)}
    replaced: set[int] = set()
    enabled: list[MergedPlugin] = []
    if "*" not in disabled:
        for plugin in default.enabled:
            if plugin.name in disabled:
                continue
            index = custom_by_name.get(plugin.name)
            if index is None:
                enabled.append(MergedPlugin(plugin.name, plugin.weight, None))
            else:
                enabled.append(MergedPlugin(plugin.name, custom.enabled[index].weight, index))
                replaced.add(index)
    enabled.extend(
        MergedPlugin(p.name, p.weight, i) for i, p in enumerate(custom.enabled) if i not in replaced
    )
    return MergedSet(tuple(enabled), disabled)


def merge_plugins(default: Plugins, custom: Plugins) -> dict[str, MergedSet]:
    """Every point's merged set (``MultiPoint`` included), keyed as in `POINT_FIELDS`."""
    return {point: merge_plugin_set(default.at(point), custom.at(point)) for point in POINT_FIELDS}


def _type(point: str) -> str:
    return f"{point}Plugin"


def expand_multi_point(
    merged: Mapping[str, MergedSet], points_of: PointsOf
) -> tuple[dict[str, list[str]], list[Problem]]:
    """Each extension point's final plugin order, and the problems found building it.

    Plugins that are not installed (``points_of`` gives None) are skipped: the caller has
    reported them. Problems use upstream's texts: ``plugin "X" does not extend ScorePlugin
    plugin`` and ``plugin "X" already registered as "ScorePlugin"``.
    """
    problems: list[Problem] = []
    explicit: dict[str, list[str]] = {}
    # upstream updatePluginList: fill each point from its own enabled list
    for point in EXPANSION_ORDER:
        names: list[str] = []
        for plugin in merged[point].enabled:
            implemented = points_of(plugin.name)
            if implemented is None:
                continue
            path = point_path(point, plugin.index)
            if point not in implemented:
                problems.append(
                    (path, f'plugin "{plugin.name}" does not extend {_type(point)} plugin')
                )
            elif plugin.name in names:
                problems.append(
                    (path, f'plugin "{plugin.name}" already registered as "{_type(point)}"')
                )
            else:
                names.append(plugin.name)
        explicit[point] = names

    # upstream expandMultiPointPlugins
    result: dict[str, list[str]] = {}
    reported: set[str] = set()
    for point in EXPANSION_ORDER:
        own = merged[point]
        if own.all_disabled:
            result[point] = explicit[point]
            continue
        overrides: set[str] = set()
        from_multi_point: list[str] = []
        for plugin in merged["MultiPoint"].enabled:
            implemented = points_of(plugin.name)
            if implemented is None or point not in implemented or plugin.name in own.disabled:
                continue
            if plugin.name in explicit[point]:
                overrides.add(plugin.name)
            elif plugin.name in from_multi_point:
                if plugin.name not in reported:
                    reported.add(plugin.name)
                    problems.append(
                        (
                            point_path("MultiPoint", plugin.index),
                            f'plugin "{plugin.name}" already registered as "{_type(point)}"',
                        )
                    )
            else:
                from_multi_point.append(plugin.name)
        first = [name for name in explicit[point] if name in overrides]
        last = [name for name in explicit[point] if name not in overrides]
        result[point] = first + from_multi_point + last
    return {point: result[point] for point in EXTENSION_POINTS}, problems


def score_weights(
    merged: Mapping[str, MergedSet], points_of: PointsOf, score_plugins: Sequence[str]
) -> tuple[dict[str, int], list[Problem]]:
    """upstream getScoreWeights: the weight of each plugin at Score, read from ``score``
    first and then ``multiPoint`` (first occurrence wins); 0 or unset becomes 1.

    Upstream's `score plugin "X" is not configured with weight` cannot happen here: a
    plugin's configured name is always its name."""
    weights: dict[str, int] = {}
    problems: list[Problem] = []
    total = 0
    for point in ("Score", "MultiPoint"):
        for plugin in merged[point].enabled:
            implemented = points_of(plugin.name)
            if implemented is None or "Score" not in implemented or plugin.name in weights:
                continue
            weight = plugin.weight or 1
            weights[plugin.name] = weight
            if weight * MAX_NODE_SCORE > MAX_TOTAL_SCORE - total:
                problems.append(
                    (point_path(point, plugin.index), "total score of Score plugins could overflow")
                )
                return {}, problems
            total += weight * MAX_NODE_SCORE
    return {name: weights[name] for name in score_plugins if name in weights}, problems
