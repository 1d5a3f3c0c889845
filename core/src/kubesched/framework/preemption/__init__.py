"""Preemption for PostFilter plugins: the generic evaluator and the policy it asks for.

Upstream: pkg/scheduler/framework/preemption/preemption.go. A preemption plugin (built-in
DefaultPreemption, or a gang-aware one) is the *policy*; the `Evaluator` here does the
rest: the dry run over the nodes Filter found Unschedulable, the choice of the node, the
evictions (DisruptionTarget condition, delete or reject at Permit, the `Preempted` event)
and the nomination. A plugin implements `PreemptionInterface` (upstream
preemption.Interface)::

    get_offset_and_num_candidates(num_nodes)        # GetOffsetAndNumCandidates
    candidates_to_victims_map(candidates)           # CandidatesToVictimsMap
    pod_eligible_to_preempt_others(pod, status)     # PodEligibleToPreemptOthers
    select_victims_on_node(state, pod, info, pdbs)  # SelectVictimsOnNode
    ordered_score_funcs(nodes_to_victims)           # OrderedScoreFuncs

builds one `Evaluator(plugin_name, handle, policy)` and returns `evaluator.preempt(state,
pod, statuses)` from its `post_filter`::

    class MyPreemption(PostFilterPlugin):
        def __init__(self, args, handle):
            super().__init__(args, handle)
            self.evaluator = Evaluator(self.name, handle, self)

        def post_filter(self, state, pod, statuses):
            return self.evaluator.preempt(state, pod, statuses)

Two optional policy methods (not upstream) spare the dry run work on many nodes, with the
same candidates: `rules_out_node(state, pod, node_info)` says a node certainly gives no
victims, and `quick_dry_run(state, pod, pdbs, statuses)` returns, for one preemption, a
function that answers a node's victims without copying it (or rules it out, or leaves it
to the real dry run). Nodes ruled out are dry-run only when no node is a candidate, for
their statuses (see `Evaluator.dry_run_preemption`).

The helpers here (victim order, start times, the default node choice) are the ones
upstream's DefaultPreemption uses, for policies that want the same rules.
"""

from kubesched.framework.preemption._candidate import (
    Candidate,
    MoreImportantPodFunc,
    ScoreFunc,
    Victims,
    by_importance,
    earliest_start_time_of_highest_priority,
    importance_key,
    more_important_pod,
    pick_one_node_for_preemption,
    pod_start_time,
)
from kubesched.framework.preemption._evaluator import (
    DISRUPTION_TARGET,
    PDB_KIND_NAME,
    PREEMPTION_BY_SCHEDULER,
    Evaluator,
    PreemptionInterface,
)

__all__ = [
    "DISRUPTION_TARGET",
    "PDB_KIND_NAME",
    "PREEMPTION_BY_SCHEDULER",
    "Candidate",
    "Evaluator",
    "MoreImportantPodFunc",
    "PreemptionInterface",
    "ScoreFunc",
    "Victims",
    "by_importance",
    "earliest_start_time_of_highest_priority",
    "importance_key",
    "more_important_pod",
    "pick_one_node_for_preemption",
    "pod_start_time",
]
