"""DefaultPreemption's quick dry run (`resources_only`) against the real one.

The quick dry run answers SelectVictimsOnNode with NodeResourcesFit's room test on the
node's figures when only that plugin's answer can change with evictions. Hypothesis builds
clusters (pods of mixed priorities, requests, start times and labels, nominated pods, PDBs,
cordoned and tainted nodes, pod limits, an extended resource) and checks that the quick
path and upstream's path (KUBESCHED_FAST_PATH=0: a copy of every node, Filter after every
eviction) find the same candidates in the same order, with the same victims in the same
order and the same PDB violations, the same statuses and errors when there is no candidate,
and the same nominated node, message and evictions from the whole PostFilter.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from builtin_helpers import make_node, make_pod
from hypothesis import event, given, settings
from hypothesis import strategies as st
from preemption_helpers import pdb, preemption_env

from kubesched.api import Node, Pod
from kubesched.framework import NodeToStatus, PodInfo, Status
from kubesched.framework.preemption import Candidate, Victims
from kubesched_builtin.defaultpreemption import DefaultPreemption
from kubesched_builtin.nodeaffinity import NodeAffinity
from kubesched_builtin.nodename import NodeName
from kubesched_builtin.noderesources import NodeResourcesFit
from kubesched_builtin.nodeunschedulable import NodeUnschedulable
from kubesched_builtin.tainttoleration import TaintToleration

GPU = "example.com/gpu"
BASE = datetime(2024, 1, 1, tzinfo=UTC)

ORDERS: list[list[type[Any]]] = [
    [NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodeResourcesFit],
    [NodeResourcesFit, TaintToleration, NodeUnschedulable],
    [NodeResourcesFit],
]
"""Filter orders: upstream's default one, node-only plugins after NodeResourcesFit, and
NodeResourcesFit alone."""

_pods = st.lists(
    st.tuples(
        st.integers(0, 3),  # node
        st.integers(-1, 2),  # priority
        st.integers(0, 6),  # cpu, in 100m
        st.integers(0, 2),  # gpus
        st.one_of(st.none(), st.integers(0, 3)),  # start time
        st.sampled_from(["a", "b", ""]),  # app label
    ),
    max_size=12,
)


@st.composite
def clusters(draw: st.DrawFn) -> dict[str, Any]:
    num_nodes = draw(st.integers(1, 4))
    nodes: list[Node] = []
    for i in range(num_nodes):
        builder = make_node(f"n{i}").alloc(
            cpu=f"{draw(st.integers(3, 10)) * 100}m",
            memory="1Gi",
            pods=draw(st.integers(2, 6)),
            **{GPU: draw(st.integers(0, 2))},
        )
        builder.label(zone=draw(st.sampled_from(["z1", "z2"])))
        if draw(st.integers(0, 5)) == 0:
            builder.unschedulable()
        if draw(st.integers(0, 5)) == 0:
            builder.taint("dedicated", "x")
        nodes.append(builder.obj())
    pods: list[Pod] = []
    for j, (node, prio, cpu, gpus, start, app) in enumerate(draw(_pods)):
        builder = make_pod(f"e{j}").node(f"n{node % num_nodes}").priority(prio)
        builder.req(cpu=f"{cpu * 100}m", **({GPU: gpus} if gpus else {}))
        if app:
            builder.label(app=app)
        built = builder.obj()
        built.status.start_time = None if start is None else BASE + timedelta(seconds=start)
        pods.append(built)
    nominated = [
        (f"nom{k}", node % num_nodes, prio, cpu)
        for k, (node, prio, cpu) in enumerate(
            draw(
                st.lists(
                    st.tuples(st.integers(0, 3), st.integers(0, 4), st.integers(0, 3)),
                    max_size=2,
                )
            )
        )
    ]
    budgets = [
        pdb({"app": app}, allowed, name=f"pdb-{app}-{k}")
        for k, (app, allowed) in enumerate(
            draw(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 2)), max_size=2))
        )
    ]
    preemptor = make_pod("p").priority(draw(st.integers(1, 4)))
    preemptor.req(
        cpu=f"{draw(st.integers(1, 8)) * 100}m", **({GPU: 1} if draw(st.booleans()) else {})
    )
    if draw(st.booleans()):
        preemptor.node_affinity_in("zone", ["z1"])
    if draw(st.integers(0, 3)) == 0:
        preemptor.toleration(key="dedicated", operator="Exists")
    return {
        "nodes": nodes,
        "pods": pods,
        "nominated": nominated,
        "pdbs": budgets,
        "preemptor": preemptor.obj(),
        "filters": draw(st.sampled_from(ORDERS)),
        "offset": draw(st.integers(0, 3)),
        "args": {
            "minCandidateNodesPercentage": draw(st.sampled_from([0, 50, 100])),
            "minCandidateNodesAbsolute": draw(st.integers(1, 3)),
        },
        "filter_statuses": draw(st.booleans()),
        "custom_eligible": draw(st.integers(0, 3)) == 0,
        "custom_order": draw(st.integers(0, 3)) == 0,
    }


def _env(cluster: dict[str, Any], quick: bool) -> Any:
    env = preemption_env(
        cluster["nodes"],
        cluster["pods"],
        preemptor=cluster["preemptor"],
        pdbs=cluster["pdbs"],
        filters=cluster["filters"],
        args=cluster["args"],
    )
    for name, node, prio, cpu in cluster["nominated"]:
        nominated = make_pod(name).priority(prio).req(cpu=f"{cpu * 100}m").obj()
        env.nominator.by_node.setdefault(f"n{node}", []).append(PodInfo(nominated))
    plugin: DefaultPreemption = env.plugin
    plugin.room_shortcut = quick
    offset = cluster["offset"]
    plugin.offset_rand = lambda n: offset % n
    if cluster["custom_eligible"]:
        plugin.is_eligible_pod = lambda info, victim, preemptor: (
            victim.pod.metadata.labels.get("app") != "b"
        )
    if cluster["custom_order"]:
        # newest first, then by name: a comparison of the policy's own
        def newer(a: Pod, b: Pod) -> bool:
            sa, sb = a.status.start_time or BASE, b.status.start_time or BASE
            return (sa, a.metadata.name) > (sb, b.metadata.name)

        plugin.more_important_pod = newer
    return env


def _statuses(env: Any, cluster: dict[str, Any], state: Any) -> NodeToStatus:
    """Filter's statuses (attributed to the rejecting plugin), or every node Unschedulable
    with no plugin named (as a caller of the evaluator may give)."""
    pod = cluster["preemptor"]
    out = NodeToStatus()
    for info in env.node_infos():
        if cluster["filter_statuses"]:
            status = env.fwk.run_filter_plugins_with_nominated_pods(state, pod, info)
            if not status.is_success:
                out.set(info.name, status)
        else:
            out.set(info.name, Status.unschedulable("preemption may help"))
    return out


def _candidates(candidates: list[Candidate]) -> list[tuple[str, list[str], int]]:
    return [
        (c.name, [p.metadata.name for p in c.victims.pods], c.victims.num_pdb_violations)
        for c in candidates
    ]


def _dry_run(cluster: dict[str, Any], quick: bool) -> tuple[Any, ...]:
    env = _env(cluster, quick)
    pod = cluster["preemptor"]
    state = env.pre_filter(pod)
    statuses = _statuses(env, cluster, state)
    infos = sorted(env.node_infos(), key=lambda n: n.name)
    answer = env.plugin.quick_dry_run(state, pod, cluster["pdbs"], statuses)
    if quick:
        # the clusters only hold plugins the quick dry run knows: it must be the one used
        assert answer is not None
    else:
        assert answer is None
    candidates, node_statuses, errors = env.plugin.evaluator.find_candidates(
        state, infos, pod, statuses
    )
    if quick:
        event("candidates" if candidates else "no candidate")
        event("nominated pods" if cluster["nominated"] else "no nominated pod")
        event("PDB violated" if any(c.victims.num_pdb_violations for c in candidates) else "-")
    if candidates:
        # the statuses and errors of the other nodes are read only when there is no
        # candidate: the evaluator finds those of nodes it ruled out only then
        return (_candidates(candidates),)
    return (
        sorted((n, s.code, s.reasons) for n, s in node_statuses.items()),
        [str(e) for e in errors],
    )


def _post_filter(cluster: dict[str, Any], quick: bool) -> tuple[Any, ...]:
    env = _env(cluster, quick)
    pod = cluster["preemptor"]
    statuses = _statuses(env, cluster, env.pre_filter(pod))
    result, status = env.post_filter(pod, statuses)
    nominated = None
    if result is not None and result.nominating_info is not None:
        nominated = result.nominating_info.nominated_node_name
    assert status is not None
    return nominated, status.code, status.message(), env.cluster.deleted


@settings(max_examples=400, deadline=None)
@given(cluster=clusters())
def test_quick_dry_run_finds_what_the_real_one_finds(cluster: dict[str, Any]) -> None:
    assert _dry_run(cluster, quick=True) == _dry_run(cluster, quick=False)


@settings(max_examples=150, deadline=None)
@given(cluster=clusters())
def test_post_filter_nominates_and_evicts_the_same_with_the_quick_dry_run(
    cluster: dict[str, Any],
) -> None:
    assert _post_filter(cluster, quick=True) == _post_filter(cluster, quick=False)


# -- when the quick dry run is used ----------------------------------------------------------


def _full_nodes(n: int) -> tuple[list[Node], list[Pod]]:
    """PreemptionBasic in small: 4-cpu nodes, each with four 900m pods of priority 0."""
    nodes = [make_node(f"n{i}").alloc(cpu="4", memory="8Gi", pods=110).obj() for i in range(n)]
    pods = [
        make_pod(f"low{i}-{j}").node(f"n{i}").req(cpu="900m").obj()
        for i in range(n)
        for j in range(4)
    ]
    return nodes, pods


def test_the_quick_dry_run_copies_no_node_and_calls_no_filter() -> None:
    nodes, pods = _full_nodes(5)
    preemptor = make_pod("high").priority(10).req(cpu="3").obj()
    env = preemption_env(
        nodes,
        pods,
        preemptor=preemptor,
        filters=[NodeUnschedulable, NodeName, TaintToleration, NodeResourcesFit],
    )
    state = env.pre_filter(preemptor)
    statuses = _statuses(env, {"preemptor": preemptor, "filter_statuses": True}, state)
    real = env.plugin.evaluator._dry_run_node
    calls: list[str] = []

    def spy(*args: Any) -> Any:
        calls.append(args[2].name)
        return real(*args)

    env.plugin.evaluator._dry_run_node = spy  # type: ignore[method-assign]
    candidates, _, errors = env.plugin.evaluator.find_candidates(
        state, env.node_infos(), preemptor, statuses
    )
    assert calls == [] and errors == []
    # three of the four 900m pods go on every node (0.4 + 3 * 0.9 >= 3)
    assert sorted(len(c.victims.pods) for c in candidates) == [3] * 5


def test_a_plugin_the_quick_dry_run_does_not_know_turns_it_off() -> None:
    """A Filter plugin that may read the node's pods (here NodePorts, not skipped for a pod
    with a host port) means every node gets the real dry run."""
    from kubesched_builtin.nodeports import NodePorts

    nodes, pods = _full_nodes(2)
    preemptor = (
        make_pod("high")
        .priority(10)
        .req(cpu="3")
        .container(name="c", image="pause", ports=[{"containerPort": 80, "hostPort": 80}])
        .obj()
    )
    env = preemption_env(nodes, pods, preemptor=preemptor, filters=[NodePorts, NodeResourcesFit])
    state = env.pre_filter(preemptor)
    assert env.plugin.quick_dry_run(state, preemptor, [], NodeToStatus()) is None
    env.plugin.room_shortcut = False
    assert env.plugin.quick_dry_run(state, preemptor, [], NodeToStatus()) is None


class _Wrapped:
    """A plugin as `kubesched run`'s metrics hand it to the runners: another object whose
    `__class__` is the plugin's (so `isinstance` holds, `type()` does not), the rest
    passed through."""

    def __init__(self, plugin: Any) -> None:
        self._plugin = plugin

    @property  # type: ignore[misc]
    def __class__(self) -> type[Any]:
        return type(self._plugin)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._plugin, name)


def test_plugins_wrapped_as_kubesched_run_wraps_them_keep_the_quick_dry_run() -> None:
    nodes, pods = _full_nodes(3)
    preemptor = make_pod("high").priority(10).req(cpu="3").obj()
    env = preemption_env(
        nodes, pods, preemptor=preemptor, filters=[NodeUnschedulable, NodeResourcesFit]
    )
    env.fwk.filter_plugins = [_Wrapped(p) for p in env.fwk.filter_plugins]
    env.fwk.pre_filter_plugins = [_Wrapped(p) for p in env.fwk.pre_filter_plugins]
    state = env.pre_filter(preemptor)
    assert env.plugin.resources_fit is env.fwk.filter_plugins[1]
    quick = env.plugin.quick_dry_run(state, preemptor, [], NodeToStatus())
    assert quick is not None
    answers = [quick(info) for info in env.node_infos()]
    assert [len(a.pods) if isinstance(a, Victims) else a for a in answers] == [3, 3, 3]
    statuses = _statuses(env, {"preemptor": preemptor, "filter_statuses": True}, state)
    result, status = env.post_filter(preemptor, statuses)
    assert status is not None and status.is_success, status
    assert result is not None and result.nominating_info is not None
    assert result.nominating_info.nominated_node_name in {"n0", "n1", "n2"}
