"""InterPodAffinity: required pod (anti-)affinity Filter and preferred-term Score."""

from kubesched_builtin.interpodaffinity.args import InterPodAffinityArgs
from kubesched_builtin.interpodaffinity.filtering import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
    PreFilterState,
)
from kubesched_builtin.interpodaffinity.plugin import (
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    InterPodAffinity,
)
from kubesched_builtin.interpodaffinity.scoring import PreScoreState
from kubesched_builtin.interpodaffinity.terms import (
    AffinityTerm,
    PodTerms,
    WeightedAffinityTerm,
    parse_pod_terms,
)

__all__ = [
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "AffinityTerm",
    "InterPodAffinity",
    "InterPodAffinityArgs",
    "PodTerms",
    "PreFilterState",
    "PreScoreState",
    "WeightedAffinityTerm",
    "parse_pod_terms",
]
