"""NodeName, from upstream nodename/node_name_test.go."""

from __future__ import annotations

import pytest
from builtin_helpers import make_node, make_pod, node_info
from fakes import fake_handle

from kubesched.api import Pod
from kubesched.framework import ActionType, ClusterEvent, CycleState, EventResource, NoArgs, Status
from kubesched_builtin.nodename import ERR_REASON, NodeName


@pytest.mark.parametrize(
    ("name", "pod", "want"),
    [
        ("no host specified", make_pod("p").obj(), None),
        ("host matches", make_pod("p").node("foo").obj(), None),
        ("host doesn't match", make_pod("p").node("bar").obj(), Status.unresolvable(ERR_REASON)),
    ],
)
def test_filter(name: str, pod: Pod, want: Status | None) -> None:
    plugin = NodeName(NoArgs(), fake_handle())
    assert plugin.filter(CycleState(), pod, node_info(make_node("foo"))) == want


def test_err_reason_is_upstream_text() -> None:
    assert ERR_REASON == "node(s) didn't match the requested node name"


def test_events_to_register_node_add_without_hint() -> None:
    (registration,) = NodeName(NoArgs(), fake_handle()).events_to_register()
    assert registration.event == ClusterEvent(EventResource.Node, ActionType.Add)
    assert registration.hint is None
