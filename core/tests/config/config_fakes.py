"""Fake plugin classes for the config tests: the default set with upstream's extension
points (section 3.2 of the reference), plus a few extras. They are never run, only placed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from kubesched.config import API_VERSION, KIND
from kubesched.framework import (
    BindPlugin,
    FilterPlugin,
    NoArgs,
    PermitPlugin,
    Plugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScorePlugin,
)
from kubesched.runtime import DiscoveredPlugin, PluginRegistry


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)


class ResourceSpec(_Args):
    name: str
    weight: int = 1


class ScoringStrategy(_Args):
    type: Literal["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"] = "LeastAllocated"
    resources: list[ResourceSpec] = Field(
        default_factory=lambda: [ResourceSpec(name="cpu"), ResourceSpec(name="memory")]
    )


class FitArgs(_Args):
    ignored_resources: list[str] = Field(default_factory=list)
    scoring_strategy: ScoringStrategy = Field(default_factory=ScoringStrategy)


class PreemptionArgs(_Args):
    min_candidate_nodes_percentage: int = Field(default=10, ge=0, le=100)
    min_candidate_nodes_absolute: int = Field(default=100, ge=0)


class SortArgs(_Args):
    reverse: bool = False


class NeedsArgs(_Args):
    endpoint: str


def make_plugin(name: str, *bases: type[Plugin], args: type[BaseModel] = NoArgs) -> type[Plugin]:
    """A plugin class called ``name`` implementing ``bases``."""
    return cast(type[Plugin], type(name, bases or (Plugin,), {"name": name, "Args": args}))


_PF, _F, _PS, _S = PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin

DEFAULT_FAKES: dict[str, type[Plugin]] = {
    cls.name: cls
    for cls in (
        make_plugin("SchedulingGates", PreEnqueuePlugin),
        make_plugin("PrioritySort", QueueSortPlugin, args=SortArgs),
        make_plugin("NodeUnschedulable", _F),
        make_plugin("NodeName", _F),
        make_plugin("TaintToleration", _F, _PS, _S),
        make_plugin("NodeAffinity", _PF, _F, _PS, _S),
        make_plugin("NodePorts", _PF, _F),
        make_plugin("NodeResourcesFit", _PF, _F, _PS, _S, args=FitArgs),
        make_plugin("VolumeRestrictions", _PF, _F),
        make_plugin("NodeVolumeLimits", _PF, _F),
        make_plugin("VolumeBinding", _PF, _F, ReservePlugin, PreBindPlugin),
        make_plugin("VolumeZone", _PF, _F),
        make_plugin("PodTopologySpread", _PF, _F, _PS, _S),
        make_plugin("InterPodAffinity", _PF, _F, _PS, _S),
        make_plugin(
            "DynamicResources",
            PreEnqueuePlugin,
            _PF,
            _F,
            PostFilterPlugin,
            ReservePlugin,
            PreBindPlugin,
        ),
        make_plugin("DefaultPreemption", PostFilterPlugin, args=PreemptionArgs),
        make_plugin("NodeResourcesBalancedAllocation", _PS, _S),
        make_plugin("ImageLocality", _S),
        make_plugin("DefaultBinder", BindPlugin),
    )
}

EXTRA_FAKES: dict[str, type[Plugin]] = {
    cls.name: cls
    for cls in (
        make_plugin("MyPlugin", _S),
        make_plugin("OtherSort", QueueSortPlugin, args=SortArgs),
        make_plugin("OtherBinder", BindPlugin),
        make_plugin("Gang", QueueSortPlugin, _PF, PostFilterPlugin, ReservePlugin, PermitPlugin),
        make_plugin("FilterOnly", _F),
        make_plugin("Remote", _PF, args=NeedsArgs),
    )
}


def catalog(
    names: Iterable[str] | None = None, *, broken: dict[str, str] | None = None
) -> PluginRegistry:
    """A registry of the fakes called ``names`` (None: every default and extra fake), and of
    ``broken`` plugins: found, but failing to load (name → why). The fakes implement no
    method, so they are entered as found rather than registered."""
    every = {**DEFAULT_FAKES, **EXTRA_FAKES}
    chosen = every.values() if names is None else [every[n] for n in names]
    registry = PluginRegistry()
    for cls in chosen:
        registry.entries[cls.name] = DiscoveredPlugin(cls.name, "fakes", None, None, plugin=cls)
    for name, error in (broken or {}).items():
        registry.entries[name] = DiscoveredPlugin(name, "fakes", None, None, error=error)
    return registry


def doc(**fields: Any) -> dict[str, Any]:
    """A configuration document with apiVersion and kind, and ``fields`` (camelCase)."""
    return {"apiVersion": API_VERSION, "kind": KIND, **fields}


def profile(name: str = "default-scheduler", **fields: Any) -> dict[str, Any]:
    return {"schedulerName": name, **fields}
