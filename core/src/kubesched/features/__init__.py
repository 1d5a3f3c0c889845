"""Feature gates, as kube-scheduler's `--feature-gates` sets them.

Layer: imports nothing of kubesched but its errors and `api.field`, so every layer may ask for
a gate. The fast path switch (`fast_path_enabled`, not an upstream gate) is here too.

The gates come from `kubesched simulate|run --feature-gates` (`set_feature_gates`), else the
environment variable ``KUBESCHED_FEATURE_GATES``, in upstream's syntax
(``SchedulerPopFromBackoffQ=false,kube:PodLevelResources=true``) and with upstream's checks
and messages (`unrecognized feature gate: X`, locked GA gates). They are read when asked for,
so the simulator, `kubesched run` and plugin packages see the same values. Defaults are
upstream v1.34's (pkg/features/kube_features.go); docs/fidelity.md says what each gate
changes in kubesched.
"""

from kubesched.features._fast_path import FAST_PATH_ENV, fast_path_enabled
from kubesched.features._gates import (
    ENV_VAR,
    FLAG,
    FeatureGateError,
    feature_enabled,
    feature_gates,
    parse_feature_gates,
    set_feature_gates,
)
from kubesched.features._table import FEATURE_GATES, FeatureGate, Stage

__all__ = [
    "ENV_VAR",
    "FAST_PATH_ENV",
    "FEATURE_GATES",
    "FLAG",
    "FeatureGate",
    "FeatureGateError",
    "Stage",
    "fast_path_enabled",
    "feature_enabled",
    "feature_gates",
    "parse_feature_gates",
    "set_feature_gates",
]
