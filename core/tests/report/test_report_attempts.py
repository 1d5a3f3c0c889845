"""`AttemptLog` records every attempt of every pod plugin by plugin, as `--explain` records
one pod's last attempt, without changing where any pod goes (issue 17)."""

from __future__ import annotations

from report_helpers import EXAMPLES, recorded_run

from kubesched.report import compact_attempt, expand_attempt
from kubesched.simulate import simulate


def placements(paths: list[str], **options: object) -> list[tuple[str, str | None, str]]:
    result = simulate(paths, **options)  # type: ignore[arg-type]
    return [(f"{p.namespace}/{p.name}", p.node, p.status) for p in result.pods]


def test_recording_every_attempt_places_every_pod_where_a_plain_run_does() -> None:
    for example in ("basic", "preemption", "topology-spread", "node-affinity"):
        result, log = recorded_run(example, seed=7)
        plain = placements([str(EXAMPLES / example)], seed=7)
        assert [(f"{p.namespace}/{p.name}", p.node, p.status) for p in result.pods] == plain
        assert log.attempts, example


def test_every_pod_has_as_many_attempts_as_its_result_counts() -> None:
    result, log = recorded_run("preemption")
    for pod in result.pods:
        key = f"{pod.namespace}/{pod.name}"
        recorded = log.attempts.get(key, [])
        assert [a["attempt"] for a in recorded] == list(range(1, pod.attempts + 1)), key


def test_the_last_attempt_is_what_explain_shows() -> None:
    log_result, log = recorded_run("preemption", explain=["default/polite", "default/urgent"])
    for key in ("default/polite", "default/urgent"):
        explanation = log_result.explanations[key]
        profile = log.attempts[key][-1]["profile"]
        last = dict(log.attempts[key][-1])
        last.pop("result", None)
        assert last == compact_attempt(explanation, profile)


def test_the_compact_form_loses_nothing_of_the_explanation() -> None:
    for example in ("basic", "preemption", "taints", "node-affinity", "topology-spread"):
        keys = [f"{p.namespace}/{p.name}" for p in simulate([EXAMPLES / example]).pods]
        result, _ = recorded_run(example, explain=keys)
        assert result.explanations, example
        for key, explanation in result.explanations.items():
            assert expand_attempt(compact_attempt(explanation, "p")) == explanation.nodes, key


def test_an_attempt_keeps_each_rejection_and_what_came_of_it() -> None:
    _, log = recorded_run("preemption")
    first, second = log.attempts["default/urgent"]
    assert first["outcome"].startswith("Unschedulable: 0/2 nodes are available")
    assert first["result"] == "preemption nominated node node-2"
    assert first["nodes"] == ["node-1", "node-2"]
    assert first["verdicts"]["NodeResourcesFit"] == {"Unschedulable: Insufficient cpu": [0, 1]}
    assert "NodeResourcesFit" in first["filterPlugins"]
    assert "scored" not in first
    assert second["outcome"] == "assumed on node-2"
    assert second["result"] == "bound to node-2"


def test_scored_nodes_carry_each_plugins_raw_and_normalized_score_and_the_total() -> None:
    _, log = recorded_run("basic")
    attempt = log.attempts["default/web-1"][0]
    scored, totals = attempt["scored"], attempt["totals"]
    assert len(scored) == len(totals) > 1
    normalized = {**attempt["rawScores"], **attempt["normalizedScores"]}
    assert attempt["normalizedScores"]  # some plugin normalizes (e.g. TaintToleration)
    for k, total in enumerate(totals):
        assert total == sum(v[k] * attempt["weights"][p] for p, v in normalized.items())
    # the host is one of the best scored nodes (selectHost breaks ties at random)
    bound = attempt["result"].removeprefix("bound to ")
    best = {attempt["nodes"][i] for i, t in zip(scored, totals, strict=True) if t == max(totals)}
    assert bound in best
