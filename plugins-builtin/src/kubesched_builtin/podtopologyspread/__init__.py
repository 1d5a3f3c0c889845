"""PodTopologySpread: hard and soft pod topology spread constraints, with default ones."""

from kubesched_builtin.podtopologyspread.args import (
    LIST_DEFAULTING,
    SYSTEM_DEFAULTING,
    DefaultConstraint,
    PodTopologySpreadArgs,
)
from kubesched_builtin.podtopologyspread.common import Selector, SpreadConstraint
from kubesched_builtin.podtopologyspread.filtering import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    CriticalPaths,
    PreFilterState,
)
from kubesched_builtin.podtopologyspread.plugin import (
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    SYSTEM_DEFAULT_CONSTRAINTS,
    PodTopologySpread,
)
from kubesched_builtin.podtopologyspread.scoring import PreScoreState, topology_normalizing_weight

__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "LIST_DEFAULTING",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "SYSTEM_DEFAULTING",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "CriticalPaths",
    "DefaultConstraint",
    "PodTopologySpread",
    "PodTopologySpreadArgs",
    "PreFilterState",
    "PreScoreState",
    "Selector",
    "SpreadConstraint",
    "topology_normalizing_weight",
]
