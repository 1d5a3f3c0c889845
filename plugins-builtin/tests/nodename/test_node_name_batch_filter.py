"""NodeName's batch Filter (`filter_nodes`) equals its Filter node by node: on the inputs of
upstream's node_name_test.go (TestNodeName) and on generated pods and nodes (hypothesis)."""

from __future__ import annotations

import pytest
from builtin_helpers import make_node, make_pod, node_info
from fakes import fake_handle
from hypothesis import given, settings

from kubesched.api import Pod
from kubesched.framework import CycleState, NoArgs, Status
from kubesched.testing import Scenario, batch_filter_mismatch
from kubesched.testing import strategies as kst
from kubesched_builtin.nodename import ERR_REASON, NodeName

NOT_NAMED = Status.unresolvable(ERR_REASON)


@pytest.mark.parametrize(
    ("name", "pod", "want"),
    [
        ("no host specified", make_pod("p").obj(), [None, None, None]),
        ("host matches", make_pod("p").node("foo").obj(), [None, NOT_NAMED, NOT_NAMED]),
        ("host doesn't match", make_pod("p").node("bar").obj(), [NOT_NAMED, None, NOT_NAMED]),
    ],
)
def test_filter_nodes_on_upstream_table(name: str, pod: Pod, want: list[Status | None]) -> None:
    plugin = NodeName(NoArgs(), fake_handle())
    infos = [node_info(make_node(n)) for n in ("foo", "bar", "baz")]
    assert batch_filter_mismatch(plugin, CycleState(), pod, infos) is None
    assert plugin.filter_nodes(CycleState(), pod, infos) == want


@settings(max_examples=100, deadline=None)
@given(scenario=kst.scenarios(max_nodes=6))
def test_filter_nodes_equals_filter(scenario: Scenario) -> None:
    snapshot = scenario.snapshot()
    plugin = NodeName(NoArgs(), fake_handle(snapshot=snapshot))
    assert batch_filter_mismatch(plugin, CycleState(), scenario.pod, snapshot.list()) is None
