"""TaintToleration: node taints against pod tolerations (Filter, and Score for
PreferNoSchedule)."""

from kubesched_builtin.tainttoleration.plugin import (
    PRE_SCORE_STATE_KEY,
    TaintToleration,
    untolerated_taint_reason,
)

__all__ = ["PRE_SCORE_STATE_KEY", "TaintToleration", "untolerated_taint_reason"]
