"""API defaulting of pod-level resources (upstream pkg/apis/core/v1/defaults.go, v1.34:
defaultHugePagePodLimits then defaultPodRequests, after each container's requests are
defaulted from its limits). Cases in the style of upstream's defaults_test.go; every
expectation worked out from defaults.go."""

from __future__ import annotations

from typing import Any

import pytest
from pod_specs import container, make_pod

from kubesched.api import ResourceRequirements, default_pod_level_resources

HP2 = "hugepages-2Mi"
HP1G = "hugepages-1Gi"


def _defaulted(
    pod_resources: dict[str, dict[str, str]] | None,
    containers: list[dict[str, Any]],
    inits: list[dict[str, Any]],
) -> ResourceRequirements | None:
    pod = make_pod(pod_resources, containers, inits)
    default_pod_level_resources(pod)
    return pod.spec.resources


def _rr(limits: dict[str, str], requests: dict[str, str]) -> ResourceRequirements:
    return ResourceRequirements.model_validate({"limits": limits, "requests": requests})


HUGEPAGE_CONTAINERS = (
    container(limits={"cpu": "2m", HP2: "4Mi"}),
    container(limits={"cpu": "1m", HP2: "2Mi"}),
)

# (name, pod-level resources, containers, defaulted pod-level resources)
CASES: list[tuple[str, dict[str, dict[str, str]] | None, tuple[Any, ...], Any]] = [
    ("pod resources=unset", None, (container(limits={"cpu": "2m"}),), None),
    (
        "pod limits=empty: nothing is derived",
        {"limits": {}, "requests": {}},
        (container(limits={"cpu": "2m", "memory": "1Mi"}),),
        _rr({}, {}),
    ),
    (
        "pod requests=unset limits=set, container resources=unset: requests from pod limits",
        {"limits": {"cpu": "2m", "memory": "1Mi"}},
        (container(),),
        _rr({"cpu": "2m", "memory": "1Mi"}, {"cpu": "2m", "memory": "1Mi"}),
    ),
    (
        "pod requests=unset limits=set, container requests=unset limits=set: requests from "
        "the containers' aggregated (limit-defaulted) requests",
        {"limits": {"cpu": "5m", "memory": "7Mi"}},
        (
            container(limits={"cpu": "2m", "memory": "1Mi"}),
            container(limits={"cpu": "1m", "memory": "5Mi"}),
        ),
        _rr({"cpu": "5m", "memory": "7Mi"}, {"cpu": "3m", "memory": "6Mi"}),
    ),
    (
        "pod requests=partly set: a pod-level request is never rewritten",
        {"limits": {"cpu": "5m", "memory": "7Mi"}, "requests": {"cpu": "4m"}},
        (container(limits={"cpu": "2m", "memory": "1Mi"}),),
        _rr({"cpu": "5m", "memory": "7Mi"}, {"cpu": "4m", "memory": "1Mi"}),
    ),
    (
        "container requests of a resource the pod does not limit become pod requests",
        {"limits": {"cpu": "5m"}},
        (container({"memory": "3Mi"}),),
        _rr({"cpu": "5m"}, {"cpu": "5m", "memory": "3Mi"}),
    ),
    (
        "init containers and sidecars count as the scheduler counts them",
        {"limits": {"cpu": "10m"}},
        (
            container({"cpu": "2m"}),
            ("init", container({"cpu": "1m"}, sidecar=True)),
            ("init", container({"cpu": "4m"})),
        ),
        # max(app 2m + sidecar 1m, init 4m beside the sidecar 1m)
        _rr({"cpu": "10m"}, {"cpu": "5m"}),
    ),
    (
        "pod has cpu limit, container hugepages limits=set: pod hugepages limit and request "
        "from the containers' aggregated limit",
        {"limits": {"cpu": "5m"}},
        HUGEPAGE_CONTAINERS,
        _rr({"cpu": "5m", HP2: "6Mi"}, {"cpu": "3m", HP2: "6Mi"}),
    ),
    (
        "pod has cpu request only, container hugepages limits=set: the hugepages limit is "
        "derived, then a request from it",
        {"requests": {"cpu": "5m"}},
        HUGEPAGE_CONTAINERS,
        _rr({HP2: "6Mi"}, {"cpu": "5m", HP2: "6Mi"}),
    ),
    (
        "pod hugepages requests=set limits=set: nothing changes",
        {"limits": {"cpu": "5m", HP2: "10Mi"}, "requests": {"cpu": "5m", HP2: "10Mi"}},
        HUGEPAGE_CONTAINERS,
        _rr({"cpu": "5m", HP2: "10Mi"}, {"cpu": "5m", HP2: "10Mi"}),
    ),
    (
        "pod hugepages request=set limit=unset: no hugepages limit is derived",
        {"limits": {"cpu": "5m"}, "requests": {HP2: "8Mi"}},
        HUGEPAGE_CONTAINERS,
        _rr({"cpu": "5m"}, {"cpu": "3m", HP2: "8Mi"}),
    ),
    (
        "pod hugepages limits=set, containers limit another hugepages size",
        {"limits": {"cpu": "5m", HP2: "10Mi"}},
        (container(limits={"cpu": "2m", HP1G: "1Gi"}), container(limits={"cpu": "1m", HP2: "2Mi"})),
        _rr({"cpu": "5m", HP2: "10Mi", HP1G: "1Gi"}, {"cpu": "3m", HP2: "10Mi", HP1G: "1Gi"}),
    ),
    (
        "container hugepages requests are never copied to the pod (no overcommit)",
        {"limits": {"cpu": "5m"}},
        (container({"cpu": "2m", HP2: "4Mi"}),),
        _rr({"cpu": "5m"}, {"cpu": "2m"}),
    ),
    (
        "unsupported resources are left alone",
        {"limits": {"storage": "1Mi", "cpu": "2m"}},
        (container({"storage": "1Mi", "ephemeral-storage": "5Mi"}),),
        _rr({"storage": "1Mi", "cpu": "2m"}, {"cpu": "2m"}),
    ),
]


@pytest.mark.parametrize(
    ("name", "pod_resources", "containers", "want"), CASES, ids=[c[0] for c in CASES]
)
def test_pod_level_resources_defaults(
    name: str,
    pod_resources: dict[str, dict[str, str]] | None,
    containers: tuple[Any, ...],
    want: ResourceRequirements | None,
) -> None:
    inits = [c[1] for c in containers if isinstance(c, tuple)]
    apps = [c for c in containers if not isinstance(c, tuple)]
    assert _defaulted(pod_resources, apps, inits) == want


def test_defaulting_is_idempotent() -> None:
    pod = make_pod({"limits": {"cpu": "5m"}}, HUGEPAGE_CONTAINERS)
    default_pod_level_resources(pod)
    once = pod.model_copy(deep=True)
    default_pod_level_resources(pod)
    assert pod == once
