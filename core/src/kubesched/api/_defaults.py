"""API defaulting of pod-level resources, as the API server applies it when a pod is created.

upstream: pkg/apis/core/v1/defaults.go (SetDefaults_Pod, v1.34): after each container's
requests are defaulted from its limits (done when a Container is read, see `Container`), and
only with the PodLevelResources feature gate on, `defaultHugePagePodLimits` then
`defaultPodRequests`. The caller checks the gate.
"""

from __future__ import annotations

from kubesched.api._pod import Pod
from kubesched.api._resources import (
    aggregate_container_limits,
    aggregate_container_requests,
    is_hugepages,
    is_supported_pod_level_resource,
)

__all__ = ["default_pod_level_resources"]


def default_pod_level_resources(pod: Pod) -> None:
    """Fill in pod-level limits and requests the API server derives (mutates `pod`)."""
    _default_hugepage_pod_limits(pod)
    _default_pod_requests(pod)


def _default_hugepage_pod_limits(pod: Pod) -> None:
    """A hugepages size the containers limit, and the pod level neither limits nor requests,
    gets the containers' aggregated limit at the pod level (upstream
    defaultHugePagePodLimits). Only when pod-level resources are partly given already."""
    res = pod.spec.resources
    if res is None or (not res.limits and not res.requests):
        return
    for name, limit in aggregate_container_limits(pod).items():
        if not (is_supported_pod_level_resource(name) and is_hugepages(name)):
            continue
        if name in res.requests:
            continue
        res.limits.setdefault(name, limit)


def _default_pod_requests(pod: Pod) -> None:
    """When pod-level limits are set, each supported resource without a pod-level request
    gets the containers' aggregated request (cpu and memory only: hugepages cannot be
    overcommitted), else the pod-level limit (upstream defaultPodRequests)."""
    res = pod.spec.resources
    if res is None or not res.limits:
        return
    for name, request in aggregate_container_requests(pod).items():
        # upstream: IsSupportedPodLevelResource && IsOvercommitAllowed
        if is_supported_pod_level_resource(name) and not is_hugepages(name):
            res.requests.setdefault(name, request)
    for name, limit in res.limits.items():
        if is_supported_pod_level_resource(name):
            res.requests.setdefault(name, limit)
