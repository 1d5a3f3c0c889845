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
from kubesched.scheduler import CycleExplainer, Explanation, ScheduleResult, SchedulerObserver

__all__ = ["AttemptLog", "compact_attempt"]


class AttemptLog(SchedulerObserver):
    """Records every scheduling attempt (add it to `simulate(observers=...)`)."""

    def __init__(self) -> None:
        self.attempts: dict[str, list[dict[str, Any]]] = {}
        """Pod key (`namespace/name`) → its attempts in order (`AttemptRecord` dicts)."""
        self.cluster: Cluster | None = None
        """The cluster the loop schedules (taken from the first attempt's framework), for
        the report's details of pods and nodes."""
        self._counts: dict[str, int] = {}
        self._current: tuple[CycleExplainer, bool, str] | None = None

    def attempt_started(self, qpi: QueuedPodInfo, fwk: Framework, state: CycleState) -> None:
        pod = qpi.pod
        uid = pod.metadata.uid
        if self.cluster is None:
            self.cluster = fwk.cluster
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
    """An explanation in the report's compact form (`AttemptRecord`): a Filter plugin
    missing from a node's `verdicts` passed it; empty keys are left out."""
    plugins: dict[str, None] = {}
    nodes: list[dict[str, Any]] = []
    for ne in exp.nodes:
        plugins.update(dict.fromkeys(ne.filters))
        node: dict[str, Any] = {"node": ne.node}
        if ne.excluded:
            node["excluded"] = ne.excluded
        verdicts = {name: v for name, v in ne.filters.items() if v != "ok"}
        if verdicts:
            node["verdicts"] = verdicts
        if ne.details:
            node["details"] = ne.details
        if ne.nominated_pods:
            node["nominatedPods"] = ne.nominated_pods
        if ne.total is not None:
            node["scores"] = {
                name: [
                    raw,
                    ne.normalized_scores.get(name, raw),
                    ne.weighted_scores.get(name, 0),
                ]
                for name, raw in ne.raw_scores.items()
            }
            node["total"] = ne.total
        nodes.append(node)
    record: dict[str, Any] = {
        "attempt": exp.attempt,
        "at": round(exp.time, 3),
        "profile": profile,
        "preFilter": exp.pre_filter,
        "filterPlugins": list(plugins),
        "weights": exp.weights,
        "nodes": nodes,
        "outcome": exp.outcome,
    }
    if exp.notes:
        record["notes"] = exp.notes
    return record
