"""OwnedPods, the controllers' index of their pods: what a controller wrote itself is never
undone by the delivery of older events, and the counts follow every change."""

from __future__ import annotations

from datetime import UTC, datetime

from kubesched.api import Pod
from kubesched.testing import make_pod
from kubesched.workloads._reconciler import OwnedPods


def _pod(rv: int, node: str = "", *, terminating: bool = False) -> Pod:
    pod = make_pod("p").obj()
    pod.metadata.uid = "u1"
    pod.metadata.resource_version = str(rv)
    pod.spec.node_name = node
    if terminating:
        pod.metadata.deletion_timestamp = datetime(2026, 1, 1, tzinfo=UTC)
    return pod


def test_counts_follow_creation_binding_termination_and_deletion() -> None:
    index = OwnedPods()
    index.seen(_pod(1), "rs", deleted=False)
    assert index.counts("rs") == (1, 0)
    index.seen(_pod(2, "n1"), "rs", deleted=False)
    assert index.counts("rs") == (1, 1)
    index.seen(_pod(3, "n1", terminating=True), "rs", deleted=False)
    assert index.counts("rs") == (0, 0)
    assert [p.metadata.resource_version for p in index.of("rs")] == ["3"]
    index.seen(_pod(3, "n1", terminating=True), "rs", deleted=True)
    assert (index.counts("rs"), index.of("rs")) == ((0, 0), [])


def test_an_older_event_does_not_undo_a_newer_version() -> None:
    index = OwnedPods()
    index.seen(_pod(5, "n1"), "rs", deleted=False)  # the controller's own write
    index.seen(_pod(4), "rs", deleted=False)  # an earlier write's event, delivered late
    assert [p.spec.node_name for p in index.of("rs")] == ["n1"]
    assert index.counts("rs") == (1, 1)


def test_a_deleted_pod_is_not_indexed_again_by_a_late_event() -> None:
    index = OwnedPods()
    index.seen(_pod(1), "rs", deleted=False)
    index.seen(_pod(1), "rs", deleted=True)  # the controller deleted it
    index.seen(_pod(2, "n1"), "rs", deleted=False)  # a bind written before, delivered late
    assert (index.of("rs"), index.counts("rs")) == ([], (0, 0))
