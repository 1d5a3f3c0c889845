"""The manifest loader: what loads, in which order, what is skipped, and how bad input is
reported (file, document, field, and what was expected)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest

from kubesched._errors import ManifestError
from kubesched.api import K8sModel, KindInfo, KindRegistry, ObjectMeta, Pod
from kubesched.clock import VirtualClock
from kubesched.cluster.memory import MemoryCluster, default_kinds
from kubesched.simulate._manifests import SkippedObject, load_manifests

DATA = Path(__file__).parent / "data"


class Widget(K8sModel):
    """A kind a plugin package might register."""

    api_version: str = "example.com/v1"
    kind: Literal["Widget"] = "Widget"
    metadata: ObjectMeta
    size: int = 0


def _kinds_with_widget() -> KindRegistry:
    kinds = default_kinds()
    kinds.register(KindInfo("example.com/v1", "Widget", "widgets", namespaced=True, model=Widget))
    return kinds


def _names(objects: list[K8sModel]) -> list[tuple[str, str]]:
    return [(o.kind, o.metadata.name) for o in objects]  # type: ignore[attr-defined]


def test_folder_loads_recursively_in_path_order_and_sorts_for_creation() -> None:
    loaded = load_manifests([DATA / "cluster"], default_kinds())

    assert loaded.files == [
        str(DATA / "cluster" / "mixed.yaml"),
        str(DATA / "cluster" / "more" / "podlist.json"),
        str(DATA / "cluster" / "nodes.yaml"),
        str(DATA / "cluster" / "pods.yaml"),
    ]
    # Namespace, PriorityClass, Node first; pods last, each group in file order.
    assert _names(loaded.objects) == [
        ("Namespace", "team-a"),
        ("PriorityClass", "high"),
        ("Node", "node-a"),
        ("Node", "node-b"),
        ("Pod", "web-1"),
        ("Pod", "from-json"),
        ("Pod", "running"),
        ("Pod", "pending"),
    ]


def test_unregistered_kind_is_skipped_and_reported() -> None:
    loaded = load_manifests([DATA / "cluster" / "mixed.yaml"], default_kinds())

    assert loaded.skipped == [
        SkippedObject(
            file=str(DATA / "cluster" / "mixed.yaml"),
            document=2,
            api_version="apps/v1",
            kind="Deployment",
            reason='kind "Deployment" (apps/v1) is not registered by any installed package',
        )
    ]


def test_registered_kind_under_another_version_is_skipped_naming_the_registered_one() -> None:
    loaded = load_manifests([DATA / "skips" / "versions.yaml"], default_kinds())

    assert loaded.objects == []
    assert [(s.document, s.kind, s.reason) for s in loaded.skipped] == [
        (1, "Node", 'kind "Node" is registered as apiVersion v1, not v2'),
        (
            2,
            "PodDisruptionBudget",
            'kind "PodDisruptionBudget" (policy/v1) is not registered by any installed package',
        ),
    ]


def test_input_documents_beside_the_manifests_are_skipped_saying_where_they_go(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "example"
    folder.mkdir()
    (folder / "nodes.yaml").write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
    inputs = {
        "scheduler-config.yaml": ("kubescheduler.config.k8s.io/v1", "KubeSchedulerConfiguration"),
        "scenario.yaml": ("simulation.kubesched.io/v1alpha1", "Scenario"),
        "faults.yaml": ("simulation.kubesched.io/v1alpha1", "FaultPlan"),
        "sweep.yaml": ("simulation.kubesched.io/v1alpha1", "Sweep"),
    }
    for name, (api_version, kind) in inputs.items():
        (folder / name).write_text(f"apiVersion: {api_version}\nkind: {kind}\n")

    loaded = load_manifests([folder], default_kinds())

    assert [o.metadata.name for o in loaded.objects] == ["n1"]
    assert sorted((s.kind, s.reason) for s in loaded.skipped) == [
        ("FaultPlan", 'kind "FaultPlan" is not a cluster object: give it with --faults'),
        (
            "KubeSchedulerConfiguration",
            'kind "KubeSchedulerConfiguration" is not a cluster object: give it with --config',
        ),
        ("Scenario", 'kind "Scenario" is not a cluster object: give it with --scenario'),
        ("Sweep", 'kind "Sweep" is not a cluster object: run it with `kubesched sweep`'),
    ]


def test_list_items_and_typed_list_items_are_loaded() -> None:
    loaded = load_manifests(
        [DATA / "cluster" / "pods.yaml", DATA / "cluster" / "more" / "podlist.json"],
        default_kinds(),
    )

    pods = {o.metadata.name: o for o in loaded.objects if isinstance(o, Pod)}
    assert set(pods) == {"running", "pending", "from-json"}
    # A PodList item without its own kind/apiVersion takes them from the list.
    assert pods["from-json"].metadata.namespace == "team-a"
    assert pods["from-json"].spec.containers[0].resources.requests["cpu"] * 1000 == 250
    # A pod already bound keeps its node; limits default the requests.
    assert pods["running"].spec.node_name == "node-a"
    assert pods["running"].metadata.uid == "0f6b1c9e-7c1e-4d43-9d55-5d1c0c7a9b11"
    assert pods["pending"].spec.containers[0].resources.requests["cpu"] == 1


def test_empty_documents_are_ignored_but_counted() -> None:
    loaded = load_manifests([DATA / "cluster" / "nodes.yaml"], default_kinds())

    assert _names(loaded.objects) == [("Node", "node-a"), ("Node", "node-b")]


def test_other_kinds_go_between_nodes_and_pods_in_file_order(tmp_path: Path) -> None:
    manifest = tmp_path / "all.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\n"
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w2}\nsize: 2\n---\n"
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\n"
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\n"
    )

    loaded = load_manifests([manifest], _kinds_with_widget())

    assert _names(loaded.objects) == [
        ("Node", "n"),
        ("Widget", "w2"),
        ("Widget", "w1"),
        ("Pod", "p"),
    ]


QUANTITY_EXPECTED = "expected a number with an optional suffix"


@pytest.mark.parametrize(
    ("file", "document", "path", "detail_parts"),
    [
        (
            "bad-quantity.yaml",
            2,
            "spec.containers[1].resources.requests.memory",
            ['quantity "1.5.3Gi" is not valid', QUANTITY_EXPECTED],
        ),
        (
            "wrong-type.yaml",
            1,
            "spec.topologySpreadConstraints[0].maxSkew",
            ["expected a valid integer", 'got "one"'],
        ),
        ("bad-priority-value.yaml", 1, "value", ["valid integer", 'got "very-high"']),
        ("no-name.yaml", 2, "metadata.name", ["Required value"]),
        ("no-kind.yaml", 1, "kind", ["Required value"]),
        ("not-a-mapping.yaml", 1, None, ["expected a Kubernetes object", "got a list"]),
        (
            "bad-list-item.yaml",
            1,
            "items[1].status.allocatable.cpu",
            ['quantity "lots" is not valid'],
        ),
        (
            "duplicate.yaml",
            2,
            "metadata.name",
            ['Pod "default/twin" is defined twice', "document 1"],
        ),
        ("bad-yaml.yaml", 2, None, ["invalid YAML at line 11"]),
        ("bad-json.json", 1, None, ["invalid JSON at line 4"]),
    ],
)
def test_bad_manifest_names_file_document_and_field(
    file: str, document: int, path: str | None, detail_parts: list[str]
) -> None:
    target = DATA / "bad" / file
    with pytest.raises(ManifestError) as info:
        load_manifests([target], default_kinds())

    error = info.value
    assert (error.file, error.document, error.path) == (str(target), document, path)
    for part in detail_parts:
        assert part in error.detail
    message = str(error)
    assert message.startswith(f"{target}: document {document}: ")
    if path is not None:
        assert f": {path}: " in message


def test_missing_path_is_an_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"

    with pytest.raises(ManifestError, match="no such file or directory") as info:
        load_manifests([missing], default_kinds())

    assert info.value.file == str(missing)


def test_folder_ignores_other_suffixes(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("this is: [not yaml")
    (tmp_path / "node.yml").write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n")

    loaded = load_manifests([tmp_path], default_kinds())

    assert loaded.files == [str(tmp_path / "node.yml")]
    assert _names(loaded.objects) == [("Node", "n")]


def test_loaded_objects_create_cleanly_in_a_memory_cluster() -> None:
    loaded = load_manifests([DATA / "cluster"], default_kinds())
    cluster = MemoryCluster(default_kinds(), VirtualClock())

    cluster.create_many(loaded.objects)

    pending, running = (
        cluster.get("Pod", "pending", "team-a"),
        cluster.get("Pod", "running", "team-a"),
    )
    assert isinstance(pending, Pod) and isinstance(running, Pod)
    assert (pending.spec.priority, pending.spec.preemption_policy) == (1000, "Never")
    assert running.spec.node_name == "node-a"
    assert cluster.get("Pod", "web-1", "default") is not None
    assert len(cluster.list("Node")) == 2


def test_generate_name_is_accepted_and_named_by_the_cluster(tmp_path: Path) -> None:
    manifest = tmp_path / "gen.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {generateName: web-}\n"
        "spec: {containers: [{name: c, image: pause}]}\n"
    )
    loaded = load_manifests([manifest], default_kinds())
    cluster = MemoryCluster(default_kinds(), VirtualClock())

    [pod] = cluster.create_many(loaded.objects)

    assert pod.metadata.name.startswith("web-")  # type: ignore[attr-defined]
    assert len(pod.metadata.name) == len("web-") + 5  # type: ignore[attr-defined]
