"""A pod bound while the scheduler's pod watch was down, and deleted before its informer
listed again, does not stay assumed (found by the soak against the fake API server, issue
18: such pods piled up until they held every node).

The relist delivers the pod's delete with the last state the informer saw, still unbound,
so the cache's handler (assigned pods) never gets it: the queue's handler now forgets the
assumed pod and requeues the pods waiting, as upstream's later handleAssumedPodDeletion.
"""

from __future__ import annotations

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import add_ready_node, eventually, fake_server, run, scheduling

from kubesched.testing.apiserver import Fault, Target, node_raw, pod_raw


def _node_of(server: object, name: str) -> str:
    pod = server.get("v1/pods", f"default/{name}")  # type: ignore[attr-defined]
    return "" if pod is None else str(pod["spec"].get("nodeName") or "")


def test_a_pod_deleted_while_the_informer_missed_its_binding_frees_its_node() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1", cpu="2"))
            async with scheduling(server) as (_, sched):
                blocked: list[Fault] = []

                async def before_bind(namespace: str, name: str, node: str) -> None:
                    # the pod informer's watch ends and it can neither list nor watch again
                    # until released: the binding about to be stored goes unseen
                    fault = server.fail("*", "/api/v1/pods", 503, "ServiceUnavailable", times=-1)
                    blocked.append(fault)
                    server.drop_watches()
                    await eventually(lambda: fault.hits >= 2, "the pod informer tried again")

                server.before_bind = before_bind
                server.add("v1/pods", pod_raw("p", cpu="2"))
                await eventually(lambda: _node_of(server, "p") == "n1", "p bound")
                server.before_bind = None
                cached = {p.pod.metadata.name: p.pod for p in sched.cache.dump()["n1"].pods}
                await eventually(
                    lambda: sched.cache.is_binding_finished(cached["p"]), "p's binding finished"
                )
                assert sched.cache.is_assumed_pod(cached["p"])  # its binding never seen
                # p goes while unseen, q (the whole node's cpu) comes; the history is
                # compacted, so the informer, released, lists again (410 on its watch)
                server.delete(Target("v1/pods", "default", "p", None), 0)
                server.add("v1/pods", pod_raw("q", cpu="2"))
                server.compact()
                blocked[0].times = 0
                await eventually(lambda: _node_of(server, "q") == "n1", "q bound where p was")
                await eventually(lambda: sched.cache.assumed_pod_count() == 0, "nothing assumed")
                names = {p.pod.metadata.name for p in sched.cache.dump()["n1"].pods}
                assert names == {"q"}

    run(scenario)
