"""The copies of nodes with their nominated pods added (`NominatedCopies`): one per node,
reused while the node and the pods are the same objects, made again when either changes."""

from __future__ import annotations

from kubesched.framework import NodeInfo, PodInfo
from kubesched.runtime._nominated_copies import NominatedCopies
from kubesched.testing import make_node, make_pod


def node(name: str = "n0") -> NodeInfo:
    return NodeInfo(make_node(name).alloc(cpu="4", memory="8Gi", pods=10).obj())


def pod_info(name: str, cpu: str = "1") -> PodInfo:
    return PodInfo(make_pod(name).req(cpu=cpu).obj())


def test_the_copy_has_the_pods_and_the_node_is_left_as_it_was() -> None:
    info, a, b = node(), pod_info("a"), pod_info("b", "2")
    copy = NominatedCopies().with_pods(info, [a, b])
    assert [p.pod.metadata.name for p in copy.pods] == ["a", "b"]
    assert copy.requested.milli_cpu == 3000 and info.requested.milli_cpu == 0
    assert info.pods == []


def test_the_same_node_and_pods_give_the_same_copy() -> None:
    copies, info, a = NominatedCopies(), node(), pod_info("a")
    first = copies.with_pods(info, [a])
    assert copies.with_pods(info, [a]) is first
    # a new list of the same PodInfos is the same input
    assert copies.with_pods(info, list([a])) is first


def test_a_changed_node_or_other_pods_give_a_new_copy() -> None:
    copies, info, a, b = NominatedCopies(), node(), pod_info("a"), pod_info("b")
    first = copies.with_pods(info, [a])
    assert copies.with_pods(info, [a, b]) is not first
    assert len(copies.with_pods(info, [b]).pods) == 1
    # the node gains a pod: its generation moves on, the copy follows
    again = copies.with_pods(info, [a])
    info.add_pod_info(pod_info("bound"))
    fresh = copies.with_pods(info, [a])
    assert fresh is not again and len(fresh.pods) == 2
    # an equal PodInfo that is another object (the pod was updated) is another input
    assert copies.with_pods(info, [pod_info("a")]) is not fresh


def test_keep_only_forgets_the_nodes_no_longer_named() -> None:
    copies, a = NominatedCopies(), pod_info("a")
    n0, n1 = node("n0"), node("n1")
    kept = copies.with_pods(n0, [a])
    copies.with_pods(n1, [a])
    copies.keep_only({"n0"})
    assert len(copies) == 1 and copies.with_pods(n0, [a]) is kept
