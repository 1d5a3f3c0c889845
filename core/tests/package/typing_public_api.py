"""Typing tests of the public API: what a type checker infers where a plugin author reads it.

Checked by mypy in the `type` tox environment (`typing.assert_type` fails there when an
inferred type changes, e.g. an attribute that loses its annotation and becomes `Any`); not a
pytest module, nothing here is meant to run. Add a line when a public name is added.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, assert_type

from kubesched.api import Container, Node, Pod, Taint, Toleration
from kubesched.config import (
    KubeSchedulerConfiguration,
    PluginConfig,
    PluginSet,
    Profile,
    load_config,
    parse_config,
)
from kubesched.framework import (
    MAX_NODE_SCORE,
    Code,
    CycleState,
    NodeInfo,
    NodeScore,
    PodInfo,
    Resource,
    Status,
    is_success,
)
from kubesched.testing import NodeBuilder, PodBuilder, make_node, make_pod


def status_reads(status: Status) -> None:
    assert_type(status.code, Code)
    assert_type(status.reasons, tuple[str, ...])
    assert_type(status.plugin, str)
    assert_type(status.error, BaseException | None)
    assert_type(status.message(), str)
    assert_type(status.is_success, bool)
    assert_type(status.is_rejected, bool)
    assert_type(status.is_skip, bool)
    assert_type(status.is_wait, bool)
    assert_type(status.with_plugin("P"), Status)
    assert_type(is_success(None), bool)


def status_constructors() -> None:
    assert_type(Status.success(), Status)
    assert_type(Status.unschedulable("a", "b"), Status)
    assert_type(Status.unresolvable("a"), Status)
    assert_type(Status.as_error(ValueError("boom")), Status)
    assert_type(Status.wait(), Status)
    assert_type(Status.skip(), Status)
    assert_type(Status.pending("gated"), Status)
    assert_type(Status(Code.Unschedulable, "no room", plugin="P"), Status)
    assert_type(Code(0), Code)
    assert_type(int(Code.Error), int)
    assert_type(MAX_NODE_SCORE, int)


def node_info_reads(info: NodeInfo) -> None:
    assert_type(info.node, Node | None)
    assert_type(info.name, str)
    assert_type(info.pods, list[PodInfo])
    assert_type(info.pods_with_affinity, list[PodInfo])
    assert_type(info.pods_with_required_anti_affinity, list[PodInfo])
    assert_type(info.requested, Resource)
    assert_type(info.non_zero_requested, Resource)
    assert_type(info.allocatable, Resource)
    assert_type(info.generation, int)
    assert_type(info.clone(), NodeInfo)
    assert_type(info.allocatable.milli_cpu, int)
    assert_type(info.allocatable.memory, int)
    assert_type(info.allocatable.ephemeral_storage, int)
    assert_type(info.allocatable.allowed_pod_number, int)
    assert_type(info.allocatable.scalar, dict[str, int])


def pod_info_reads(pod_info: PodInfo) -> None:
    assert_type(pod_info.pod, Pod)
    assert_type(pod_info.requests, Resource)
    assert_type(pod_info.non_zero_requests, Resource)
    assert_type(pod_info.key, str)
    assert_type(pod_info.uid, str)


def cycle_state_reads(state: CycleState) -> None:
    # Values are what plugins wrote: Any, for the plugin to narrow (or cast) itself.
    assert_type(state.read("key"), Any)
    assert_type(state.get("key"), Any)
    assert_type(state.write("key", 1), None)
    assert_type(state.delete("key"), None)
    assert_type(NodeScore("n", 10).score, int)


def builders() -> None:
    assert_type(make_pod("p"), PodBuilder)
    assert_type(make_pod("p", "ns", uid="u").req(cpu="1").label(app="a"), PodBuilder)
    assert_type(make_pod("p").req({"example.com/gpu": 1}).init_req(cpu="1"), PodBuilder)
    assert_type(make_pod("p").priority(5).node("n").toleration(key="k"), PodBuilder)
    assert_type(make_pod("p").spread_constraint(1, "zone", "DoNotSchedule", None), PodBuilder)
    assert_type(make_pod("p").obj(), Pod)
    assert_type(make_node("n"), NodeBuilder)
    assert_type(make_node("n").alloc(cpu="4", pods=110).label(zone="a"), NodeBuilder)
    assert_type(make_node("n").taint("k", "v", "NoSchedule").image("img", size=1), NodeBuilder)
    assert_type(make_node("n").obj(), Node)


def api_models(pod: Pod, node: Node) -> None:
    assert_type(pod.metadata.name, str)
    assert_type(pod.metadata.namespace, str | None)
    assert_type(pod.metadata.uid, str)
    assert_type(pod.metadata.labels, dict[str, str])
    assert_type(pod.spec.node_name, str)
    assert_type(pod.spec.priority, int | None)
    assert_type(pod.priority, int)
    assert_type(pod.spec.containers, list[Container])
    assert_type(pod.spec.tolerations, list[Toleration])
    assert_type(pod.spec.node_selector, dict[str, str])
    assert_type(pod.status.nominated_node_name, str)
    assert_type(node.metadata.name, str)
    assert_type(node.spec.unschedulable, bool)
    assert_type(node.spec.taints, list[Taint])
    assert_type(node.status.allocatable, dict[str, Fraction])
    assert_type(Pod.model_validate({"metadata": {"name": "p"}}), Pod)


def config_loading() -> None:
    config = load_config("scheduler-config.yaml")
    assert_type(config, KubeSchedulerConfiguration)
    assert_type(load_config(None), KubeSchedulerConfiguration)
    assert_type(parse_config({"profiles": []}, "inline"), KubeSchedulerConfiguration)
    assert_type(config.profiles, list[Profile])
    assert_type(config.parallelism, int)
    assert_type(config.percentage_of_nodes_to_score, int | None)
    profile = config.profiles[0]
    assert_type(profile.scheduler_name, str)
    assert_type(profile.plugins.filter, PluginSet)
    assert_type(profile.plugin_config, list[PluginConfig])
    assert_type(profile.plugin_config[0].args, dict[str, Any] | None)
