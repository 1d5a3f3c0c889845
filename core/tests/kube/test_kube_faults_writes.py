"""The scheduler's other writes against the fake API server's faults (issue 18): the
pods/status patch (PodScheduled=False and nominatedNodeName), preemption victims' DELETE,
Events, and the Lease's renewal.

Upstream's answers: the status patch is util.PatchPodStatus, retried on an internal
error, service unavailable or a refused connection (client-go retry.DefaultBackoff, 4
tries), else logged "Error updating pod" and dropped; a victim's DELETE is util.DeletePod,
and one that fails fails the preemption, whose preemptor is activated to try again
(preemption.go prepareCandidateAsync); an Event is retried only when the request got no
answer (client-go events recordToSink), a 409 AlreadyExists after a create that took effect
is dropped; a Lease renewal that times out is tried again every retryPeriod, and
leadership holds while within renewDeadline (leaderelection.go renew).

Needs the `kube` extra (kubernetes_asyncio and its aiohttp): skipped without it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import (
    PLUGINS,
    add_ready_node,
    cluster_on,
    eventually,
    fake_server,
    run,
    scheduling,
)
from test_kube_faults_binding import bound_nodes, check_cache_is_the_cluster, idle

from kubesched.api import Pod
from kubesched.clock import WallClock
from kubesched.cluster.kube import ApiError, KubeLeaseLock, Transport
from kubesched.cluster.kube._cluster import retriable
from kubesched.config import parse_config, resolve
from kubesched.framework import (
    CycleState,
    NodeInfo,
    NodeToStatus,
    PostFilterPlugin,
    PostFilterResult,
    Status,
)
from kubesched.framework.preemption import Candidate, Evaluator, ScoreFunc, Victims
from kubesched.run import LeaderElector
from kubesched.runtime import PluginRegistry
from kubesched.scheduler import new_scheduler
from kubesched.testing.apiserver import FakeApiServer, Raw, node_raw, pod_raw

STATUS = "/api/v1/namespaces/*/pods/*/status"

TIMEOUT = 0.5
"""The client's request timeout in these tests (kubesched's default is 30 s)."""

TIMED_OUT: dict[str, Any] = {"code": 504, "reason": "Timeout", "delay": 1.5}
"""A request that never takes effect, answered after the client gave up on it."""
EVENTS = "/apis/events.k8s.io/v1/namespaces/default/events"


def conditions(server: FakeApiServer, name: str) -> dict[str, str]:
    """The pod's conditions on the server: type to reason."""
    pod = server.objects["v1/pods"][f"default/{name}"]
    return {c["type"]: c.get("reason", "") for c in pod.get("status", {}).get("conditions", [])}


# -- pods/status --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fault", "patches", "lands"),
    [
        ({"code": 500, "reason": "InternalError", "times": 2}, 3, True),
        ({"code": 503, "reason": "ServiceUnavailable", "times": 3}, 4, True),
        ({"code": 500, "reason": "InternalError", "times": 4}, 4, False),
        ({"code": 429, "reason": "TooManyRequests"}, 1, False),
        ({"code": 429, "reason": "TooManyRequests", "retry_after": 0, "times": 2}, 3, True),
        (TIMED_OUT, 1, False),
    ],
    ids=["500-twice", "503-three-times", "500-four-times", "429", "429-retry-after", "timeout"],
)
def test_the_status_patch_is_retried_as_patch_pod_status(
    fault: dict[str, Any], patches: int, lands: bool, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1", cpu="1"))
            server.add("v1/pods", pod_raw("big", cpu="2"))
            server.fail("PATCH", STATUS, **fault)
            async with scheduling(server) as (cluster, sched):
                cluster.transport.request_timeout = TIMEOUT
                await eventually(
                    lambda: len(server.requests_to("PATCH", "/pods/big/status")) >= patches,
                    "the status patches",
                )
                await eventually(lambda: not sched.busy, "the attempt's writes done")
            assert len(server.requests_to("PATCH", "/pods/big/status")) == patches
            written = conditions(server, "big").get("PodScheduled")
            assert written == ("Unschedulable" if lands else None)

    run(scenario)
    assert ("Error updating pod default/big" in caplog.text) is not lands


def test_a_refused_connection_is_retriable_and_a_timeout_is_not() -> None:
    # util.Retriable: net.IsConnectionRefused; a write that timed out may have taken effect
    assert retriable(ApiError(0, "", "refused", network="refused"))
    assert not retriable(ApiError(0, "", "timed out", network="timeout"))
    assert not retriable(ApiError(409, "Conflict", "the object has been modified"))
    assert retriable(ApiError(500, "", "no Status in the answer"))


# -- preemption victims' DELETE -------------------------------------------------------------
class EvictLower(PostFilterPlugin):
    """A preemption policy of its own over the generic evaluator: every lower-priority
    pod on a node is a victim (core's tests cannot use kubesched-builtin's
    DefaultPreemption)."""

    name: ClassVar[str] = "KubeTestEvictLower"

    def __init__(self, args: Any, handle: Any) -> None:
        super().__init__(args, handle)
        self.evaluator = Evaluator(self.name, handle, self)

    def post_filter(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        return self.evaluator.preempt(state, pod, filtered_node_status_map)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        return 0, num_nodes

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]:
        return {c.name: c.victims for c in candidates}

    def pod_eligible_to_preempt_others(
        self, pod: Pod, nominated_node_status: Status | None
    ) -> tuple[bool, str]:
        return True, ""

    def select_victims_on_node(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, pdbs: Sequence[Any]
    ) -> tuple[list[Pod], int, Status]:
        lower = [p.pod for p in node_info.pods if p.pod.priority < pod.priority]
        if not lower:
            return [], 0, Status.unschedulable("nothing to evict")
        return lower, 0, Status()

    def ordered_score_funcs(self, nodes_to_victims: Mapping[str, Victims]) -> list[ScoreFunc]:
        return []


def _victim() -> Raw:
    raw = pod_raw("low", cpu="2", node="n1")
    raw["spec"]["terminationGracePeriodSeconds"] = 0  # deleted at once
    return raw


def _preemptor() -> Raw:
    raw = pod_raw("high", cpu="2")
    raw["spec"]["priorityClassName"] = "system-cluster-critical"
    return raw


def _victim_and_preemptor(server: FakeApiServer) -> str:
    """n1 full with `low`, and `high` pending that needs its room; `low`'s path."""
    add_ready_node(server, node_raw("n1", cpu="2"))
    server.add("v1/pods", _victim())
    server.add("v1/pods", _preemptor())
    return "/api/v1/namespaces/default/pods/low"


async def _preempt(server: FakeApiServer) -> None:
    """Schedule with EvictLower until `high` is bound and nothing is left queued or assumed,
    then check the cache against the server."""
    plugins = [*PLUGINS, EvictLower]
    config: dict[str, Any] = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {"multiPoint": {"enabled": [{"name": p.name} for p in plugins]}},
            }
        ],
    }
    resolved = resolve(parse_config(config), PluginRegistry.of(*plugins))
    async with cluster_on(server) as cluster:
        cluster.transport.request_timeout = TIMEOUT
        sched = new_scheduler(
            cluster, resolved, {p.name: p for p in plugins}, clock=WallClock(), seed=1
        )
        sched.start_watching()
        task = asyncio.get_running_loop().create_task(sched.run())
        try:
            await eventually(lambda: "high" in bound_nodes(server), "high bound", 15)
            await eventually(lambda: idle(sched), "nothing queued or assumed")
            check_cache_is_the_cluster(sched, server)
        finally:
            sched.stop()
            await sched.drain()
            await asyncio.gather(task, return_exceptions=True)
            await sched.recorder.shutdown()


@pytest.mark.parametrize(
    "fault",
    [
        {"code": 500, "reason": "InternalError"},
        {"code": 429, "reason": "TooManyRequests"},
        {"cut": True, "commit": True},
        TIMED_OUT,
    ],
    ids=["500", "429", "cut-after-commit", "timeout"],
)
def test_a_failed_victim_delete_fails_the_preemption_and_the_preemptor_tries_again(
    fault: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            victim = _victim_and_preemptor(server)
            injected = server.fail("DELETE", victim, **fault)
            await _preempt(server)
            assert injected.hits == 1
            assert bound_nodes(server) == {"high": "n1"}
            assert "default/low" not in server.objects["v1/pods"]
            deletes = len(server.requests_to("DELETE", victim))
            if fault.get("commit"):
                # the first took effect; a replay (aiohttp's, of an idempotent request on
                # a reused connection) found nothing: NotFound is a victim gone, no failure
                assert deletes in (1, 2)
            else:
                # the failed DELETE failed the preemption; the preemptor was activated,
                # preempted again, and the second DELETE went through
                assert deletes == 2
                assert "preempting for pod default/high on node n1 failed" in caplog.text

    with caplog.at_level(logging.ERROR):
        run(scenario, timeout=30)


def test_a_failed_disruption_target_patch_fails_the_preemption_before_the_delete(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            victim = _victim_and_preemptor(server)
            # not retriable (util.Retriable): the first patch fails for good
            injected = server.fail("PATCH", f"{victim}/status", 403, "Forbidden")
            await _preempt(server)
            assert injected.hits == 1
            assert bound_nodes(server) == {"high": "n1"}
            patches = server.requests_to("PATCH", f"{victim}/status")
            deletes = server.requests_to("DELETE", victim)
            # preemption.go PreemptPod: the failed patch returned before the DELETE; the
            # preemptor, activated, preempted again: the second patch and the one DELETE
            assert len(patches) == 2 and len(deletes) == 1
            assert patches[0].at < patches[1].at < deletes[0].at
            assert "Could not add DisruptionTarget condition due to preemption" in caplog.text
            assert "preempting for pod default/high on node n1 failed" in caplog.text

    with caplog.at_level(logging.ERROR):
        run(scenario, timeout=30)


# -- Events ---------------------------------------------------------------------------------
def scheduled_events(server: FakeApiServer) -> list[Raw]:
    events = server.objects.get("events.k8s.io/v1/events", {}).values()
    return [e for e in events if e["reason"] == "Scheduled"]


@pytest.mark.parametrize(
    ("fault", "posts", "written", "logged"),
    [
        ({"code": 500, "reason": "InternalError"}, 1, 0, "Server rejected event (will not retry!)"),
        ({"cut": True}, 2, 1, "Unable to write event (may retry after sleeping)"),
        ({"cut": True, "commit": True}, 2, 1, "Unable to write event (may retry after sleeping)"),
        ({"code": 429, "reason": "TooManyRequests", "retry_after": 0}, 2, 1, ""),
        (
            {"delay": 1.5, "commit": True},
            2,
            1,
            "Unable to write event (may retry after sleeping)",
        ),
    ],
    ids=[
        "500-dropped",
        "cut-retried",
        "cut-after-commit-once",
        "429-retry-after",
        "timeout-after-commit-once",
    ],
)
def test_event_writes_against_faults(
    fault: dict[str, Any],
    posts: int,
    written: int,
    logged: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1"))
            server.add("v1/pods", pod_raw("p", cpu="1"))
            server.fail("POST", EVENTS, **fault)
            async with scheduling(server, retry_sleep=0.05) as (cluster, sched):
                cluster.transport.request_timeout = TIMEOUT  # the events client's too
                await eventually(lambda: "p" in bound_nodes(server), "p bound")
                await eventually(
                    lambda: len(server.requests_to("POST", EVENTS)) >= posts, "the writes"
                )
                await eventually(lambda: not sched.recorder.busy, "events settled")
            assert len(server.requests_to("POST", EVENTS)) == posts
            # an Event created by the first write and sent again is there once: the second
            # create's 409 AlreadyExists is dropped
            assert len(scheduled_events(server)) == written

    with caplog.at_level(logging.ERROR, logger="kubesched.events"):
        run(scenario)
    if logged:
        assert caplog.text.count(logged) == 1
    else:
        assert "event" not in caplog.text.lower()


# -- the Lease ------------------------------------------------------------------------------
LEASE = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubesched"


@pytest.mark.parametrize(
    "fault",
    [{"delay": 1.0, "times": 3}, {"cut": True, "times": 4}],
    ids=["timeouts", "cuts"],
)
def test_renewals_that_time_out_keep_leadership_within_the_renew_deadline(
    fault: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            transport = Transport.for_host(server.url, request_timeout=0.3)
            lock = KubeLeaseLock(transport, "kube-system", "kubesched", "a")
            elector = LeaderElector(
                lock, lease_duration=6, renew_deadline=4, retry_period=0.5, clock=WallClock()
            )
            try:
                await elector.acquire()
                renewing = asyncio.ensure_future(elector.renew())
                await asyncio.sleep(0.2)
                injected = server.fail("PUT", LEASE, **fault)
                await eventually(lambda: injected.times == 0, "every faulty renewal tried")
                puts = len(server.requests_to("PUT", LEASE))
                await eventually(
                    lambda: len(server.requests_to("PUT", LEASE)) > puts + 2, "renewing again"
                )
                assert not renewing.done(), "leadership was lost"
                assert elector.is_leader()
                renewing.cancel()
                await asyncio.gather(renewing, return_exceptions=True)
            finally:
                await transport.close()
            lease = server.get("coordination.k8s.io/v1/leases", "kube-system/kubesched")
            assert lease is not None and lease["spec"]["holderIdentity"] == "a"

    with caplog.at_level(logging.INFO):
        run(scenario)
    assert "Failed to update lock" in caplog.text
    assert "Failed to renew lease" not in caplog.text
