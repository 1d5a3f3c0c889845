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


def nominated(name: str, priority: int) -> PodInfo:
    return PodInfo(make_pod(name).priority(priority).req(cpu="1").obj())


def test_with_nominated_counts_equal_or_higher_priority_and_not_the_pod_itself() -> None:
    copies, info = NominatedCopies(), node()
    low, high = nominated("low", 1), nominated("high", 9)
    listed = [low, high]
    both = copies.with_nominated(info, listed, 1, "other")
    assert both is not None and [p.pod.metadata.name for p in both.pods] == ["low", "high"]
    # all count again: the same copy, from the node and the list alone
    assert copies.with_nominated(info, listed, 0, "other") is both
    only_high = copies.with_nominated(info, listed, 5, "other")
    assert only_high is not None and [p.pod.metadata.name for p in only_high.pods] == ["high"]
    mine = copies.with_nominated(info, listed, 1, high.pod.metadata.uid)
    assert mine is not None and [p.pod.metadata.name for p in mine.pods] == ["low"]
    assert copies.with_nominated(info, listed, 10, "other") is None


def test_with_nominated_follows_a_replaced_list() -> None:
    copies, info = NominatedCopies(), node()
    first = [nominated("a", 5)]
    copy = copies.with_nominated(info, first, 5, "other")
    # the nominator replaces the list when the pods change: the new one is read again
    second = [*first, nominated("b", 5)]
    again = copies.with_nominated(info, second, 5, "other")
    assert again is not copy and again is not None and len(again.pods) == 2
