"""Permit, PostFilter, Unreserve and the quorum count.

Upstream cases: scheduler-plugins pkg/coscheduling/coscheduling_test.go (TestPermit,
TestPostFilter, TestPostFilterRejectThreshold) and core/core_test.go (TestPermit).
"""

from __future__ import annotations

from typing import Any

import pytest
from cosched_helpers import Env, pod_group

from kubesched import ConfigError
from kubesched.api import Pod
from kubesched.framework import Code, CycleState, NodeToStatus, Status
from kubesched.testing import make_node, make_pod
from kubesched_coscheduling import POD_GROUP_LABEL


def member(name: str, group: str, ns: str = "ns1", node: str | None = None) -> Pod:
    b = make_pod(name, ns, uid=name).label(**{POD_GROUP_LABEL: group}).req(cpu="100m")
    if node is not None:
        b.node(node)
    return b.obj()


def node(name: str = "node") -> Any:
    return make_node(name).alloc(cpu="40", pods=110).obj()


def permit(env: Env, pod: Pod, node_name: str = "node") -> Status:
    """Assume the pod and run the profile's Permit plugins (it may join the waiting map)."""
    assumed = env.assume(pod, node_name)
    return env.call(lambda: env.fwk.run_permit_plugins(CycleState(), assumed, node_name))


# -- TestPermit (coscheduling_test.go and core_test.go) -------------------------------


@pytest.mark.parametrize(
    ("pod", "existing", "code", "message"),
    [
        pytest.param(
            make_pod("pod1", "ns1", uid="pod1").obj(), [], Code.Success, "", id="no podGroup"
        ),
        pytest.param(
            member("pod1", "pg1"), [], Code.Wait, None, id="podGroup without quorum waits"
        ),
        pytest.param(member("pod1", "pg2"), [], Code.Success, "", id="minMember 1 is allowed"),
        pytest.param(
            member("p", "pg-non-existent"),
            [],
            Code.Unschedulable,
            "PodGroup not found",
            id="pod specifies a non-existent pg",
        ),
        pytest.param(
            member("p1a", "pg1"),
            [member("p1b", "pg1", node="node")],
            Code.Success,
            "",
            id="pod belongs to a pg that have quorum satisfied",
        ),
    ],
)
def test_permit(pod: Pod, existing: list[Pod], code: Code, message: str | None) -> None:
    groups = [pod_group("pg1", 2, namespace="ns1"), pod_group("pg2", 1, namespace="ns1")]
    env = Env([node(), *groups, *existing, pod])
    try:
        status = permit(env, pod)
        assert status.code is code
        if message is not None:
            assert status.message() == message
    finally:
        env.close()


@pytest.mark.parametrize(
    ("timeout", "permit_wait", "want"),
    [(10, 60, 10.0), (None, 3, 3.0), (None, 0, 60.0), (0, 5, 5.0)],
)
def test_wait_uses_the_group_timeout_then_the_args_then_60s(
    timeout: int | None, permit_wait: int, want: float
) -> None:
    pods = [member("a", "pg"), member("b", "pg")]
    env = Env(
        [node(), pod_group("pg", 2, namespace="ns1", timeout=timeout), *pods],
        args={"permitWaitingTimeSeconds": permit_wait},
    )
    try:
        assumed = env.assume(pods[0], "node")
        status, wait = env.call(lambda: env.plugin.permit(CycleState(), assumed, "node"))
        assert status is not None and status.code is Code.Wait
        assert wait == want
    finally:
        env.close()


def test_one_deadline_per_group_from_its_first_waiter() -> None:
    pods = [member(f"w{i}", "pg") for i in range(3)]
    env = Env([node(), pod_group("pg", 3, namespace="ns1", timeout=10), *pods])
    try:
        assert permit(env, pods[0]).code is Code.Wait
        env.clock.advance(4.0)
        assumed = env.assume(pods[1], "node")
        status, wait = env.call(lambda: env.plugin.permit(CycleState(), assumed, "node"))
        assert status is not None and status.code is Code.Wait
        assert wait == pytest.approx(6.0)
    finally:
        env.close()


def test_reaching_the_quorum_allows_every_waiting_sibling() -> None:
    pods = [member(f"w{i}", "pg") for i in range(3)]
    env = Env([node(), pod_group("pg", 3, namespace="ns1"), *pods])
    try:
        assert permit(env, pods[0]).code is Code.Wait
        assert permit(env, pods[1]).code is Code.Wait
        assert permit(env, pods[2]).code is Code.Success
        for pod in pods[:2]:
            wp = env.fwk.get_waiting_pod(pod.metadata.uid)
            assert wp is not None and wp.get_pending_plugins() == []
            assert env.run(wp.wait()).is_success
        assert env.plugin._groups.holders() == []
    finally:
        env.close()


def test_members_beyond_min_member_do_not_wait() -> None:
    bound = [member(f"b{i}", "pg", node="node") for i in range(2)]
    extra = member("extra", "pg")
    env = Env([node(), pod_group("pg", 2, namespace="ns1"), *bound, extra])
    try:
        assert permit(env, extra).code is Code.Success
    finally:
        env.close()


def test_a_rejected_waiting_member_does_not_count_toward_the_quorum() -> None:
    """scheduler-plugins #930: the quorum is read from the waiting map and the snapshot by
    UID, so a member rejected while waiting cannot make a later one pass alone."""
    pods = [member(f"w{i}", "pg") for i in range(3)]
    env = Env([node(), pod_group("pg", 2, namespace="ns1"), *pods])
    try:
        assert permit(env, pods[0]).code is Code.Wait
        # a sibling fails elsewhere: PostFilter rejects the waiting member
        _, status = env.call(lambda: env.plugin.post_filter(CycleState(), pods[2], NodeToStatus()))
        assert status is not None and "gets rejected" in status.message()
        # w0 is still assumed in the snapshot and still in the waiting map, but rejected
        status = permit(env, pods[1])
        assert status.code is Code.Wait
    finally:
        env.close()


# -- TestPostFilter (coscheduling_test.go) --------------------------------------------


@pytest.mark.parametrize(
    ("pod", "bound", "message"),
    [
        pytest.param(
            make_pod("pod1", "ns1", uid="pod1").obj(), 0, "can not find pod group", id="no group"
        ),
        pytest.param(member("pod1", "pg"), 10, "", id="enough pods assigned, do not reject all"),
        pytest.param(
            member("pod1", "pg"),
            0,
            "PodGroup ns1/pg gets rejected due to Pod pod1 is unschedulable even after PostFilter",
            id="pod failed at filter phase, reject all pods",
        ),
    ],
)
def test_post_filter(pod: Pod, bound: int, message: str) -> None:
    existing = [member(f"b{i}", "pg", node="node") for i in range(bound)]
    env = Env([node(), pod_group("pg", 2, namespace="ns1"), *existing, pod])
    try:
        _, status = env.call(lambda: env.plugin.post_filter(CycleState(), pod, NodeToStatus()))
        assert status is not None and status.code is Code.Unschedulable
        assert status.message() == message
    finally:
        env.close()


@pytest.mark.parametrize(
    ("assigned", "percentage", "rejected"),
    [
        (9, 10, False),  # 1 of 10 missing = 10%: tolerated
        (9, 9, True),
        (8, 10, True),  # 20% missing
        (8, 20, False),
        (0, 100, False),  # 100: never reject
        (9, 0, True),  # 0: always reject
    ],
)
def test_post_filter_reject_threshold(assigned: int, percentage: int, rejected: bool) -> None:
    waiting = [member(f"w{i}", "pg") for i in range(assigned)]
    failing = member("failing", "pg")
    env = Env(
        [node(), pod_group("pg", 10, namespace="ns1"), *waiting, failing],
        args={"podGroupRejectPercentage": percentage},
    )
    try:
        for pod in waiting:
            assert permit(env, pod).code is Code.Wait
        _, status = env.call(lambda: env.plugin.post_filter(CycleState(), failing, NodeToStatus()))
        assert status is not None and status.code is Code.Unschedulable
        assert bool(status.message()) is rejected
        still_waiting = [
            p
            for p in waiting
            if (wp := env.fwk.get_waiting_pod(p.metadata.uid)) and wp.get_pending_plugins()
        ]
        assert len(still_waiting) == (0 if rejected else assigned)
    finally:
        env.close()


# -- Unreserve -----------------------------------------------------------------------


def test_unreserve_rejects_waiting_siblings_and_backs_the_group_off_once() -> None:
    pods = [member(f"w{i}", "pg") for i in range(3)]
    env = Env([node(), pod_group("pg", 3, namespace="ns1", timeout=10), *pods])
    try:
        assert permit(env, pods[0]).code is Code.Wait
        assert permit(env, pods[1]).code is Code.Wait
        env.clock.advance(10.0)
        env.call(lambda: env.plugin.unreserve(CycleState(), pods[0], "node"))
        wp = env.fwk.get_waiting_pod(pods[1].metadata.uid)
        assert wp is not None
        result = env.run(wp.wait())
        assert result.code is Code.Unschedulable
        assert result.message() == "rejection in Unreserve"
        # the rejected sibling's own Unreserve does not count a second failure
        env.call(lambda: env.plugin.unreserve(CycleState(), pods[1], "node"))
        group = env.plugin._groups.get("ns1/pg")
        assert group.failures == 1
        assert group.cause == "the quorum was not reached within 10s"
        assert group.backoff_until == pytest.approx(11.0)
    finally:
        env.close()


@pytest.mark.parametrize(("failures", "want"), [(1, 2.0), (2, 4.0), (3, 8.0), (4, 8.0)])
def test_group_backoff_doubles_up_to_its_cap(failures: int, want: float) -> None:
    pods = [member("a", "pg"), member("b", "pg")]
    env = Env(
        [node(), pod_group("pg", 2, namespace="ns1"), *pods],
        args={"podGroupBackoffSeconds": 2, "podGroupMaxBackoffSeconds": 8},
    )
    try:
        group = env.plugin._groups.get("ns1/pg")
        for _ in range(failures):
            group.holding = True
            env.plugin._outcomes.fail_group("ns1/pg", "rejected", "test")
        assert group.backoff_until == pytest.approx(want)
    finally:
        env.close()


# -- misconfiguration ------------------------------------------------------------------


def test_permit_without_reserve_is_an_error() -> None:
    points = {"QueueSort": ["Coscheduling"], "Permit": ["Coscheduling"], "Bind": ["DefaultBinder"]}
    with pytest.raises(ConfigError) as err:
        Env([node()], points=points)
    assert str(err.value) == (
        "profile 'default-scheduler': initializing plugin \"Coscheduling\": ValueError: "
        "Coscheduling is enabled at permit but not at reserve: its Unreserve releases a "
        "failed group's waiting members; enable it at reserve too (multiPoint does)"
    )


def test_postfilter_before_another_plugin_is_an_error() -> None:
    points = {
        "QueueSort": ["Coscheduling"],
        "PostFilter": ["Coscheduling", "DefaultPreemption"],
        "Reserve": ["Coscheduling"],
        "Permit": ["Coscheduling"],
        "Bind": ["DefaultBinder"],
    }
    with pytest.raises(ConfigError) as err:
        Env([node()], points=points)
    assert str(err.value) == (
        "profile 'default-scheduler': initializing plugin \"Coscheduling\": ValueError: "
        "Coscheduling must be the last postFilter plugin, but DefaultPreemption runs after "
        "it: it rejects a failed member's waiting siblings, which only makes sense once "
        "preemption has had its turn; disable and re-enable the others before it"
    )
