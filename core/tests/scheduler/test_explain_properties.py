"""For random small clusters, with preemptions in flight, every explanation agrees with
the decision: the bound node is feasible in it and, where scores do not tie, it is the
one node the explanation scores best."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sched_harness import CpuFit, FreeCpu, NominateFirst, make_simulation

from kubesched.scheduler import Explanation
from kubesched.testing import make_node, make_pod


@st.composite
def clusters(draw: st.DrawFn) -> tuple[list[Any], list[str]]:
    n_nodes = draw(st.integers(1, 4))
    objs: list[Any] = [
        make_node(f"n{i}").alloc(cpu=str(draw(st.integers(2, 8)))).obj() for i in range(n_nodes)
    ]
    for i in range(draw(st.integers(0, 3))):
        node = f"n{draw(st.integers(0, n_nodes - 1))}"
        objs.append(make_pod(f"bound{i}").req(cpu=str(draw(st.integers(1, 3)))).node(node).obj())
    pending = [f"p{i}" for i in range(draw(st.integers(1, 4)))]
    for name in pending:
        cpu, priority = draw(st.integers(1, 6)), draw(st.sampled_from([0, 100]))
        objs.append(make_pod(name).req(cpu=str(cpu)).priority(priority).obj())
    return objs, pending


def _check(exp: Explanation, node: str | None) -> None:
    nodes = {n.node: n for n in exp.nodes}
    scored = {n.node: n.total for n in exp.nodes if n.total is not None}
    assert all(nodes[name].feasible for name in scored)
    if node is None:
        if exp.outcome.startswith("Unschedulable: "):
            assert not any(n.feasible for n in exp.nodes), exp
        return
    assert exp.outcome == f"assumed on {node}"
    assert nodes[node].feasible, exp
    if not scored:
        assert exp.notes, exp  # chosen without scoring, and the explanation says why
        return
    top = max(scored.values())
    best = {name for name, total in scored.items() if total == top}
    assert node in best, exp
    if len(best) == 1:
        assert best == {node}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters(), st.integers(0, 3))
def test_the_explained_best_node_is_where_the_pod_went(
    cluster: tuple[list[Any], list[str]], seed: int
) -> None:
    objs, pending = cluster
    sim = make_simulation(objs, [CpuFit, FreeCpu, NominateFirst], seed=seed, until=20)
    sim.explain = [f"default/{p}" for p in pending]
    result = sim.run()
    for name in pending:
        _check(result.explanations[f"default/{name}"], result.pod(name).node)
