"""The modelling decision behind invariant 2 of test_invariants (docs/reliability.md): a
node deleted under a bound pod leaves the pod bound to it (the API server does not unbind
pods, and the pod GC controller that would delete them is not run here: `simulate
--scenario` runs it, tests/test_scenario.py); the scheduler's
cache keeps the pod on a node info without a node, as upstream's cache does
(pkg/scheduler/backend/cache/cache.go RemoveNode), and binds nothing new there."""

from __future__ import annotations

from _driver import Cluster

from kubesched.api import Pod
from kubesched.testing import make_node, make_pod


def _pod(cluster: Cluster, name: str) -> Pod:
    pod = cluster.cluster.get("Pod", name, "default")
    assert isinstance(pod, Pod)
    return pod


def test_pod_stays_bound_to_its_deleted_node_and_nothing_new_lands_there() -> None:
    c = Cluster()
    try:
        c.do(c.cluster.create(make_node("a").alloc(cpu="2", memory="1Gi", pods=10).obj()))
        c.do(c.cluster.create(make_pod("old").req(cpu="1").obj()))
        c.settle(10)
        assert _pod(c, "old").spec.node_name == "a"

        c.do(c.cluster.delete("Node", "a"))
        c.do(c.cluster.create(make_pod("new").req(cpu="1").obj()))
        c.settle(10)

        assert _pod(c, "old").spec.node_name == "a"
        assert _pod(c, "new").spec.node_name == ""
        info = c.scheduler.cache.dump()["a"]
        assert info.node is None
        assert [p.pod.metadata.name for p in info.pods] == ["old"]
        queued = [
            q.pod.metadata.name for qs in c.scheduler.queue.pending_pods().values() for q in qs
        ]
        assert queued == ["new"]
    finally:
        c.close()
