"""Helpers several builtin plugins share (upstream pkg/scheduler/framework/plugins/helper):
score normalization, taint predicates, and apimachinery-worded field errors."""

from kubesched_builtin.helper.normalize_score import default_normalize_score
from kubesched_builtin.helper.taints import is_do_not_schedule_taint

__all__ = ["default_normalize_score", "is_do_not_schedule_taint"]
