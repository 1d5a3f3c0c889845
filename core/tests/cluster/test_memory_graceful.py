"""Graceful pod deletion in the memory cluster: the API server's grace-period rules
(podStrategy.CheckGracefulDelete, rest.BeforeDelete) and the kubelet's removal once the
period has elapsed on the clock."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta

import pytest

from kubesched.api import Pod
from kubesched.clock import VirtualClock, VirtualTimeLoop
from kubesched.cluster import WatchEvent
from kubesched.cluster.memory import MemoryCluster, default_kinds
from kubesched.cluster.memory._graceful import grace_period_on_delete, shortened_grace_period
from kubesched.testing import make_pod as pod_builder


def make_pod(
    name: str = "p",
    *,
    node: str = "",
    grace: int | None = None,
    phase: str | None = None,
    deletion_grace: int | None = None,
) -> Pod:
    """A pod without a uid (kubesched.testing's builder) and these grace periods."""
    builder = pod_builder(name).uid("").node(node).container(name="c")
    if grace is not None:
        builder.spec(terminationGracePeriodSeconds=grace)
    pod = builder.obj()
    pod.metadata.deletion_grace_period_seconds = deletion_grace
    if phase:
        pod.status.phase = phase
    return pod


# -- the API server's rules -------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "pod", "requested", "want"),
    [
        ("bound, API default", make_pod(node="n1"), None, 30),
        ("bound, the pod's own period", make_pod(node="n1", grace=10), None, 10),
        ("the request wins over the pod's", make_pod(node="n1", grace=10), 5, 5),
        ("a request of 0 is immediate", make_pod(node="n1", grace=10), 0, 0),
        ("the pod's 0 is immediate", make_pod(node="n1", grace=0), None, 0),
        ("not scheduled: immediate", make_pod(grace=30), None, 0),
        ("not scheduled, even when asked for a period", make_pod(), 60, 0),
        ("Succeeded: immediate", make_pod(node="n1", phase="Succeeded"), None, 0),
        ("Failed: immediate", make_pod(node="n1", phase="Failed"), 20, 0),
        ("a negative request counts as 1", make_pod(node="n1"), -5, 1),
        ("a negative pod period counts as 1", make_pod(node="n1", grace=-3), None, 1),
    ],
)
def test_grace_period_on_delete(name: str, pod: Pod, requested: int | None, want: int) -> None:
    assert grace_period_on_delete(pod, requested) == want


@pytest.mark.parametrize(
    ("name", "current", "requested", "want"),
    [
        ("no request: the deletion goes on", 30, None, None),
        ("a longer period is ignored", 30, 40, None),
        ("the same period is ignored", 30, 30, None),
        ("a shorter period is taken", 30, 10, 10),
        ("0 removes it now", 30, 0, 0),
        ("a negative request counts as 1", 30, -1, 1),
        ("no period recorded: removed now", None, None, 0),
        ("a recorded 0: removed now", 0, 20, 0),
    ],
)
def test_shortened_grace_period(
    name: str, current: int | None, requested: int | None, want: int | None
) -> None:
    pod = make_pod(node="n1", deletion_grace=current)
    assert shortened_grace_period(pod, requested) == want


# -- the cluster on virtual time -------------------------------------------------------


class Env:
    """A memory cluster on a virtual-time loop, with a recorder of its Pod events."""

    def __init__(self) -> None:
        self.clock = VirtualClock()
        self.cluster = MemoryCluster(default_kinds(), self.clock, uid_seed=1)
        self.events: list[WatchEvent] = []
        self.cluster.watch("Pod", self.events.append)

    def run(self, main: Callable[[Env], Awaitable[None]]) -> None:
        loop = VirtualTimeLoop(self.clock)
        try:
            loop.run_until_complete(main(self))
        finally:
            loop.close()

    def pod(self, name: str = "p") -> Pod | None:
        pod: Pod | None = self.cluster.get("Pod", name, "default")
        return pod

    def summary(self) -> list[tuple[str, str]]:
        self.cluster.flush()
        return [(e.type, e.obj.metadata.name) for e in self.events]


async def sleep_until(env: Env, t: float) -> None:
    await asyncio.sleep(t - env.clock.now())


def test_a_bound_pod_terminates_for_its_grace_period_then_goes() -> None:
    env = Env()

    async def main(env: Env) -> None:
        created = await env.cluster.create(make_pod(node="n1", grace=20))
        await sleep_until(env, 5)
        await env.cluster.delete("Pod", "p", "default")

        terminating = env.pod()
        assert terminating is not None
        assert terminating.spec.node_name == "n1"  # it keeps its node
        assert terminating.metadata.deletion_grace_period_seconds == 20
        assert terminating.metadata.deletion_timestamp == env.clock.wall_time() + timedelta(
            seconds=20
        )
        assert terminating.metadata.generation == (created.metadata.generation or 0) + 1
        assert env.cluster.busy() and env.cluster.terminating() == 1
        assert env.cluster.termination_ends("p", "default") == 25.0

        await sleep_until(env, 24.9)
        assert env.pod() is not None
        await sleep_until(env, 25.1)
        assert env.pod() is None
        assert env.cluster.termination_ends("p", "default") is None
        assert not env.cluster.busy() and env.cluster.terminating() == 0

    env.run(main)
    assert env.summary() == [("ADDED", "p"), ("MODIFIED", "p"), ("DELETED", "p")]
    modified, deleted = env.events[1], env.events[2]
    assert modified.old.metadata.deletion_timestamp is None
    # the DELETED event carries the pod as it was while terminating
    assert deleted.obj.metadata.deletion_grace_period_seconds == 20


def test_the_api_default_is_30_seconds() -> None:
    env = Env()

    async def main(env: Env) -> None:
        await env.cluster.create(make_pod(node="n1"))
        await env.cluster.delete("Pod", "p", "default")
        await sleep_until(env, 29.9)
        assert env.pod() is not None
        await sleep_until(env, 30.1)
        assert env.pod() is None

    env.run(main)


@pytest.mark.parametrize(
    ("name", "pod", "requested"),
    [
        ("a pending pod", make_pod(), None),
        ("a pod whose period is 0", make_pod(node="n1", grace=0), None),
        ("a forced delete", make_pod(node="n1", grace=30), 0),
        ("a finished pod", make_pod(node="n1", phase="Succeeded"), None),
    ],
)
def test_removed_at_once(name: str, pod: Pod, requested: int | None) -> None:
    env = Env()

    async def main(env: Env) -> None:
        await env.cluster.create(pod)
        await env.cluster.delete("Pod", "p", "default", grace_period_seconds=requested)
        assert env.pod() is None
        assert env.cluster.terminating() == 0

    env.run(main)
    assert env.summary() == [("ADDED", "p"), ("DELETED", "p")]


def test_deleting_again_may_only_shorten_the_grace_period() -> None:
    env = Env()

    async def main(env: Env) -> None:
        await env.cluster.create(make_pod(node="n1", grace=30))
        await env.cluster.delete("Pod", "p", "default")
        first = env.pod()
        assert first is not None and first.metadata.deletion_timestamp is not None

        await sleep_until(env, 4)
        await env.cluster.delete("Pod", "p", "default")  # no period: goes on as it is
        await env.cluster.delete("Pod", "p", "default", grace_period_seconds=45)  # longer
        assert env.pod() is first

        await env.cluster.delete("Pod", "p", "default", grace_period_seconds=10)
        shortened = env.pod()
        assert shortened is not None
        assert shortened.metadata.deletion_grace_period_seconds == 10
        # counted from when the deletion started, not from the second request
        assert shortened.metadata.deletion_timestamp == first.metadata.deletion_timestamp - (
            timedelta(seconds=20)
        )
        assert shortened.metadata.generation == first.metadata.generation
        assert env.cluster.termination_ends("p", "default") == 10.0

        await sleep_until(env, 9.9)
        assert env.pod() is not None
        await sleep_until(env, 10.1)
        assert env.pod() is None
        await sleep_until(env, 40)  # the first timer is gone with the pod

    env.run(main)
    assert env.summary() == [
        ("ADDED", "p"),
        ("MODIFIED", "p"),
        ("MODIFIED", "p"),
        ("DELETED", "p"),
    ]


def test_a_forced_delete_ends_the_termination_and_its_timer() -> None:
    env = Env()

    async def main(env: Env) -> None:
        await env.cluster.create(make_pod(node="n1"))
        await env.cluster.delete("Pod", "p", "default")
        await sleep_until(env, 3)
        await env.cluster.delete("Pod", "p", "default", grace_period_seconds=0)
        assert env.pod() is None and env.cluster.terminating() == 0
        # a new pod under the same name is not removed by the old pod's timer
        await env.cluster.create(make_pod(node="n1"))
        await sleep_until(env, 31)
        assert env.pod() is not None

    env.run(main)
    assert env.summary() == [
        ("ADDED", "p"),
        ("MODIFIED", "p"),
        ("DELETED", "p"),
        ("ADDED", "p"),
    ]


def test_an_update_cannot_change_the_deletion_fields() -> None:
    env = Env()

    async def main(env: Env) -> None:
        await env.cluster.create(make_pod(node="n1"))
        await env.cluster.delete("Pod", "p", "default")
        terminating = env.pod()
        assert terminating is not None
        meta = terminating.metadata.model_copy(
            update={"deletion_timestamp": None, "deletion_grace_period_seconds": None}
        )
        updated = await env.cluster.update(terminating.model_copy(update={"metadata": meta}))
        assert updated.metadata.deletion_timestamp == terminating.metadata.deletion_timestamp
        assert updated.metadata.deletion_grace_period_seconds == 30

        fresh = await env.cluster.create(make_pod("q", node="n1"))
        meta = fresh.metadata.model_copy(update={"deletion_timestamp": env.clock.wall_time()})
        updated = await env.cluster.update(fresh.model_copy(update={"metadata": meta}))
        assert updated.metadata.deletion_timestamp is None

    env.run(main)


def test_a_terminating_pod_cannot_be_bound() -> None:
    env = Env()

    async def main(env: Env) -> None:
        await env.cluster.create(make_pod(node="n1"))
        await env.cluster.delete("Pod", "p", "default")
        pod = env.pod()
        assert pod is not None
        with pytest.raises(Exception, match="pod p is being deleted"):
            await env.cluster.bind(pod, "n2")

    env.run(main)
