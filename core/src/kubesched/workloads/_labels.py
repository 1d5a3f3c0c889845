"""The labels, annotations and names the workload controllers give their pods.

upstream: staging/src/k8s.io/api/apps/v1/types.go (DefaultDeploymentUniqueLabelKey,
StatefulSetPodNameLabel, PodIndexLabel, ControllerRevisionHashLabelKey),
staging/src/k8s.io/api/batch/v1/types.go (JobNameLabel, ControllerUidLabel and their legacy
forms), pkg/apis/extensions (DaemonSetTemplateGenerationKey), and the simulation's own
annotations, which say when and how a pod finishes.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "COMPLETION_INDEX",
    "CONTROLLER_UID",
    "DURATION_ANNOTATION",
    "JOB_NAME",
    "LEGACY_CONTROLLER_UID",
    "LEGACY_JOB_NAME",
    "POD_INDEX",
    "POD_NAME",
    "POD_TEMPLATE_GENERATION",
    "POD_TEMPLATE_HASH",
    "RESULTS",
    "RESULT_ANNOTATION",
]

POD_TEMPLATE_HASH: Final = "pod-template-hash"
POD_NAME: Final = "statefulset.kubernetes.io/pod-name"
POD_INDEX: Final = "apps.kubernetes.io/pod-index"
POD_TEMPLATE_GENERATION: Final = "pod-template-generation"
JOB_NAME: Final = "batch.kubernetes.io/job-name"
CONTROLLER_UID: Final = "batch.kubernetes.io/controller-uid"
LEGACY_JOB_NAME: Final = "job-name"
LEGACY_CONTROLLER_UID: Final = "controller-uid"
COMPLETION_INDEX: Final = "batch.kubernetes.io/job-completion-index"

DURATION_ANNOTATION: Final = "simulation.kubesched.io/duration"
"""How long a pod runs once bound, as a Go duration (`90s`, `1h30m`); then it finishes."""

RESULT_ANNOTATION: Final = "simulation.kubesched.io/result"
"""How a pod with a duration finishes: `Succeeded` (the default) or `Failed`."""

RESULTS: Final = ("Succeeded", "Failed")
