"""Resolving a configuration against the installed plugins: what each profile runs.

Upstream: pkg/scheduler/framework/runtime/framework.go (NewFramework: updatePluginList,
expandMultiPointPlugins, getScoreWeights, the QueueSort/Bind checks, plugin args) and
pkg/scheduler/profile/profile.go. Unlike upstream, a default plugin that is not installed is
left out (and reported in ``left_out``) rather than failing, so a scheduler with only
``kubesched-builtin`` installed runs; a plugin a profile names explicitly must be installed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from kubesched._errors import printable
from kubesched._install import install_hint
from kubesched.config._defaults import default_plugins
from kubesched.config._field_errors import FieldErrors, format_value, invalid, pydantic_errors
from kubesched.config._merge import (
    EXPANSION_ORDER,
    MergedSet,
    expand_multi_point,
    merge_plugins,
    point_path,
    score_weights,
)
from kubesched.config._models import KubeSchedulerConfiguration, PluginConfig, Profile
from kubesched.config._validate import duplicate_scheduler_names, validate_config
from kubesched.framework import Plugin, extension_points_of

__all__ = ["PluginCatalog", "ResolvedConfig", "ResolvedProfile", "check_profiles", "resolve"]


class PluginCatalog(Protocol):
    """The installed plugins, as resolving needs to know them: pass the
    `kubesched.runtime.PluginRegistry` itself (``PluginRegistry.of(*classes)`` in tests).

    ``plugins``: name → plugin class. ``broken``: name → why it failed to load (an error only
    when a profile enables it). ``provider(name)``: the distribution that provides a plugin,
    installed or not, to tell the user what to install (None when unknown).
    """

    @property
    def plugins(self) -> Mapping[str, type[Plugin]]: ...

    @property
    def broken(self) -> Mapping[str, str]: ...

    def provider(self, name: str) -> str | None: ...


@dataclass(frozen=True)
class ResolvedProfile:
    """One profile as the framework builds it.

    ``points``: extension point (as in `kubesched.framework.EXTENSION_POINTS`) → plugin
    names in call order. ``weights``: Score plugin → weight (≥ 1 unless configured
    negative). ``args``: every enabled plugin → its validated ``Args`` instance (a plugin
    without one gets its default ``Args()``). ``percentage_of_nodes_to_score``: the
    profile's own value; None means the global one. ``left_out``: default plugins skipped
    because they are not installed, with the distribution that provides each.

    `kubesched.runtime.Framework` is built from it directly; tests may write one by hand
    with only the points they need.
    """

    scheduler_name: str
    points: Mapping[str, Sequence[str]]
    weights: Mapping[str, int] = field(default_factory=dict)
    args: Mapping[str, BaseModel] = field(default_factory=dict)
    percentage_of_nodes_to_score: int | None = None
    left_out: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class ResolvedConfig:
    """A configuration with every profile resolved; ``source`` is its file, if any."""

    source: str | None
    config: KubeSchedulerConfiguration
    profiles: list[ResolvedProfile]


def _missing(catalog: PluginCatalog, point: str, name: str) -> str:
    # upstream: `<Type>Plugin "<name>" does not exist`, plus what to install
    shown = printable(name)
    detail = f'{point}Plugin "{shown}" does not exist: plugin "{shown}" is not installed'
    distribution = catalog.provider(name)
    if distribution:
        detail += f": it is provided by {distribution} ({install_hint(distribution)})"
    installed = ", ".join(sorted(catalog.plugins)) or "none"
    return f"{detail}; installed plugins: {installed}"


class _ProfileResolver:
    """Resolves one profile, collecting problems into ``errors``."""

    def __init__(
        self, index: int, profile: Profile, catalog: PluginCatalog, errors: FieldErrors
    ) -> None:
        self.prefix = f"profiles[{index}]"
        self.profile = profile
        self.catalog = catalog
        self.errors = errors
        self.failed = False

    def problem(self, path: str, detail: str) -> None:
        self.failed = True
        self.errors.add(f"{self.prefix}.{path}" if path else self.prefix, detail)

    def points_of(self, name: str) -> list[str] | None:
        cls = self.catalog.plugins.get(name)
        return None if cls is None else extension_points_of(cls)

    def leave_out_defaults(self, merged: dict[str, MergedSet]) -> list[tuple[str, str]]:
        """Drop default multiPoint entries that are not installed; report them."""
        multi_point = merged["MultiPoint"]
        left_out: list[tuple[str, str]] = []
        kept = []
        for plugin in multi_point.enabled:
            absent = (
                plugin.name not in self.catalog.plugins and plugin.name not in self.catalog.broken
            )
            if plugin.index is None and absent:
                left_out.append((plugin.name, self.catalog.provider(plugin.name) or "unknown"))
            else:
                kept.append(plugin)
        merged["MultiPoint"] = replace(multi_point, enabled=tuple(kept))
        return left_out

    def check_names(self, merged: dict[str, MergedSet]) -> None:
        """Every enabled name must be installed and loadable (upstream order of errors)."""
        # upstream reports an unknown multiPoint plugin with the first point it expands
        expanding = next((p for p in EXPANSION_ORDER if not merged[p].all_disabled), "PreFilter")
        for point in (*EXPANSION_ORDER, "MultiPoint"):
            type_name = expanding if point == "MultiPoint" else point
            for plugin in merged[point].enabled:
                if plugin.name in self.catalog.plugins:
                    continue
                path = point_path(point, plugin.index)
                error = self.catalog.broken.get(plugin.name)
                if error is not None:
                    origin = " (a default plugin)" if plugin.index is None else ""
                    self.problem(
                        path,
                        f'plugin "{plugin.name}"{origin} is installed but failed to load: {error}',
                    )
                else:
                    self.problem(path, _missing(self.catalog, type_name, plugin.name))

    def check_counts(
        self, points: Mapping[str, list[str]], left_out: list[tuple[str, str]]
    ) -> None:
        name = self.profile.scheduler_name
        hint = ""
        if left_out:
            names = ", ".join(plugin for plugin, _ in left_out)
            dists = sorted({dist for _, dist in left_out})
            hint = f"; default plugins not installed: {names} ({install_hint(*dists)})"
        queue_sort = points["QueueSort"]
        if len(queue_sort) != 1:
            self.problem(
                "plugins.queueSort",
                "only one queue sort plugin required for profile with scheduler name "
                f'"{name}", but got {len(queue_sort)}' + (hint if not queue_sort else ""),
            )
        if not points["Bind"]:
            self.problem(
                "plugins.bind",
                f'at least one bind plugin is needed for profile with scheduler name "{name}"'
                + hint,
            )

    def plugin_args(self, enabled: list[str]) -> dict[str, BaseModel]:
        """Each enabled plugin's ``Args``, from its pluginConfig entry or the defaults."""
        configs: dict[str, tuple[int, PluginConfig]] = {}
        for j, entry in enumerate(self.profile.plugin_config):
            configs.setdefault(entry.name, (j, entry))
            if entry.name not in enabled:
                detail = f'args for a plugin not enabled in profile "{self.profile.scheduler_name}"'
                if entry.name not in self.catalog.plugins and entry.name not in self.catalog.broken:
                    dist = self.catalog.provider(entry.name)
                    install = f"; {install_hint(dist)}" if dist else ""
                    detail += f' (plugin "{entry.name}" is not installed{install})'
                self.problem(f"pluginConfig[{j}]", invalid(entry.name, detail))
        result: dict[str, BaseModel] = {}
        for name in enabled:
            if name not in self.catalog.plugins:
                continue  # reported already
            found = configs.get(name)
            path = "pluginConfig" if found is None else f"pluginConfig[{found[0]}].args"
            raw: dict[str, Any] = {} if found is None else dict(found[1].args or {})
            model = self.catalog.plugins[name].Args
            # args written the upstream way may carry their own apiVersion/kind
            if "kind" in raw and "kind" not in model.model_fields:
                kind = raw.pop("kind")
                if kind != f"{name}Args":
                    self.problem(
                        f"{path}.kind", invalid(kind, f'has to match plugin args "{name}Args"')
                    )
            if "apiVersion" in raw and "api_version" not in model.model_fields:
                raw.pop("apiVersion")
            try:
                result[name] = model.model_validate(raw)
            except ValidationError as exc:
                for sub_path, detail in pydantic_errors(exc, path, model):
                    if found is None:
                        detail = (
                            f'plugin "{name}" has no pluginConfig entry and needs one: {detail}'
                        )
                    self.problem(sub_path, detail)
            except Exception as exc:  # a plugin's own validator may raise anything
                self.problem(path, invalid(raw, f"{type(exc).__name__}: {exc}"))
        return result

    def resolve(self) -> ResolvedProfile | None:
        merged = merge_plugins(default_plugins(), self.profile.plugins)
        left_out = self.leave_out_defaults(merged)
        self.check_names(merged)
        points, problems = expand_multi_point(merged, self.points_of)
        for path, detail in problems:
            self.problem(path, detail)
        weights: dict[str, int] = {}
        if not self.failed:  # counts and weights mean little while plugins are missing
            self.check_counts(points, left_out)
            weights, problems = score_weights(merged, self.points_of, points["Score"])
            for path, detail in problems:
                self.problem(path, detail)
        # upstream pluginsNeeded: everything enabled anywhere, multiPoint included
        enabled = list(dict.fromkeys(p.name for s in merged.values() for p in s.enabled))
        args = self.plugin_args(enabled)
        if self.failed:
            return None
        return ResolvedProfile(
            scheduler_name=self.profile.scheduler_name,
            percentage_of_nodes_to_score=self.profile.percentage_of_nodes_to_score,
            points=points,
            weights=weights,
            args=args,
            left_out=left_out,
        )


def _common_queue_sort(profiles: Sequence[ResolvedProfile], errors: FieldErrors) -> None:
    # upstream validateCommonQueueSort, applied to the expanded profiles: all profiles share one
    # queue, so they must sort it the same way
    if not profiles:
        return
    first = profiles[0]
    first_sort = list(first.points["QueueSort"])
    for index, profile in enumerate(profiles[1:], start=1):
        sort = list(profile.points["QueueSort"])
        if sort != first_sort:
            errors.add(
                f"profiles[{index}].plugins.queueSort",
                invalid(
                    sort,
                    "must be the same for all profiles"
                    f" (profiles[0] uses {format_value(first_sort)})",
                ),
            )
        elif sort and profile.args.get(sort[0]) != first.args.get(sort[0]):
            errors.add(
                f"profiles[{index}].pluginConfig",
                invalid(sort[0], "queueSort must be the same for all profiles"),
            )


def check_profiles(resolved: ResolvedConfig) -> None:
    """The checks of upstream profile.NewMap (pkg/scheduler/profile/profile.go cfgValidator)
    over resolved profiles: no two share a scheduler name, and all sort the one queue with
    the same QueueSort plugin and args. `resolve` ends with them; `build_profiles` runs them
    again for a `ResolvedConfig` written by hand. Raises one ConfigError naming
    ``resolved.source``."""
    errors = FieldErrors()
    errors.extend(duplicate_scheduler_names(p.scheduler_name for p in resolved.profiles))
    _common_queue_sort(resolved.profiles, errors)
    errors.raise_if_any(resolved.source)


def resolve(
    config: KubeSchedulerConfiguration, catalog: PluginCatalog, source: str | None = None
) -> ResolvedConfig:
    """Resolve every profile of ``config`` against ``catalog`` (the plugin registry): merge
    with the default
    plugins, expand ``multiPoint``, check plugins and weights, validate plugin args.

    ``source`` (default: the file ``config`` was loaded from) names the file in errors.
    Raises one ConfigError listing every problem found.
    """
    file = source if source is not None else config.source
    errors = FieldErrors()
    errors.extend(validate_config(config))
    errors.raise_if_any(file)
    profiles: list[ResolvedProfile] = []
    for index, profile in enumerate(config.profiles):
        resolved = _ProfileResolver(index, profile, catalog, errors).resolve()
        if resolved is not None:
            profiles.append(resolved)
    errors.raise_if_any(file)
    result = ResolvedConfig(source=file, config=config, profiles=profiles)
    check_profiles(result)
    return result
