"""A pod's host ports (upstream schedutil.GetHostPorts) and how NodeInfo accounts them."""

from __future__ import annotations

from kubesched.api import Pod
from kubesched.framework import NodeInfo, PodInfo


def _pod(name: str) -> Pod:
    return Pod.model_validate(
        {
            "metadata": {"name": name, "uid": f"uid-{name}"},
            "spec": {
                "initContainers": [
                    {"name": "setup", "ports": [{"containerPort": 1, "hostPort": 7001}]},
                    {
                        "name": "sidecar",
                        "restartPolicy": "Always",
                        "ports": [{"containerPort": 2, "hostPort": 7002, "protocol": "UDP"}],
                    },
                ],
                "containers": [
                    {
                        "name": "app",
                        "ports": [
                            {"containerPort": 80, "hostPort": 8080, "hostIP": "10.0.0.1"},
                            {"containerPort": 81},
                        ],
                    }
                ],
            },
        }
    )


def test_sidecars_and_app_containers_hold_host_ports_plain_init_containers_do_not() -> None:
    assert PodInfo(_pod("p")).host_ports == (
        ("", "UDP", 7002),
        ("10.0.0.1", "TCP", 8080),
    )


def test_node_info_adds_and_removes_the_ports() -> None:
    info = NodeInfo()
    pod = _pod("p")
    info.add_pod(pod)
    assert info.used_ports.conflicts("10.0.0.1", "TCP", 8080)
    assert info.used_ports.conflicts("0.0.0.0", "UDP", 7002)
    assert not info.used_ports.conflicts("0.0.0.0", "TCP", 7001)
    assert info.remove_pod(pod)
    assert not info.used_ports.conflicts("10.0.0.1", "TCP", 8080)
    assert not info.used_ports.conflicts("0.0.0.0", "UDP", 7002)
