"""Feature gates, as kube-scheduler's `--feature-gates` sets them.

kubesched reads the gates from the environment variable ``KUBESCHED_FEATURE_GATES`` in
upstream's syntax (``SchedulerPopFromBackoffQ=false,PodLevelResources=true``) each time one
is asked for, so the simulator, `kubesched run` and plugin packages see the same values.
Defaults are upstream v1.34's (pkg/features/kube_features.go); docs/fidelity.md lists them.
"""

from kubesched.features._gates import (
    ENV_VAR,
    FEATURE_GATES,
    FeatureGate,
    feature_enabled,
    parse_feature_gates,
)

__all__ = ["ENV_VAR", "FEATURE_GATES", "FeatureGate", "feature_enabled", "parse_feature_gates"]
