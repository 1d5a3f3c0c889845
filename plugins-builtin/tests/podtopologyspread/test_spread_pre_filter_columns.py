"""PodTopologySpread's PreFilter counts read from the snapshot's columns
(`columns.pre_filter_counts`) are the node-by-node walk's (`compute_pre_filter_state`):
the same domains with the same counts, found in the same order (so the same critical
paths), on generated clusters with spread constraints of every inclusion policy, required
node affinity, taints and terminating pods; and still after nodes change between cycles
(the per-generation counts are not reused for a changed node)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api import Pod, TopologySpreadConstraint
from kubesched.framework import NodeInfo, PodInfo
from kubesched.testing import PluginHarness, Scenario, make_pod
from kubesched.testing import strategies as kst
from kubesched_builtin.podtopologyspread import PodTopologySpread, columns
from kubesched_builtin.podtopologyspread.columns import MatchCounts, pre_filter_counts
from kubesched_builtin.podtopologyspread.filtering import compute_pre_filter_state

POLICIES = st.sampled_from([None, "Honor", "Ignore"])


@st.composite
def spread_pods(draw: st.DrawFn, pod: Pod) -> Pod:
    """`pod` with one to three DoNotSchedule constraints of drawn inclusion policies."""
    constraints: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 3))):
        c = dict(draw(kst.topology_spread_constraints()))
        if any(c["topologyKey"] == other["topologyKey"] for other in constraints):
            continue  # one DoNotSchedule constraint per key (the API refuses duplicates)
        c["whenUnsatisfiable"] = "DoNotSchedule"
        for field in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = draw(POLICIES)
            if policy is not None:
                c[field] = policy
        constraints.append(c)
    spec = pod.spec.model_copy(
        update={"topology_spread_constraints": [_constraint(c) for c in constraints]}
    )
    return pod.model_copy(update={"spec": spec})


def _constraint(fields: dict[str, Any]) -> TopologySpreadConstraint:
    return TopologySpreadConstraint.model_validate(fields)


def walk_and_columns(h: PluginHarness, memo: MatchCounts) -> tuple[Any, Any] | None:
    plugin = h.plugin
    assert isinstance(plugin, PodTopologySpread)
    constraints = plugin.constraints_for(h.pod, "DoNotSchedule")
    if not constraints:
        return None
    infos = h.snapshot.node_info_list
    walked = compute_pre_filter_state(h.pod, constraints, infos)
    counted = pre_filter_counts(h.pod, constraints, infos, h.snapshot.columns, memo)
    if counted is None:  # the pod's required node affinity reads a field
        return None
    from_columns = compute_pre_filter_state(h.pod, constraints, infos, counted)
    return (
        [list(m.items()) for m in walked.tp_value_to_match_num],
        [p.paths for p in walked.critical_paths],
    ), (
        [list(m.items()) for m in from_columns.tp_value_to_match_num],
        [p.paths for p in from_columns.critical_paths],
    )


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_counts_from_the_columns_are_the_walks(data: st.DataObject) -> None:
    scenario = data.draw(kst.scenarios(max_nodes=8, max_existing=14))
    pod = data.draw(spread_pods(scenario.pod))
    # some nodes lack a topology label (not eligible for any constraint)
    nodes = list(scenario.nodes)
    for i in data.draw(st.sets(st.integers(0, len(nodes) - 1), max_size=2)):
        key = data.draw(st.sampled_from(sorted(nodes[i].metadata.labels)))
        labels = {k: v for k, v in nodes[i].metadata.labels.items() if k != key}
        meta = nodes[i].metadata.model_copy(update={"labels": labels})
        nodes[i] = nodes[i].model_copy(update={"metadata": meta})
    scenario = Scenario(nodes, scenario.existing, scenario.pod)
    h = PluginHarness(
        PodTopologySpread,
        PodTopologySpread.Args(),
        Scenario(scenario.nodes, scenario.existing, pod),
    )
    memo = MatchCounts()
    compared = walk_and_columns(h, memo)
    if compared is None:
        return
    walked, from_columns = compared
    assert from_columns == walked
    # the next cycle: some nodes gain a matching pod (new clones, as the cache swaps in)
    infos = h.snapshot.node_info_list
    for i in data.draw(st.sets(st.integers(0, len(infos) - 1), max_size=3)):
        clone = infos[i].clone()
        labels = data.draw(kst.label_sets())
        added = make_pod(f"added-{i}").label(**labels).node(clone.name).obj()
        clone.add_pod_info(PodInfo(added))
        h.snapshot.replace(i, clone)
    compared = walk_and_columns(h, memo)
    assert compared is not None
    walked, from_columns = compared
    assert from_columns == walked


def test_a_node_info_keeps_its_count_only_while_its_generation_is_seen() -> None:
    memo = MatchCounts()
    pod = make_pod("p").label(app="web").obj()
    h = PluginHarness(PodTopologySpread, PodTopologySpread.Args(), Scenario([], [], pod))
    plugin = h.plugin
    assert isinstance(plugin, PodTopologySpread)
    spread = (
        make_pod("q")
        .label(app="web")
        .spread_constraint(1, "zone", "DoNotSchedule", {"matchLabels": {"app": "web"}})
    )
    constraint = plugin.constraints_for(spread.obj(), "DoNotSchedule")[0]
    info = NodeInfo()
    info.add_pod_info(PodInfo(make_pod("a").label(app="web").node("n").obj()))
    row = np.zeros(1, np.intp)
    assert memo.counts(constraint, "default", [info], row).tolist() == [1]
    info.add_pod_info(PodInfo(make_pod("b").label(app="web").node("n").obj()))
    assert memo.counts(constraint, "default", [info], row).tolist() == [2]
    assert memo.counts(constraint, "default", [info.clone()], row).tolist() == [2]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 60), st.integers(0, 9)), max_size=120),
    st.sampled_from([0, 32]),
)
def test_domain_totals_are_sums_in_order_of_first_appearance(
    rows: list[tuple[int, int]], few: int
) -> None:
    """Both ways of summing (bincount for a few domains, unique for many) give each
    domain's sum, domains in the order the rows first show them."""
    want: dict[int, int] = {}
    for domain, count in rows:
        want[domain] = want.get(domain, 0) + count
    ids = np.array([d for d, _ in rows], np.int64)
    per_row = np.array([c for _, c in rows], np.int64)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(columns, "_FEW_DOMAINS", few)
        assert columns.domain_totals(ids, per_row, 61) == list(want.items())
