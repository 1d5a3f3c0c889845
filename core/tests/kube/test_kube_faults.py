"""`kubesched run`'s scheduler against the fake API server with faults on the binding
call (issue 18): 409, 429 and 500 answers. Each is the pod's Error: Unreserve runs, the
assumed pod is forgotten, the pod is retried after its backoff and bound exactly once.

Needs the `kube` extra (kubernetes_asyncio and its aiohttp): skipped without it.
"""

from __future__ import annotations

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import Recorder, add_ready_node, eventually, fake_server, run, scheduling

from kubesched.testing.apiserver import node_raw, pod_raw

ANSWERS = [
    ("a", 409, "Conflict", 'Operation cannot be fulfilled on pods/binding "a": conflict'),
    ("b", 429, "TooManyRequests", "too many requests, please try again later"),
    ("c", 500, "InternalError", "etcdserver: request timed out"),
]


def test_binding_errors_are_unreserved_retried_and_bound_once() -> None:
    async def scenario() -> tuple[list[tuple[str, str, str]], dict[str, int], dict[str, str]]:
        async with fake_server() as server:
            add_ready_node(server, node_raw("n1", cpu="8"))
            for name, code, reason, message in ANSWERS:
                server.add("v1/pods", pod_raw(name, cpu="1"))
                path = f"/api/v1/namespaces/default/pods/{name}/binding"
                server.fail("POST", path, code, reason, message)
            async with scheduling(server) as (cluster, _):

                def all_bound() -> bool:
                    pods = [cluster.get("Pod", n, "default") for n, *_ in ANSWERS]
                    return all(p is not None and p.spec.node_name for p in pods)

                await eventually(all_bound, "every pod bound after its failed binding")
                posts = {
                    name: len(server.requests_to("POST", f"/pods/{name}/binding"))
                    for name, *_ in ANSWERS
                }
                nodes = {n: cluster.get("Pod", n, "default").spec.node_name for n, *_ in ANSWERS}
            return list(Recorder.calls), posts, nodes

    calls, posts, nodes = run(scenario)
    # the failed POST and the one that bound: no third (no double bind, no lost retry)
    assert posts == {"a": 2, "b": 2, "c": 2}
    assert nodes == {"a": "n1", "b": "n1", "c": "n1"}
    for name, *_ in ANSWERS:
        mine = [kind for kind, pod, _ in calls if pod == name]
        # upstream schedule_one.go: a binding failure runs Unreserve, then the retry
        assert mine == ["reserve", "unreserve", "reserve"], (name, mine)
