"""Message table: what Coscheduling (kubesched-coscheduling) says, as a user reads it on
the pods of a gang.

The strings are copied from scheduler-plugins (kubernetes-sigs/scheduler-plugins, the
release matching v1.34): pkg/coscheduling/coscheduling.go (PostFilter's `PodGroup %v gets
rejected due to Pod %v is unschedulable even after PostFilter`, its waiting siblings'
`optimistic rejection in PostFilter`, Unreserve's `rejection in Unreserve`) and
pkg/coscheduling/core/core.go (`podGroup %v failed recently`). Where kubesched differs on
purpose, plugins-coscheduling/README.md ("Differences from scheduler-plugins") documents
the text asserted: a member is held before the queue (PreEnqueue) rather than rejected at
PreFilter or Permit, and a gang that cannot fit is rejected, with the reason, before it
holds anything. The framework's own words around them (the one-node FitError of a
rejected waiting pod, the Permit timeout) are kube-scheduler v1.34's
(schedule_one.go, waiting_pods_map.go).
"""

from __future__ import annotations

from typing import Any

from _scenarios import Run, nodes, objects_from_yaml, run_scenario

from kubesched.api import K8sModel, Pod
from kubesched.framework import CycleState, FilterPlugin, NodeInfo, ReservePlugin, Status
from kubesched.testing import make_pod

LABEL = "scheduling.x-k8s.io/pod-group"


def _group(name: str, min_member: int, timeout: int = 0) -> list[K8sModel]:
    spec = f"minMember: {min_member}"
    if timeout:
        spec += f", scheduleTimeoutSeconds: {timeout}"
    return objects_from_yaml(
        "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\n"
        f"metadata: {{name: {name}, namespace: default}}\nspec: {{{spec}}}\n"
    )


def _member(name: str, group: str = "g", scheduler: str = "") -> Pod:
    b = make_pod(name).label(**{LABEL: group}).req(cpu="1")
    if scheduler:
        b.scheduler(scheduler)
    return b.obj()


def _config(*extra: str, post_filter_preemption: bool = False) -> dict[str, Any]:
    """scheduler-plugins' reference profile (Coscheduling everywhere, the only queueSort),
    plus in-test plugins; without DefaultPreemption unless asked, so that Coscheduling's
    PostFilter words stand alone."""
    plugins: dict[str, Any] = {
        "multiPoint": {"enabled": [{"name": n} for n in ("Coscheduling", *extra)]},
        "queueSort": {"enabled": [{"name": "Coscheduling"}], "disabled": [{"name": "*"}]},
    }
    if not post_filter_preemption:
        plugins["postFilter"] = {"disabled": [{"name": "DefaultPreemption"}]}
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "plugins": plugins}],
    }


def _run(objects: list[K8sModel], *plugins: type[Any], until: float | None = None) -> Run:
    return run_scenario(
        objects, list(plugins), _config(*(p.name for p in plugins)), installed=True, until=until
    )


def test_pod_group_missing() -> None:
    """README difference 1: held at PreEnqueue with the reason (upstream: scheduled as an
    ordinary pod until Permit says `PodGroup not found`)."""
    run = _run([*nodes(2), _member("w-0")])
    assert run.message("w-0") == "PodGroup default/g not found"
    assert run.condition("w-0") is None
    assert run.events("w-0") == []


def test_too_few_members() -> None:
    """README difference 1 and "In the simulate report": held at PreEnqueue (upstream:
    PreFilter's `pre-filter pod %v cannot find enough sibling pods, ...`)."""
    run = _run([*nodes(2), *_group("g", 2), _member("w-0")])
    assert run.message("w-0") == (
        "podGroup default/g has 1 of the 2 live, ungated members it needs (minMember)"
    )
    assert run.events("w-0") == []


def test_permit_timeout() -> None:
    """The sibling is another scheduler's, so the quorum never comes: the member that
    waits at Permit times out at the PodGroup's scheduleTimeoutSeconds (Go duration)."""
    objs = [*nodes(2), *_group("g", 2, timeout=10), _member("w-0"), _member("w-1", scheduler="x")]
    run = _run(objs)
    message = (
        "0/1 nodes are available: 1 rejected due to timeout after waiting 10s at plugin "
        "Coscheduling."
    )
    assert run.events("w-0") == [message]
    assert run.condition("w-0") == ("False", "Unschedulable", message)


class FlakyAtFirst(FilterPlugin):
    """Rejects `w-1` while a sibling waits at Permit during the first virtual second."""

    name = "FlakyAtFirst"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if pod.metadata.name == "w-1" and self.handle.clock.now() < 1.0:
            waiting: list[str] = []
            self.handle.iterate_over_waiting_pods(lambda wp: waiting.append(wp.pod.key))
            if waiting:
                return Status.unschedulable("flaky")
        return None


def test_post_filter_rejects_the_gang() -> None:
    """coscheduling.go PostFilter: the member that failed gets `PodGroup %v gets rejected
    due to Pod %v is unschedulable even after PostFilter` after its FitError; the waiting
    sibling gets `optimistic rejection in PostFilter` in a one-node FitError. The group
    backs off (1 s), is retried together and binds."""
    objs = [*nodes(2), *_group("g", 2), _member("w-0"), _member("w-1")]
    run = _run(objs, FlakyAtFirst, until=5)
    # PreFilter packs w-1 again (README difference 3) and finds it no longer fits
    assert run.events("w-1") == [
        "0/2 nodes are available: podGroup default/g needs 1 more member placed together; "
        "only 0 fit (pod w-1: 2 flaky). no new claims to deallocate, "
        "PodGroup default/g gets rejected due to Pod w-1 is unschedulable even after PostFilter"
    ]
    assert run.events("w-0") == ["0/1 nodes are available: 1 optimistic rejection in PostFilter."]
    assert run.pod("w-0").spec.node_name and run.pod("w-1").spec.node_name


class NoRoomAtFirst(ReservePlugin):
    """Rejects `w-1` at Reserve during the first virtual second."""

    name = "NoRoomAtFirst"

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if pod.metadata.name == "w-1" and self.handle.clock.now() < 1.0:
            return Status.unschedulable("no room")
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None


def test_unreserve_rejects_the_waiting_siblings() -> None:
    """coscheduling.go Unreserve: the waiting sibling gets `rejection in Unreserve`."""
    objs = [*nodes(2), *_group("g", 2), _member("w-0"), _member("w-1")]
    run = _run(objs, NoRoomAtFirst, until=5)
    assert run.events("w-1") == ["0/1 nodes are available: 1 no room."]
    assert run.events("w-0") == ["0/1 nodes are available: 1 rejection in Unreserve."]
    assert run.pod("w-0").spec.node_name and run.pod("w-1").spec.node_name


def test_gang_that_cannot_fit() -> None:
    """README difference 3: the members still needed are packed first; a gang larger than
    the cluster is rejected at PreFilter with the reason and holds nothing. PostFilter
    then rejects the group, as upstream does for a member no node takes."""
    objs = [*nodes(1, cpu="2"), *_group("g", 3), *(_member(f"w-{i}") for i in range(3))]
    run = _run(objs)
    message = (
        "0/1 nodes are available: podGroup default/g needs 3 more members placed together; "
        "only 2 fit (pod w-2: 1 Insufficient cpu). no new claims to deallocate, "
        "PodGroup default/g gets rejected due to Pod w-0 is unschedulable even after PostFilter"
    )
    assert run.condition("w-0") == ("False", "Unschedulable", message)
