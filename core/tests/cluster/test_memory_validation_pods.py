"""The memory cluster refuses a pod the API server would refuse, with its message.

Cases and texts from pkg/apis/core/validation/validation.go (ValidatePodCreate) and its
tests; ``Pod "web-1" is invalid: `` is errors.NewInvalid's prefix, several errors are joined
as ``[a, b]``.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import Pod
from kubesched.cluster.memory import AdmissionError, MemoryCluster

IMAGE = "registry.k8s.io/pause:3.10"
APP = {"name": "app", "image": IMAGE}
LABEL_VALUE_RULE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
NAME_PART_RULE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def container(name: str = "app", **fields: Any) -> dict[str, Any]:
    return {"name": name, "image": IMAGE, **fields}


def resources(**kinds: dict[str, str]) -> dict[str, Any]:
    return container(resources=kinds)


def pod(meta: dict[str, Any] | None = None, **spec: Any) -> Pod:
    return Pod.model_validate(
        {"metadata": {"name": "web-1", **(meta or {})}, "spec": {"containers": [APP], **spec}}
    )


def refusal(cluster: MemoryCluster, obj: Pod) -> str:
    with pytest.raises(AdmissionError) as caught:
        cluster.create_many([obj])
    assert caught.value.reason == "invalid"
    assert cluster.list("Pod") == []
    return str(caught.value).removeprefix('Pod "web-1" is invalid: ')


GPU = "example.com/gpu"
TERM = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
ANTI = "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"


def required_node_affinity(*expressions: dict[str, Any]) -> dict[str, Any]:
    terms = [{"matchExpressions": list(expressions)}] if expressions else []
    required = {"nodeSelectorTerms": terms}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}


CASES: list[tuple[str, dict[str, Any], str]] = [
    ("no containers", {"containers": []}, "spec.containers: Required value"),
    (
        "a container without a name",
        {"containers": [{"image": IMAGE}]},
        "spec.containers[0].name: Required value",
    ),
    (
        "a container name that is not a DNS label",
        {"containers": [container("Web_App")]},
        'spec.containers[0].name: Invalid value: "Web_App": a lowercase RFC 1123 label must '
        "consist of lower case alphanumeric characters or '-', and must start and end with an "
        "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ),
    (
        "two containers of one name",
        {"containers": [APP, APP]},
        'spec.containers[1].name: Duplicate value: "app"',
    ),
    (
        "an init container named like an app container",
        {"initContainers": [APP]},
        'spec.initContainers[0].name: Duplicate value: "app"',
    ),
    (
        "a container without an image",
        {"containers": [{"name": "app"}]},
        "spec.containers[0].image: Required value",
    ),
    (
        "a negative request",
        {"containers": [resources(requests={"cpu": "-1"})]},
        'spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than '
        "or equal to 0",
    ),
    (
        "a negative memory limit, its request defaulted from it",
        {"containers": [resources(limits={"memory": "-1Gi"})]},
        '[spec.containers[0].resources.limits[memory]: Invalid value: "-1Gi": must be greater '
        "than or equal to 0, spec.containers[0].resources.requests[memory]: Invalid value: "
        '"-1Gi": must be greater than or equal to 0]',
    ),
    (
        "a request above its limit",
        {"containers": [resources(requests={"cpu": "1500m"}, limits={"cpu": "1"})]},
        'spec.containers[0].resources.requests: Invalid value: "1500m": must be less than or '
        "equal to cpu limit of 1",
    ),
    (
        "an extended resource requested without a limit",
        {"containers": [resources(requests={GPU: "1"})]},
        "spec.containers[0].resources.limits: Required value: Limit must be set for non "
        "overcommitable resources",
    ),
    (
        "an extended resource whose request is not its limit",
        {"containers": [resources(requests={GPU: "1"}, limits={GPU: "2"})]},
        'spec.containers[0].resources.requests: Invalid value: "1": must be equal to '
        "example.com/gpu limit of 2",
    ),
    (
        "half a GPU",
        {"containers": [resources(limits={GPU: "500m"})]},
        "[spec.containers[0].resources.limits[example.com/gpu]: Invalid value: 500m: must be an "
        "integer, spec.containers[0].resources.requests[example.com/gpu]: Invalid value: 500m: "
        "must be an integer]",
    ),
    (
        "a resource name that is neither standard nor qualified",
        {"containers": [resources(requests={"gpu": "1"})]},
        '[spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard '
        "resource type or fully qualified, spec.containers[0].resources.requests[gpu]: Invalid "
        'value: "gpu": must be a standard resource for containers]',
    ),
    (
        "hugepages alone",
        {"containers": [resources(limits={"hugepages-2Mi": "4Mi"})]},
        "spec.containers[0].resources: Forbidden: HugePages require cpu or memory",
    ),
    (
        "hugepages that are not whole pages",
        {"containers": [resources(limits={"hugepages-2Mi": "3Mi", "memory": "1Gi"})]},
        '[spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not '
        "positive integer multiple of hugepages-2Mi, spec.containers[0].resources.requests"
        '[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not positive integer multiple of '
        "hugepages-2Mi]",
    ),
    (
        "pod-level requests below the containers'",
        {
            "containers": [resources(requests={"cpu": "2"})],
            "resources": {"requests": {"cpu": "1"}},
        },
        'spec.resources.requests[cpu]: Invalid value: "1": must be greater than or equal to '
        "aggregate container requests of 2",
    ),
    (
        "a pod-level resource that pods cannot set",
        {"resources": {"requests": {"ephemeral-storage": "1Gi"}}},
        'spec.resources.requests[ephemeral-storage]: Unsupported value: "ephemeral-storage": '
        'supported values: "cpu", "hugepages-", "memory"',
    ),
    (
        "a container limit above the pod's",
        {
            "containers": [resources(requests={"cpu": "500m"}, limits={"cpu": "2"})],
            "resources": {"limits": {"cpu": "1"}},
        },
        'spec.resources.containers[0][cpu].limits: Invalid value: "2": must be less than or '
        "equal to pod limits of 1",
    ),
    (
        "no port number",
        {"containers": [container(ports=[{"hostPort": 80}])]},
        "spec.containers[0].ports[0].containerPort: Required value",
    ),
    (
        "a host port used twice",
        {
            "containers": [
                container(ports=[{"containerPort": 80, "hostPort": 8080}]),
                container("sidecar", ports=[{"containerPort": 81, "hostPort": 8080}]),
            ]
        },
        'spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"',
    ),
    (
        "a host-network port whose host port differs",
        {
            "hostNetwork": True,
            "containers": [container(ports=[{"containerPort": 80, "hostPort": 81}])],
        },
        "spec.containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` "
        "when `hostNetwork` is true",
    ),
    (
        "an init container restarting other than Always",
        {"initContainers": [container("init", restartPolicy="OnFailure")]},
        'spec.initContainers[0].restartPolicy: Unsupported value: "OnFailure": supported values: '
        '"Always"',
    ),
    (
        "a restart policy on an app container",
        {"containers": [container(restartPolicy="Always")]},
        "spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers",
    ),
    (
        "a node selector value with a space",
        {"nodeSelector": {"disk": "fast ssd"}},
        f'spec.nodeSelector: Invalid value: "fast ssd": {LABEL_VALUE_RULE}',
    ),
    (
        "no node selector terms",
        {"affinity": required_node_affinity()},
        f"{TERM}.nodeSelectorTerms: Required value: must have at least one node selector term",
    ),
    (
        "Exists with values",
        {
            "affinity": required_node_affinity(
                {"key": "zone", "operator": "Exists", "values": ["a"]}
            )
        },
        f"{TERM}.nodeSelectorTerms[0].matchExpressions[0].values: Forbidden: may not be "
        "specified when `operator` is 'Exists' or 'DoesNotExist'",
    ),
    (
        "In without values",
        {"affinity": required_node_affinity({"key": "zone", "operator": "In"})},
        f"{TERM}.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be "
        "specified when `operator` is 'In' or 'NotIn'",
    ),
    (
        "Gt with two values",
        {
            "affinity": required_node_affinity(
                {"key": "cpus", "operator": "Gt", "values": ["1", "2"]}
            )
        },
        f"{TERM}.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be "
        "specified single value when `operator` is 'Lt' or 'Gt'",
    ),
    (
        "a match field other than the node name",
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchFields": [{"key": "zone", "operator": "In", "values": ["a"]}]}
                        ]
                    }
                }
            }
        },
        f'{TERM}.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "zone": not a valid '
        "field selector key",
    ),
    (
        "a preferred term of weight 0",
        {
            "affinity": {
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 0, "preference": {"matchExpressions": []}}
                    ]
                }
            }
        },
        "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: "
        "Invalid value: 0: must be in the range 1-100",
    ),
    (
        "an anti-affinity term without a topology key",
        {
            "affinity": {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": "web"}}}
                    ]
                }
            }
        },
        f"[{ANTI}.topologyKey: Required value: can not be empty, {ANTI}.topologyKey: Invalid "
        f'value: "": name part must be non-empty, {ANTI}.topologyKey: Invalid value: "": '
        f"{NAME_PART_RULE}]",
    ),
    (
        "a toleration of every key that is not Exists",
        {"tolerations": [{"operator": "Equal", "value": "x"}]},
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when '
        '`key` is empty, which means "match all values and all keys"',
    ),
    (
        "tolerationSeconds on a NoSchedule toleration",
        {"tolerations": [{"key": "k", "effect": "NoSchedule", "tolerationSeconds": 30}]},
        "spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' "
        "when `tolerationSeconds` is set",
    ),
    (
        "an Exists toleration with a value",
        {"tolerations": [{"key": "k", "operator": "Exists", "value": "v"}]},
        'spec.tolerations[0].operator: Invalid value: "v": value must be empty when `operator` '
        "is 'Exists'",
    ),
    (
        "a spread constraint of skew 0",
        {
            "topologySpreadConstraints": [
                {"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
            ]
        },
        "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero",
    ),
    (
        "minDomains with ScheduleAnyway",
        {
            "topologySpreadConstraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "whenUnsatisfiable": "ScheduleAnyway",
                    "minDomains": 2,
                }
            ]
        },
        "spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can only use "
        "minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
    ),
    (
        "the same spread constraint twice",
        {
            "topologySpreadConstraints": [
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
                {"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
            ]
        },
        "spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "
        '"{zone, DoNotSchedule}"',
    ),
    (
        "a scheduling gate twice",
        {"schedulingGates": [{"name": "example.com/hold"}, {"name": "example.com/hold"}]},
        'spec.schedulingGates[1]: Duplicate value: "example.com/hold"',
    ),
    (
        "a node name and scheduling gates",
        {"nodeName": "n1", "schedulingGates": [{"name": "example.com/hold"}]},
        "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared",
    ),
    (
        "a claim volume without a claim",
        {"volumes": [{"name": "data", "persistentVolumeClaim": {"readOnly": True}}]},
        "spec.volumes[0].persistentVolumeClaim.claimName: Required value",
    ),
    (
        "a volume without a source",
        {"volumes": [{"name": "data"}]},
        "spec.volumes[0]: Required value: must specify a volume type",
    ),
]


@pytest.mark.parametrize(("spec", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_an_invalid_pod_is_refused_with_the_api_servers_message(
    cluster: MemoryCluster, spec: dict[str, Any], message: str
) -> None:
    assert refusal(cluster, pod(**spec)) == message


def test_metadata_is_validated_too(cluster: MemoryCluster) -> None:
    bad = pod({"labels": {"a/b/c": "x"}})
    assert refusal(cluster, bad) == (
        'metadata.labels: Invalid value: "a/b/c": a qualified name must consist of alphanumeric '
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and "
        "'/' (e.g. 'example.com/MyName')"
    )
    with pytest.raises(AdmissionError) as caught:
        cluster.create_many([pod({"name": "Web_1"})])
    assert str(caught.value) == (
        'Pod "Web_1" is invalid: metadata.name: Invalid value: "Web_1": a lowercase RFC 1123 '
        "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'example.com', regex used for "
        r"validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    )


def test_a_valid_pod_with_everything_scheduling_reads_is_stored(cluster: MemoryCluster) -> None:
    spec = {
        "containers": [
            resources(requests={"cpu": "500m", "memory": "1Gi"}, limits={GPU: "1"}),
            container("sidecar", ports=[{"containerPort": 80, "hostPort": 8080, "name": "http"}]),
        ],
        "initContainers": [container("init", restartPolicy="Always")],
        "nodeSelector": {"disktype": "ssd"},
        "tolerations": [
            {"operator": "Exists"},
            {
                "key": "k",
                "operator": "Equal",
                "value": "v",
                "effect": "NoExecute",
                "tolerationSeconds": 30,
            },
        ],
        "affinity": required_node_affinity({"key": "zone", "operator": "In", "values": ["a"]}),
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": "zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "minDomains": 2,
                "labelSelector": {"matchLabels": {"app": "web"}},
                "matchLabelKeys": ["pod-template-hash"],
            },
        ],
        "schedulingGates": [{"name": "example.com/hold"}],
        "volumes": [
            {"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
            {"name": "tmp", "emptyDir": {}},
        ],
        "resources": {"limits": {"cpu": "2", "memory": "2Gi"}},
    }
    [stored] = cluster.create_many([pod({"labels": {"app": "web"}}, **spec)])
    assert stored.metadata.name == "web-1"


def test_every_problem_is_reported_once(cluster: MemoryCluster) -> None:
    spec = {"containers": [container("App"), container("App")]}
    message = refusal(cluster, pod(**spec))
    assert message.startswith('[spec.containers[0].name: Invalid value: "App": ')
    assert message.count('spec.containers[1].name: Invalid value: "App"') == 1
    assert message.endswith('spec.containers[1].name: Duplicate value: "App"]')
