"""TaintToleration: node taints against pod tolerations (Filter, and Score for
PreferNoSchedule)."""

from kubesched_builtin.tainttoleration.plugin import (
    ERR_REASON_UNTOLERATED,
    PRE_SCORE_STATE_KEY,
    TaintToleration,
    untolerated_taint_detail,
)

__all__ = [
    "ERR_REASON_UNTOLERATED",
    "PRE_SCORE_STATE_KEY",
    "TaintToleration",
    "untolerated_taint_detail",
]
