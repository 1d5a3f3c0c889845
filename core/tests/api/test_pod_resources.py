"""A pod's effective requests with pod-level resources (KEP-2837), from upstream
staging/src/k8s.io/component-helpers/resource/helpers_test.go (TestPodLevelResourceRequests,
TestIsPodLevelResourcesSet, TestIsSupportedPodLevelResource)."""

from __future__ import annotations

from typing import Any

import pytest
from pod_specs import container, make_pod

from kubesched.api import (
    is_pod_level_requests_set,
    is_pod_level_resources_set,
    is_supported_pod_level_resource,
    pod_requests,
)

Mi = 1024 * 1024
Gi = 1024 * Mi
HP2 = "hugepages-2Mi"
HP1G = "hugepages-1Gi"


MEM_CPU = {"memory": "3Mi", "cpu": "2m"}
INIT_MEM_CPU = {"memory": "5Mi", "cpu": "4m"}

# (name, pod-level resources, containers, init containers, pod_level, expected)
REQUEST_CASES: list[
    tuple[
        str,
        dict[str, dict[str, str]] | None,
        list[dict[str, Any]],
        list[dict[str, Any]],
        bool,
        dict[str, int],
    ]
] = [
    ("nil", None, [], [], True, {}),
    (
        "pod level memory resource with SkipPodLevelResources true",
        {"requests": {"memory": "2Mi"}},
        [],
        [],
        False,
        {},
    ),
    (
        "pod level memory resource with SkipPodLevelResources false",
        {"requests": {"memory": "2Mi"}},
        [],
        [],
        True,
        {"memory": 2 * Mi},
    ),
    (
        "pod level memory and container level cpu resources with SkipPodLevelResources false",
        {"requests": {"memory": "2Mi"}},
        [container({"cpu": "2m"})],
        [],
        True,
        {"memory": 2 * Mi, "cpu": 2},
    ),
    (
        "pod level unsupported resources set at both pod-level and container-level with "
        "SkipPodLevelResources false",
        {"requests": {"storage": "2Mi"}},
        [container({"storage": "3Mi"})],
        [],
        True,
        {"storage": 3 * Mi},
    ),
    (
        "pod level unsupported resources set at pod-level with SkipPodLevelResources false",
        {"requests": {"storage": "2Mi"}},
        [container({"memory": "3Mi"})],
        [],
        True,
        {"memory": 3 * Mi},
    ),
    (
        "only container level resources set with SkipPodLevelResources false",
        None,
        [container(MEM_CPU)],
        [],
        True,
        {"memory": 3 * Mi, "cpu": 2},
    ),
    (
        "both container-level and pod-level resources set with SkipPodLevelResources false",
        {"requests": {"memory": "6Mi", "cpu": "8m"}},
        [container(MEM_CPU)],
        [],
        True,
        {"memory": 6 * Mi, "cpu": 8},
    ),
    (
        "container-level resources and init container set with SkipPodLevelResources false",
        None,
        [container(MEM_CPU)],
        [container(INIT_MEM_CPU)],
        True,
        {"memory": 5 * Mi, "cpu": 4},
    ),
    (
        "container-level resources and init container set with SkipPodLevelResources true",
        None,
        [container(MEM_CPU)],
        [container(INIT_MEM_CPU)],
        False,
        {"memory": 5 * Mi, "cpu": 4},
    ),
    (
        "container-level resources and sidecar container set with SkipPodLevelResources false",
        None,
        [container(MEM_CPU)],
        [container(INIT_MEM_CPU, sidecar=True)],
        True,
        {"memory": 8 * Mi, "cpu": 6},
    ),
    (
        "container-level resources, init and sidecar container set with "
        "SkipPodLevelResources false",
        None,
        [container(MEM_CPU)],
        [container(INIT_MEM_CPU, sidecar=True), container({"memory": "6Mi", "cpu": "8m"})],
        True,
        {"memory": 11 * Mi, "cpu": 12},
    ),
    (
        "pod-level resources, container-level resources, init and sidecar container set with "
        "SkipPodLevelResources false",
        {"requests": {"memory": "15Mi", "cpu": "18m"}},
        [container(MEM_CPU)],
        [container(INIT_MEM_CPU, sidecar=True), container({"memory": "6Mi", "cpu": "8m"})],
        True,
        {"memory": 15 * Mi, "cpu": 18},
    ),
    (
        "pod-level resources, hugepage request/limit single page size",
        {"limits": {HP2: "2Mi"}, "requests": {"memory": "10Mi", HP2: "2Mi"}},
        [],
        [],
        True,
        {"memory": 10 * Mi, HP2: 2 * Mi},
    ),
    (
        "pod-level resources, hugepage request/limit multiple page sizes",
        {"limits": {HP2: "2Mi", HP1G: "1Gi"}, "requests": {"cpu": "1", HP2: "2Mi", HP1G: "1Gi"}},
        [],
        [],
        True,
        {"cpu": 1000, HP2: 2 * Mi, HP1G: Gi},
    ),
    (
        "pod-level resources, container-level resources, hugepage request/limit single page size",
        {"limits": {HP2: "10Mi"}, "requests": {"cpu": "1", HP2: "10Mi"}},
        [container({HP2: "6Mi"}, {HP2: "6Mi"})],
        [],
        True,
        {"cpu": 1000, HP2: 10 * Mi},
    ),
    (
        "pod-level resources, container-level resources, hugepage request/limit multiple page "
        "sizes",
        {"limits": {HP2: "10Mi", HP1G: "2Gi"}, "requests": {"cpu": "1", HP2: "10Mi", HP1G: "2Gi"}},
        [container({"cpu": "1", HP1G: "2Gi"}, {HP1G: "2Gi"})],
        [],
        True,
        {"cpu": 1000, HP2: 10 * Mi, HP1G: 2 * Gi},
    ),
    (
        "pod-level resources, container-level resources, hugepage request/limit multiple page "
        "sizes between pod-level and container-level",
        {"limits": {HP2: "10Mi"}, "requests": {"cpu": "1", HP2: "10Mi"}},
        [container({"memory": "4Mi", HP1G: "1Gi"}, {HP1G: "1Gi"})],
        [],
        True,
        {"cpu": 1000, "memory": 4 * Mi, HP2: 10 * Mi, HP1G: Gi},
    ),
]


@pytest.mark.parametrize(
    ("name", "pod_resources", "containers", "inits", "pod_level", "want"),
    REQUEST_CASES,
    ids=[c[0] for c in REQUEST_CASES],
)
def test_pod_level_resource_requests(
    name: str,
    pod_resources: dict[str, dict[str, str]] | None,
    containers: list[dict[str, Any]],
    inits: list[dict[str, Any]],
    pod_level: bool,
    want: dict[str, int],
) -> None:
    pod = make_pod(pod_resources, containers, inits)
    assert pod_requests(pod, pod_level=pod_level) == want


def test_overhead_is_added_to_pod_level_requests() -> None:
    # upstream PodRequests: pod-level values replace the containers', then overhead is added
    pod = make_pod(
        {"requests": {"cpu": "1", "memory": "1Gi"}},
        [container({"cpu": "2", "memory": "2Gi"})],
        overhead={"cpu": "250m", "memory": "64Mi"},
    )
    assert pod_requests(pod) == {"cpu": 1250, "memory": Gi + 64 * Mi}
    assert pod_requests(pod, pod_level=False) == {"cpu": 2250, "memory": 2 * Gi + 64 * Mi}


def test_quantities_are_summed_before_they_are_rounded() -> None:
    # Quantities add exactly and MilliValue rounds the total up: 0.5m + 0.5m is 1m, not 2m
    pod = make_pod(None, [container({"cpu": "0.5m"}), container({"cpu": "0.5m"})])
    assert pod_requests(pod) == {"cpu": 1}


# -- the scoring form: every container without a CPU/memory request counts the defaults


@pytest.mark.parametrize(
    ("pod_resources", "containers", "want"),
    [
        pytest.param(None, [container(), container()], {"cpu": 200, "memory": 400 * Mi}, id="two"),
        pytest.param(
            {"requests": {"memory": "1Gi"}},
            [container({"cpu": "1"}), container()],
            {"cpu": 1100, "memory": Gi},
            id="pod-level memory replaces the defaulted sum; cpu defaults per container",
        ),
        pytest.param(
            {"requests": {"cpu": "3", "memory": "1Gi"}},
            [container(), container()],
            {"cpu": 3000, "memory": Gi},
            id="pod-level cpu and memory",
        ),
        pytest.param(
            None,
            [container({"cpu": "0", "memory": "0"})],
            {"cpu": 0, "memory": 0},
            id="an explicit zero request is kept",
        ),
    ],
)
def test_non_zero_requests_for_scoring(
    pod_resources: dict[str, dict[str, str]] | None,
    containers: list[dict[str, Any]],
    want: dict[str, int],
) -> None:
    # upstream noderesources/resource_allocation.go calculatePodResourceRequest
    pod = make_pod(pod_resources, containers)
    assert pod_requests(pod, non_zero=True) == want


# -- predicates ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pod_resources", "expected"),
    [
        pytest.param(None, False, id="nil resources struct"),
        pytest.param({}, False, id="empty resources struct"),
        pytest.param(
            {"requests": {"ephemeral-storage": "1Mi"}},
            False,
            id="only unsupported resource requests set",
        ),
        pytest.param(
            {"limits": {"ephemeral-storage": "1Mi"}},
            False,
            id="only unsupported resource limits set",
        ),
        pytest.param(
            {"requests": {"ephemeral-storage": "1Mi", "cpu": "1m"}},
            True,
            id="unsupported and suported resources requests set",
        ),
        pytest.param(
            {"limits": {"ephemeral-storage": "1Mi", "cpu": "1m"}},
            True,
            id="unsupported and suported resources limits set",
        ),
    ],
)
def test_is_pod_level_resources_set(
    pod_resources: dict[str, dict[str, str]] | None, expected: bool
) -> None:
    assert is_pod_level_resources_set(make_pod(pod_resources)) is expected


@pytest.mark.parametrize(
    ("pod_resources", "expected"),
    [
        pytest.param(None, False, id="nil resources struct"),
        pytest.param({"limits": {"cpu": "1"}}, False, id="only limits set"),
        pytest.param({"requests": {"storage": "1Mi"}}, False, id="only unsupported requests"),
        pytest.param({"requests": {HP2: "2Mi"}}, True, id="hugepages requests"),
    ],
)
def test_is_pod_level_requests_set(
    pod_resources: dict[str, dict[str, str]] | None, expected: bool
) -> None:
    assert is_pod_level_requests_set(make_pod(pod_resources)) is expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [("cpu", True), ("memory", True), ("ephemeral-storage", False), (HP2, True), (HP1G, True)],
)
def test_is_supported_pod_level_resource(name: str, expected: bool) -> None:
    assert is_supported_pod_level_resource(name) is expected
