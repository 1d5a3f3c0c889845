"""Every attempt of every pod, plugin by plugin, for the HTML report.

`--explain POD` records a pod's real scheduling cycle with a `CycleExplainer` (the runners'
recording mode, `kubesched.runtime.CycleRecorder`). `AttemptLog` is an observer of the loop
that does the same for every cycle, and is only added when a report asks for it: a recorded
cycle takes the per-node Filter/Score path and runs every Filter plugin on every node, so a
run with it is slower, with the same placements.

Each attempt is kept in the report's compact form (`AttemptRecord`): the Filter verdicts
that are not "ok", the scores of the nodes the cycle scored, then what became of the
attempt once the loop moved on (bound, a binding failure, the node preemption nominated).
"""

from __future__ import annotations

from typing import Any

from kubesched.api import Pod
from kubesched.cluster import Cluster
from kubesched.framework import CycleState, NominatingInfo, NominatingMode, QueuedPodInfo, Status
from kubesched.runtime import Framework, recorder_of
from kubesched.scheduler import (
    CycleExplainer,
    Explanation,
    NodeExplanation,
    ScheduleResult,
    SchedulerObserver,
)

__all__ = ["AttemptLog", "ClusterWatch", "compact_attempt", "expand_attempt"]


class ClusterWatch(SchedulerObserver):
    """Keeps the cluster the loop schedules (taken from the first attempt's framework), so
    a report can read the cluster as the run left it: the nodes' zones, the pods' labels,
    gangs and claims. None when no pod was attempted."""

    def __init__(self) -> None:
        self.cluster: Cluster | None = None

    def attempt_started(self, qpi: QueuedPodInfo, fwk: Framework, state: CycleState) -> None:
        if self.cluster is None:
            self.cluster = fwk.cluster


class AttemptLog(ClusterWatch):
    """Records every scheduling attempt (add it to `simulate(observers=...)`)."""

    def __init__(self) -> None:
        super().__init__()
        self.attempts: dict[str, list[dict[str, Any]]] = {}
        """Pod key (`namespace/name`) → its attempts in order (`AttemptRecord` dicts)."""
        self._counts: dict[str, int] = {}
        self._current: tuple[CycleExplainer, bool, str] | None = None

    def attempt_started(self, qpi: QueuedPodInfo, fwk: Framework, state: CycleState) -> None:
        super().attempt_started(qpi, fwk, state)
        pod = qpi.pod
        uid = pod.metadata.uid
        self._counts[uid] = attempt = self._counts.get(uid, 0) + 1
        recorder = recorder_of(state)
        if isinstance(recorder, CycleExplainer):
            # --explain already records this cycle (the report observer comes first and
            # finishes it): a cycle has one recorder, so share it
            self._current = (recorder, False, fwk.profile_name)
        else:
            explainer = CycleExplainer(fwk, pod, attempt, fwk.clock.now(), state)
            self._current = (explainer, True, fwk.profile_name)

    def cycle_ended(self, pod: Pod, result: ScheduleResult | None, status: Status) -> None:
        if self._current is None:
            return
        explainer, own, profile = self._current
        self._current = None
        exp = explainer.finish(result, status) if own else explainer.explanation
        self.attempts.setdefault(pod.key, []).append(compact_attempt(exp, profile))

    def pod_bound(self, pod: Pod, node: str, fwk: Framework) -> None:
        last = self._last(pod)
        if last is not None:
            last["result"] = f"bound to {node}"

    def attempt_failed(
        self, pod: Pod, fwk: Framework, status: Status, nominating: NominatingInfo | None
    ) -> None:
        last = self._last(pod)
        if last is None:
            return
        if last["outcome"].startswith("assumed on "):
            last["result"] = f"binding cycle failed: {status.code}: {status.message()}"
        elif (
            nominating is not None
            and nominating.mode is NominatingMode.Override
            and nominating.nominated_node_name
        ):
            last["result"] = f"preemption nominated node {nominating.nominated_node_name}"

    def _last(self, pod: Pod) -> dict[str, Any] | None:
        attempts = self.attempts.get(pod.key)
        return attempts[-1] if attempts else None


def compact_attempt(exp: Explanation, profile: str) -> dict[str, Any]:
    """An explanation in the report's compact form (`AttemptRecord`): nodes by index into
    `nodes`, Filter rejections grouped by plugin and verdict (a node missing from a plugin's
    groups passed it), scores by plugin in the order of `scored`; empty keys left out.
    Lossless: `expand_attempt` gives the explanation's nodes back."""
    names = [ne.node for ne in exp.nodes]
    plugins: dict[str, None] = {}
    excluded: dict[str, list[int]] = {}
    verdicts: dict[str, dict[str, list[int]]] = {}
    details: list[dict[str, Any]] = []
    nominated: list[dict[str, Any]] = []
    scored = [ne for ne in exp.nodes if ne.total is not None]
    for i, ne in enumerate(exp.nodes):
        plugins.update(dict.fromkeys(ne.filters))
        if ne.excluded:
            excluded.setdefault(ne.excluded, []).append(i)
        for name, verdict in ne.filters.items():
            if verdict != "ok":
                verdicts.setdefault(name, {}).setdefault(verdict, []).append(i)
        for name, lines in ne.details.items():
            details.append({"node": i, "plugin": name, "lines": lines})
        if ne.nominated_pods:
            nominated.append({"node": i, "pods": ne.nominated_pods})
    record: dict[str, Any] = {
        "attempt": exp.attempt,
        "at": round(exp.time, 3),
        "profile": profile,
        "preFilter": exp.pre_filter,
        "filterPlugins": list(plugins),
        "weights": exp.weights,
        "nodes": names,
        "outcome": exp.outcome,
    }
    optional: dict[str, Any] = {
        "excluded": excluded,
        "verdicts": verdicts,
        "details": details,
        "nominatedPods": nominated,
    }
    if scored:
        index = {name: i for i, name in enumerate(names)}
        scorers = list(scored[0].raw_scores)
        raw = {p: [ne.raw_scores[p] for ne in scored] for p in scorers}
        normalized = {
            p: [ne.normalized_scores.get(p, ne.raw_scores[p]) for ne in scored] for p in scorers
        }
        optional["scored"] = [index[ne.node] for ne in scored]
        optional["rawScores"] = raw
        # weighted = normalized x weight (upstream runScorePlugins), so it is not kept
        optional["normalizedScores"] = {p: v for p, v in normalized.items() if v != raw[p]}
        optional["totals"] = [ne.total for ne in scored]
    record.update({k: v for k, v in optional.items() if v})
    if exp.notes:
        record["notes"] = exp.notes
    return record


def expand_attempt(record: dict[str, Any]) -> list[NodeExplanation]:
    """The explanation nodes a compact attempt (`compact_attempt`) holds."""
    names: list[str] = record["nodes"]
    nodes = [NodeExplanation(name) for name in names]
    for reason, indices in record.get("excluded", {}).items():
        for i in indices:
            nodes[i].excluded = reason
    rejected: dict[tuple[int, str], str] = {}
    for plugin, groups in record.get("verdicts", {}).items():
        for verdict, indices in groups.items():
            rejected.update({(i, plugin): verdict for i in indices})
    for i, ne in enumerate(nodes):
        if not ne.excluded:
            ne.filters = {p: rejected.get((i, p), "ok") for p in record["filterPlugins"]}
    for d in record.get("details", []):
        nodes[d["node"]].details[d["plugin"]] = d["lines"]
    for n in record.get("nominatedPods", []):
        nodes[n["node"]].nominated_pods = n["pods"]
    weights: dict[str, int] = record["weights"]
    for k, i in enumerate(record.get("scored", [])):
        ne = nodes[i]
        for plugin, values in record["rawScores"].items():
            ne.raw_scores[plugin] = values[k]
            normalized = record.get("normalizedScores", {}).get(plugin, values)[k]
            ne.normalized_scores[plugin] = normalized
            ne.weighted_scores[plugin] = normalized * weights[plugin]
        ne.total = record["totals"][k]
    return nodes
