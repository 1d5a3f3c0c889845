"""Admission on create: pod priority from PriorityClasses (upstream
plugin/pkg/admission/priority/admission_test.go), generateName, and default_kinds()."""

from __future__ import annotations

from typing import Any, Literal

import pluggy
import pytest

from kubesched.api import K8sModel, KindInfo, KindRegistry, ObjectMeta, Pod, PriorityClass
from kubesched.clock import VirtualClock
from kubesched.cluster.memory import AdmissionError, MemoryCluster, default_kinds
from kubesched.hookspecs import PROJECT, hookimpl
from kubesched.testing import make_pod as pod_builder

APP = {"name": "app", "image": "pause"}


def make_pod(name: str, **spec: Any) -> Pod:
    """A pod as a manifest gives it (no namespace, no uid), with these spec fields."""
    return pod_builder(name, namespace=None).uid("").container(**APP).spec(**spec).obj()


def make_class(
    name: str, value: int, *, default: bool = False, policy: str | None = None
) -> PriorityClass:
    return PriorityClass.model_validate(
        {
            "metadata": {"name": name},
            "value": value,
            "globalDefault": default,
            "preemptionPolicy": policy,
        }
    )


HIGH = make_class("high", 1000)
NEVER = make_class("batch", 500, policy="Never")
DEFAULT = make_class("default-prio", 10, default=True)
LOWER_DEFAULT = make_class("lower-default", 5, default=True)


@pytest.mark.parametrize(
    ("classes", "spec", "want"),
    [
        pytest.param([], {}, (0, "PreemptLowerPriority", ""), id="no class, no default"),
        pytest.param(
            [HIGH],
            {"priorityClassName": "high"},
            (1000, "PreemptLowerPriority", "high"),
            id="class",
        ),
        pytest.param(
            [NEVER], {"priorityClassName": "batch"}, (500, "Never", "batch"), id="class policy"
        ),
        pytest.param(
            [HIGH, DEFAULT], {}, (10, "PreemptLowerPriority", "default-prio"), id="default"
        ),
        pytest.param(
            [DEFAULT, LOWER_DEFAULT],
            {},
            (5, "PreemptLowerPriority", "lower-default"),
            id="two defaults: the lowest value wins",
        ),
        pytest.param(
            [],
            {"priorityClassName": "system-node-critical"},
            (2_000_001_000, "PreemptLowerPriority", "system-node-critical"),
            id="built-in system class",
        ),
        pytest.param(
            [HIGH],
            {"priorityClassName": "high", "priority": 1000},
            (1000, "PreemptLowerPriority", "high"),
            id="matching explicit priority",
        ),
        pytest.param(
            [DEFAULT], {"priority": 42}, (42, "PreemptLowerPriority", ""), id="explicit, no class"
        ),
    ],
)
def test_pod_priority_admission(
    classes: list[PriorityClass], spec: dict[str, Any], want: tuple[int, str, str]
) -> None:
    cluster = MemoryCluster(default_kinds(), VirtualClock())
    cluster.create_many(classes)

    [pod] = cluster.create_many([make_pod("p", **spec)])

    assert isinstance(pod, Pod)
    assert (pod.spec.priority, pod.spec.preemption_policy, pod.spec.priority_class_name) == want


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"priorityClassName": "missing"},
            'pods "p" is forbidden: no PriorityClass with name missing was found',
        ),
        (
            {"priorityClassName": "high", "priority": 7},
            'pods "p" is forbidden: the integer value of priority (7) must not be provided in '
            "pod spec; priority admission controller computed 1000 from the given PriorityClass "
            "name",
        ),
        (
            {"priorityClassName": "batch", "preemptionPolicy": "PreemptLowerPriority"},
            'pods "p" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) '
            "must not be provided in pod spec; priority admission controller computed Never "
            "from the given PriorityClass name",
        ),
    ],
)
def test_pod_priority_admission_refusals(spec: dict[str, Any], message: str) -> None:
    cluster = MemoryCluster(default_kinds(), VirtualClock())
    cluster.create_many([HIGH, NEVER])

    with pytest.raises(AdmissionError) as info:
        cluster.create_many([make_pod("p", **spec)])

    assert str(info.value) == message
    assert isinstance(info.value, ValueError)
    assert cluster.get("Pod", "p") is None


def test_admission_reads_the_class_at_create_time(cluster: MemoryCluster) -> None:
    cluster.create_many([make_pod("before")])
    cluster.create_many([DEFAULT, make_pod("after")])

    before, after = cluster.get("Pod", "before"), cluster.get("Pod", "after")
    assert isinstance(before, Pod) and isinstance(after, Pod)
    assert (before.spec.priority, after.spec.priority) == (0, 10)


def test_generate_name_gets_a_seeded_suffix() -> None:
    def created_name(seed: int) -> str:
        cluster = MemoryCluster(default_kinds(), VirtualClock(), uid_seed=seed)
        pod = Pod.model_validate(
            {"metadata": {"generateName": "web-"}, "spec": {"containers": [APP]}}
        )
        [stored] = cluster.create_many([pod])
        return stored.metadata.name

    name = created_name(3)
    assert name.startswith("web-") and len(name) == 9
    assert created_name(3) == name


def test_create_without_any_name_is_invalid(cluster: MemoryCluster) -> None:
    with pytest.raises(AdmissionError, match="name or generateName is required"):
        cluster.create_many([Pod.model_validate({"metadata": {}})])


# -- default_kinds ----------------------------------------------------------------------


class Widget(K8sModel):
    api_version: str = "example.com/v1"
    kind: Literal["Widget"] = "Widget"
    metadata: ObjectMeta


class WidgetPlugin:
    @hookimpl
    def kubesched_register_kinds(self, registry: KindRegistry) -> None:
        registry.register(KindInfo("example.com/v1", "Widget", "widgets", True, Widget))


def test_default_kinds_are_the_core_kinds() -> None:
    kinds = default_kinds()

    assert sorted(k.kind for k in kinds) == ["Namespace", "Node", "Pod", "PriorityClass"]


def test_default_kinds_adds_what_plugins_register() -> None:
    pm = pluggy.PluginManager(PROJECT)
    pm.register(WidgetPlugin())

    kinds = default_kinds(pm)

    assert kinds.get("example.com/v1", "Widget") is not None
    cluster = MemoryCluster(kinds, VirtualClock())
    [widget] = cluster.create_many([Widget.model_validate({"metadata": {"name": "w"}})])
    assert widget.metadata.namespace == "default"
    assert cluster.get("Widget", "w", "default") is widget


def test_default_kinds_reaches_plugins_registered_later() -> None:
    pm = pluggy.PluginManager(PROJECT)
    kinds = default_kinds(pm)
    assert "Widget" not in kinds

    pm.register(WidgetPlugin())  # the hook is historic

    assert "Widget" in kinds
