"""The memory cluster refuses a pod whose resource claims the API server would refuse.

upstream: pkg/apis/core/validation/validation.go (validatePodResourceClaims,
validatePodResourceClaim, validateResourceClaimNames) and its tests; the errors are
checked in upstream's order: spec.resourceClaims before the containers' resources.claims.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_memory_validation_pods import refusal

from kubesched.api import Pod
from kubesched.cluster.memory import MemoryCluster

IMAGE = "registry.k8s.io/pause:3.10"
DNS_LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
DNS_SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
    "regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
BOTH = "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"
NEITHER = "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"


def pod(claims: list[dict[str, Any]], *uses: dict[str, str], init: bool = False) -> Pod:
    app: dict[str, Any] = {"name": "app", "image": IMAGE, "resources": {"claims": list(uses)}}
    spec: dict[str, Any] = {"containers": [app], "resourceClaims": claims}
    if init:
        spec["containers"] = [{"name": "main", "image": IMAGE}]
        spec["initContainers"] = [app]
    return Pod.model_validate({"metadata": {"name": "web-1"}, "spec": spec})


def test_valid_claims_are_accepted(cluster: MemoryCluster) -> None:
    claims = [
        {"name": "gpu", "resourceClaimName": "shared-gpu"},
        {"name": "nic", "resourceClaimTemplateName": "nic.template"},
    ]
    uses = ({"name": "gpu"}, {"name": "nic", "request": "fast"}, {"name": "nic", "request": "slow"})
    (created,) = cluster.create_many([pod(claims, *uses)])
    assert [c.name for c in created.spec.resource_claims] == ["gpu", "nic"]


@pytest.mark.parametrize(
    ("claims", "message"),
    [
        pytest.param(
            [{"name": "", "resourceClaimName": "c"}],
            "spec.resourceClaims[0].name: Required value",
            id="no-name",
        ),
        pytest.param(
            [{"name": "gpu", "resourceClaimName": "a"}, {"name": "gpu", "resourceClaimName": "b"}],
            'spec.resourceClaims[1].name: Duplicate value: "gpu"',
            id="duplicate",
        ),
        pytest.param(
            [{"name": "My_GPU", "resourceClaimName": "a"}],
            f'spec.resourceClaims[0].name: Invalid value: "My_GPU": {DNS_LABEL}',
            id="not-a-dns-label",
        ),
        pytest.param(
            [{"name": "gpu", "resourceClaimName": "a", "resourceClaimTemplateName": "t"}],
            'spec.resourceClaims[0]: Invalid value: core.PodResourceClaim{Name:"gpu", '
            'ResourceClaimName:(*string)("a"), ResourceClaimTemplateName:(*string)("t")}: ' + BOTH,
            id="both",
        ),
        pytest.param(
            [{"name": "gpu"}],
            'spec.resourceClaims[0]: Invalid value: core.PodResourceClaim{Name:"gpu", '
            "ResourceClaimName:(*string)(nil), ResourceClaimTemplateName:(*string)(nil)}: "
            + NEITHER,
            id="neither",
        ),
        pytest.param(
            [{"name": "gpu", "resourceClaimName": "Shared_GPU"}],
            'spec.resourceClaims[0].resourceClaimName: Invalid value: "Shared_GPU": '
            + DNS_SUBDOMAIN,
            id="claim-name",
        ),
        pytest.param(
            [{"name": "gpu", "resourceClaimTemplateName": "-t"}],
            'spec.resourceClaims[0].resourceClaimTemplateName: Invalid value: "-t": '
            + DNS_SUBDOMAIN,
            id="template-name",
        ),
    ],
)
def test_a_bad_pod_claim_is_refused(
    cluster: MemoryCluster, claims: list[dict[str, Any]], message: str
) -> None:
    assert refusal(cluster, pod(claims)) == message


def test_a_container_claim_must_name_a_pod_claim(cluster: MemoryCluster) -> None:
    claims = [{"name": "nic", "resourceClaimName": "a"}, {"name": "gpu", "resourceClaimName": "b"}]
    assert refusal(cluster, pod(claims, {"name": "tpu"})) == (
        'spec.containers[0].resources.claims[0]: Not found: "tpu": '
        "must be one of the names in pod.spec.resourceClaims: gpu, nic"
    )
    assert refusal(cluster, pod([], {"name": "gpu"}, init=True)) == (
        'spec.initContainers[0].resources.claims[0]: Not found: "gpu": '
        "must be one of the names in pod.spec.resourceClaims which is empty"
    )


def test_a_container_claim_once_per_request_with_a_dns_label_request(
    cluster: MemoryCluster,
) -> None:
    claims = [{"name": "gpu", "resourceClaimName": "a"}]
    uses = ({"name": "gpu"}, {"name": ""}, {"name": "gpu"}, {"name": "gpu", "request": "R"})
    assert refusal(cluster, pod(claims, *uses)) == (
        "[spec.containers[0].resources.claims[1]: Required value, "
        'spec.containers[0].resources.claims[2]: Duplicate value: "gpu", '
        f'spec.containers[0].resources.claims[3].request: Invalid value: "R": {DNS_LABEL}]'
    )


def test_pod_claims_are_reported_before_the_containers(cluster: MemoryCluster) -> None:
    claims = [{"name": "gpu"}]
    assert refusal(cluster, pod(claims, {"name": "nic"})) == (
        '[spec.resourceClaims[0]: Invalid value: core.PodResourceClaim{Name:"gpu", '
        f"ResourceClaimName:(*string)(nil), ResourceClaimTemplateName:(*string)(nil)}}: {NEITHER}, "
        'spec.containers[0].resources.claims[0]: Not found: "nic": '
        "must be one of the names in pod.spec.resourceClaims: gpu]"
    )
