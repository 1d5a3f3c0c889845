"""Each `kubesched.plugins` entry point of this distribution loads the plugin of that name."""

from __future__ import annotations

import importlib.metadata

import pytest

from kubesched.framework import Plugin, extension_points_of
from kubesched_builtin import names

_EPS = [
    ep
    for ep in importlib.metadata.distribution("kubesched-builtin").entry_points
    if ep.group == "kubesched.plugins"
]


def test_every_name_has_an_entry_point() -> None:
    declared = {ep.name for ep in _EPS}
    assert declared == {getattr(names, n) for n in names.__all__}


@pytest.mark.parametrize("ep", _EPS, ids=lambda ep: ep.name)
def test_entry_point_resolves_to_the_named_plugin(ep: importlib.metadata.EntryPoint) -> None:
    found = {e.name: e for e in importlib.metadata.entry_points(group="kubesched.plugins")}
    assert found[ep.name].value == ep.value
    cls = ep.load()
    assert isinstance(cls, type) and issubclass(cls, Plugin)
    assert cls.name == ep.name
    assert extension_points_of(cls), f"{ep.name} implements no extension point"


def test_extension_points() -> None:
    loaded = {ep.name: ep.load() for ep in _EPS}
    assert {name: extension_points_of(cls) for name, cls in loaded.items()} == {
        "PrioritySort": ["QueueSort"],
        "SchedulingGates": ["PreEnqueue"],
        "NodeUnschedulable": ["Filter"],
        "NodeName": ["Filter"],
        "NodeResourcesFit": ["PreFilter", "Filter", "PreScore", "Score"],
        "DefaultBinder": ["Bind"],
        "TaintToleration": ["Filter", "PreScore", "Score"],
        "NodeAffinity": ["PreFilter", "Filter", "PreScore", "Score"],
        "NodePorts": ["PreFilter", "Filter"],
        "PodTopologySpread": ["PreFilter", "Filter", "PreScore", "Score"],
        "InterPodAffinity": ["PreFilter", "Filter", "PreScore", "Score"],
        "DefaultPreemption": ["PostFilter"],
        "NodeResourcesBalancedAllocation": ["PreScore", "Score"],
        "ImageLocality": ["Score"],
    }
