"""NodePorts, from upstream nodeports/node_ports_test.go (v1.34): TestNodePorts,
TestPreFilterDisabled, TestGetContainerPorts and Test_isSchedulableAfterPodDeleted."""

from __future__ import annotations

from typing import Any

import pytest
from fakes import fake_handle

from kubesched.api import Pod
from kubesched.framework import (
    ActionType,
    Code,
    CycleState,
    EventResource,
    NoArgs,
    NodeInfo,
    PodInfo,
    QueueingHint,
    Status,
)
from kubesched.testing import make_node, make_pod
from kubesched_builtin.nodeports import ERR_REASON, NodePorts, host_ports


def _plugin() -> NodePorts:
    return NodePorts(NoArgs(), fake_handle())


def new_pod(host: str, *port_infos: str, name: str = "p") -> Pod:
    """A pod on `host` whose one container asks for these "PROTOCOL/hostIP/hostPort" ports."""
    ports = []
    for info in port_infos:
        protocol, ip, port = info.split("/")
        ports.append({"hostIP": ip, "hostPort": int(port), "protocol": protocol})
    pod = make_pod(name, namespace=None, uid=name).node(host)
    return pod.container(name="c", ports=ports).obj()


def node_info_with(*pods: Pod) -> NodeInfo:
    return NodeInfo(make_node("m1").obj(), [PodInfo(p) for p in pods])


UNSCHEDULABLE = Status.unschedulable(ERR_REASON)

CASES = [
    pytest.param(
        Pod.model_validate({"metadata": {"name": "p"}}), node_info_with(), None, id="skip filter"
    ),
    pytest.param(
        new_pod("m1", "UDP/127.0.0.1/8080"),
        node_info_with(new_pod("m1", "UDP/127.0.0.1/9090")),
        None,
        id="other port",
    ),
    pytest.param(
        new_pod("m1", "UDP/127.0.0.1/8080"),
        node_info_with(new_pod("m1", "UDP/127.0.0.1/8080")),
        UNSCHEDULABLE,
        id="same udp port",
    ),
    pytest.param(
        new_pod("m1", "TCP/127.0.0.1/8080"),
        node_info_with(new_pod("m1", "TCP/127.0.0.1/8080")),
        UNSCHEDULABLE,
        id="same tcp port",
    ),
    pytest.param(
        new_pod("m1", "TCP/127.0.0.1/8080"),
        node_info_with(new_pod("m1", "TCP/127.0.0.2/8080")),
        None,
        id="different host ip",
    ),
    pytest.param(
        new_pod("m1", "UDP/127.0.0.1/8080"),
        node_info_with(new_pod("m1", "TCP/127.0.0.1/8080")),
        None,
        id="different protocol",
    ),
    pytest.param(
        new_pod("m1", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
        node_info_with(new_pod("m1", "UDP/127.0.0.1/8080")),
        UNSCHEDULABLE,
        id="second udp port conflict",
    ),
    pytest.param(
        new_pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
        node_info_with(new_pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081")),
        UNSCHEDULABLE,
        id="first tcp port conflict",
    ),
    pytest.param(
        new_pod("m1", "TCP/0.0.0.0/8001"),
        node_info_with(new_pod("m1", "TCP/127.0.0.1/8001")),
        UNSCHEDULABLE,
        id="first tcp port conflict due to 0.0.0.0 hostIP",
    ),
    pytest.param(
        new_pod("m1", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
        node_info_with(new_pod("m1", "TCP/127.0.0.1/8001")),
        UNSCHEDULABLE,
        id="TCP hostPort conflict due to 0.0.0.0 hostIP",
    ),
    pytest.param(
        new_pod("m1", "TCP/127.0.0.1/8001"),
        node_info_with(new_pod("m1", "TCP/0.0.0.0/8001")),
        UNSCHEDULABLE,
        id="second tcp port conflict to 0.0.0.0 hostIP",
    ),
    pytest.param(
        new_pod("m1", "UDP/127.0.0.1/8001"),
        node_info_with(new_pod("m1", "TCP/0.0.0.0/8001")),
        None,
        id="second different protocol",
    ),
    pytest.param(
        new_pod("m1", "UDP/127.0.0.1/8001"),
        node_info_with(new_pod("m1", "TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001")),
        UNSCHEDULABLE,
        id="UDP hostPort conflict due to 0.0.0.0 hostIP",
    ),
    pytest.param(
        new_pod("m1", "TCP//8001"),
        node_info_with(new_pod("m1", "TCP/127.0.0.1/8001")),
        UNSCHEDULABLE,
        id="no hostIP means 0.0.0.0",
    ),
]


@pytest.mark.parametrize(("pod", "node_info", "want"), CASES)
def test_node_ports(pod: Pod, node_info: NodeInfo, want: Status | None) -> None:
    plugin = _plugin()
    state = CycleState()
    result, status = plugin.pre_filter(state, pod, [node_info])
    assert result is None
    if not host_ports(pod):
        assert status == Status.skip()
        return
    assert status is None
    assert plugin.filter(state, pod, node_info) == want


def test_filter_without_pre_filter_is_an_error() -> None:
    status = _plugin().filter(CycleState(), new_pod("m1"), node_info_with())
    assert status is not None and status.code is Code.Error
    assert status.message() == 'reading "PreFilterNodePorts" from cycleState: not found'


def _container(*host_port_pairs: tuple[int, int]) -> dict[str, Any]:
    return {
        "name": "c",
        "ports": [
            {"containerPort": c, "hostPort": h, "protocol": "TCP"} for c, h in host_port_pairs
        ],
    }


def test_host_ports() -> None:
    """upstream TestGetContainerPorts (per pod), plus sidecars counting and plain init
    containers not counting (GetHostPorts)."""
    pod = Pod.model_validate(
        {
            "metadata": {"name": "p"},
            "spec": {
                "initContainers": [
                    {**_container((7001, 7001)), "restartPolicy": "Always"},
                    _container((7002, 7002)),
                ],
                "containers": [
                    _container((8001, 8001), (8002, 8002)),
                    _container((8003, 8003), (8004, 8004)),
                    _container((8005, 0)),
                ],
            },
        }
    )
    assert [p.host_port for p in host_ports(pod)] == [7001, 8001, 8002, 8003, 8004]


def test_sidecar_host_ports_are_held_on_the_node() -> None:
    sidecar = Pod.model_validate(
        {
            "metadata": {"name": "s", "uid": "s"},
            "spec": {
                "nodeName": "m1",
                "initContainers": [{**_container((9000, 9000)), "restartPolicy": "Always"}],
            },
        }
    )
    plugin = _plugin()
    state = CycleState()
    pod = new_pod("", "TCP/0.0.0.0/9000")
    plugin.pre_filter(state, pod, [])
    assert plugin.filter(state, pod, node_info_with(sidecar)) == UNSCHEDULABLE


def _pod_with_host_port(port: int, node: str = "", name: str = "p") -> Pod:
    return new_pod(node, f"TCP//{port}", name=name)


@pytest.mark.parametrize(
    ("old", "want"),
    [
        pytest.param("not-a-pod", QueueingHint.Queue, id="backoff-wrong-old-object"),
        pytest.param(
            Pod.model_validate({"metadata": {"name": "x"}}),
            QueueingHint.QueueSkip,
            id="skip-queue-on-unscheduled",
        ),
        pytest.param(
            Pod.model_validate({"metadata": {"name": "x"}, "spec": {"nodeName": "fake-node"}}),
            QueueingHint.QueueSkip,
            id="skip-queue-on-non-hostport",
        ),
        pytest.param(
            _pod_with_host_port(8081, "fake-node", "x"),
            QueueingHint.QueueSkip,
            id="skip-queue-on-unrelated-hostport",
        ),
        pytest.param(
            _pod_with_host_port(8080, "fake-node", "x"),
            QueueingHint.Queue,
            id="queue-on-released-hostport",
        ),
        pytest.param(
            Pod.model_validate(
                {
                    "metadata": {"name": "x"},
                    "spec": {"containers": [_container((8080, 8080))]},
                    "status": {"nominatedNodeName": "n"},
                }
            ),
            QueueingHint.Queue,
            id="queue-on-nominated-pod-released-hostport",
        ),
    ],
)
def test_is_schedulable_after_pod_deleted(old: Any, want: QueueingHint) -> None:
    pod = _pod_with_host_port(8080)
    assert _plugin().is_schedulable_after_pod_deleted(pod, old, None) is want


def test_events_to_register() -> None:
    events = _plugin().events_to_register()
    assert [(e.event.resource, e.event.action, e.hint is None) for e in events] == [
        (EventResource.Pod, ActionType.Delete, False),
        (EventResource.Node, ActionType.Add, True),
    ]
