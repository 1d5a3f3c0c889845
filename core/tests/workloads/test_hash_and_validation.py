"""The pod-template hash (upstream controller.ComputeHash's form) and what the embedded API
server refuses of a workload on create."""

from __future__ import annotations

import pytest
from workload_harness import new_cluster, objects

from kubesched.cluster.memory import AdmissionError
from kubesched.workloads import PodTemplateSpec, compute_hash, safe_encode_string
from kubesched.workloads._pods import _fnv32a


def test_fnv32a_matches_the_reference_values() -> None:
    assert _fnv32a(b"") == 0x811C9DC5
    assert _fnv32a(b"a") == 0xE40C292C
    assert _fnv32a(b"foobar") == 0xBF9CF968


def test_safe_encode_string_maps_each_byte_onto_the_safe_alphabet() -> None:
    # upstream rand.SafeEncodeString: alphanums[b % 27]
    assert safe_encode_string("1") == "5"
    assert safe_encode_string("0123456789") == "456789bcdf"


def test_the_hash_is_stable_and_changes_with_the_template_and_collision_count() -> None:
    a = PodTemplateSpec.model_validate({"metadata": {"labels": {"app": "a"}}})
    b = PodTemplateSpec.model_validate({"metadata": {"labels": {"app": "b"}}})
    assert compute_hash(a) == compute_hash(a.model_copy(deep=True))
    assert compute_hash(a) != compute_hash(b)
    assert compute_hash(a) != compute_hash(a, 1)
    assert set(compute_hash(a)) <= set("bcdfghjklmnpqrstvwxz2456789")
    assert 1 <= len(compute_hash(a)) <= 10


def _refused(text: str, *, entrypoints: bool = False) -> str:
    cluster, loop = new_cluster(entrypoints=entrypoints)
    try:
        [obj] = objects(text, cluster)
        with pytest.raises(AdmissionError) as info:
            cluster.create_many([obj])
        return str(info.value)
    finally:
        loop.close()


NEUTRAL = "schedulerName: default-scheduler"
TEMPLATE = """
  template:
    metadata: {labels: {app: web}}
    spec:
      %s
      containers: [{name: c, image: nginx}]
"""


@pytest.mark.parametrize(
    ("head", "spec", "message"),
    [
        (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
            "spec:\n  selector: {matchLabels: {app: api}}",
            NEUTRAL,
            'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: '
            'map[string]string{"app":"web"}: `selector` does not match template `labels`',
        ),
        (
            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web}\nspec:\n  replicas: 1",
            NEUTRAL,
            'ReplicaSet.apps "web" is invalid: spec.selector: Required value',
        ),
        (
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: web}\n"
            "spec:\n  selector: {matchLabels: {app: web}}",
            "restartPolicy: Never",
            'DaemonSet.apps "web" is invalid: spec.template.spec.restartPolicy: Unsupported '
            'value: "Never": supported values: "Always"',
        ),
        (
            "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\n"
            "spec:\n  selector: {matchLabels: {app: web}}",
            NEUTRAL,
            'StatefulSet.apps "db" is invalid: spec.serviceName: Required value: '
            "a StatefulSet needs serviceName",
        ),
        (
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:",
            NEUTRAL,
            'Job.batch "j" is invalid: spec.template.spec.restartPolicy: Required value: '
            'valid values: "OnFailure", "Never"',
        ),
    ],
)
def test_invalid_workloads_are_refused_naming_the_field(head: str, spec: str, message: str) -> None:
    assert _refused(head + TEMPLATE % spec) == message


def test_a_bad_duration_annotation_is_refused() -> None:
    text = (
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n"
        "    metadata: {annotations: {simulation.kubesched.io/duration: soon}}\n"
        "    spec: {restartPolicy: Never, containers: [{name: c, image: x}]}\n"
    )
    assert _refused(text) == (
        'Job.batch "j" is invalid: spec.template.metadata.annotations'
        '[simulation.kubesched.io/duration]: Invalid value: "soon": a non-negative Go duration '
        'such as "90s" or "1h30m"'
    )


def test_claim_templates_need_the_persistent_volume_claim_kind() -> None:
    text = (
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n"
        "  serviceName: db\n  selector: {matchLabels: {app: web}}\n"
        "  volumeClaimTemplates: [{metadata: {name: data}, spec: {}}]\n" + TEMPLATE % NEUTRAL
    )
    message = _refused(text)
    assert message.startswith('StatefulSet.apps "db" is invalid: spec.volumeClaimTemplates: ')
    assert 'kind "PersistentVolumeClaim" is not registered by any installed package' in message
