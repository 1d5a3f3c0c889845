"""What `kubesched snapshot` keeps of a live cluster's objects (`kubesched.simulate._snapshot`)
and how `--anonymize` renames them (`kubesched.simulate._anonymize`), without an API server:
the server's fields stripped, the pods of each `--pods` mode, the files `simulate` reads, and
a renaming that keeps every selector, owner and reference pointing where it pointed."""

from __future__ import annotations

import copy
import string
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.cluster.memory import default_kinds
from kubesched.runtime import make_plugin_manager
from kubesched.simulate import load_manifests
from kubesched.simulate._anonymize import KEPT_WORDS, Anonymizer
from kubesched.simulate._snapshot import clean_object, make_snapshot, snapshot_file_name
from kubesched.workloads import register as register_workloads


def kinds() -> Any:
    pm = make_plugin_manager(load_entrypoints=False)
    register_workloads(pm)
    return default_kinds(pm)


def pod(name: str, *, node: str = "", phase: str = "", **meta: Any) -> dict[str, Any]:
    status: dict[str, Any] = {"phase": phase or ("Running" if node else "Pending")}
    if node:
        status["conditions"] = [{"type": "PodScheduled", "status": "True"}]
        status["podIP"] = "10.0.0.7"
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "busybox"}]}
    if node:
        spec["nodeName"] = node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": f"uid-{name}",
            "resourceVersion": "42",
            "creationTimestamp": "2026-11-26T10:00:00Z",
            "managedFields": [{"manager": "kubectl"}],
            **meta,
        },
        "spec": spec,
        "status": status,
    }


PODS = [
    pod("bound", node="n1"),
    pod("pending"),
    pod("done", node="n1", phase="Succeeded"),
    pod("etcd-n1", node="n1", annotations={"kubernetes.io/config.mirror": "x"}),
    pod("leaving", node="n1", deletionTimestamp="2026-11-26T10:05:00Z"),
]


def names(text: str) -> list[str]:
    return [i["metadata"]["name"] for i in yaml.safe_load(text)["items"]]


def test_clean_object_strips_what_only_a_server_sets() -> None:
    raw = pod("p", annotations={"kubectl.kubernetes.io/last-applied-configuration": "{}"})
    raw["metadata"]["generation"] = 3
    raw["metadata"]["selfLink"] = "/api/v1/namespaces/default/pods/p"
    before = copy.deepcopy(raw)
    obj = clean_object(raw)
    assert obj is not None
    assert obj["metadata"] == {
        "name": "p",
        "namespace": "default",
        "uid": "uid-p",
        "creationTimestamp": "2026-11-26T10:00:00Z",
    }
    assert raw == before  # the listed object is left as it was
    assert clean_object(PODS[-1]) is None  # being deleted


@pytest.mark.parametrize(
    ("mode", "kept", "unbound"),
    [
        ("keep", ["bound", "done", "etcd-n1", "pending"], 0),
        ("drop-bound", ["done", "etcd-n1", "pending"], 0),
        ("unbind", ["bound", "done", "etcd-n1", "pending"], 1),
    ],
)
def test_the_pods_of_each_mode(mode: Any, kept: list[str], unbound: int) -> None:
    info = kinds().get("v1", "Pod")
    snapshot = make_snapshot([(info, PODS)], pods=mode)
    assert names(snapshot.files["pods.yaml"]) == kept
    assert snapshot.unbound == unbound
    assert snapshot.dropped.get("being deleted") == 1
    assert snapshot.dropped.get("bound pod", 0) == (1 if mode == "drop-bound" else 0)
    items = {i["metadata"]["name"]: i for i in yaml.safe_load(snapshot.files["pods.yaml"])["items"]}
    # a mirror and a finished pod stay on their node in every mode
    assert items["etcd-n1"]["spec"]["nodeName"] == items["done"]["spec"]["nodeName"] == "n1"
    if mode == "unbind":
        assert "nodeName" not in items["bound"]["spec"]
        assert items["bound"]["status"] == {"phase": "Pending"}
    elif mode == "keep":
        assert items["bound"]["status"]["conditions"][0]["type"] == "PodScheduled"


def test_files_are_kubectl_lists_simulate_loads(tmp_path: Path) -> None:
    registry = kinds()
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1", "resourceVersion": "9"},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
    }
    snapshot = make_snapshot(
        [(registry.get("v1", "Node"), [node]), (registry.get("v1", "Pod"), PODS)]
    )
    assert snapshot.counts == {"nodes": 1, "pods": 4}
    snapshot.write(tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["nodes.yaml", "pods.yaml"]
    loaded = load_manifests([tmp_path / "out"], registry)  # strict field validation
    assert sorted(o.to_dict()["metadata"]["name"] for o in loaded.objects) == [
        "bound",
        "done",
        "etcd-n1",
        "n1",
        "pending",
    ]
    assert snapshot_file_name(registry.get("apps/v1", "Deployment")) == "deployments.apps.yaml"
    assert snapshot_file_name(registry.get("v1", "Node")) == "nodes.yaml"


# -- anonymize -----------------------------------------------------------------------------

NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {
        "name": "ip-10-0-1-23.ec2.internal",
        "uid": "n-uid",
        "labels": {
            "kubernetes.io/hostname": "ip-10-0-1-23.ec2.internal",
            "topology.kubernetes.io/zone": "eu-west-1a",
            "kubernetes.io/os": "linux",
        },
        "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
    },
    "spec": {"providerID": "aws:///eu-west-1a/i-0abc", "podCIDR": "10.1.0.0/24"},
    "status": {"addresses": [{"type": "InternalIP", "address": "10.0.1.23"}], "capacity": {}},
}
RS_POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "name": "checkout-7d4b9c-x2x7k",
        "generateName": "checkout-7d4b9c-",
        "namespace": "payments",
        "uid": "p-uid",
        "labels": {"app": "checkout", "pod-template-hash": "7d4b9c"},
        "annotations": {"owner": "alice@example.com", "simulation.kubesched.io/duration": "5m"},
        "ownerReferences": [
            {"kind": "ReplicaSet", "name": "checkout-7d4b9c", "uid": "rs-uid", "controller": True}
        ],
    },
    "spec": {
        "nodeName": "ip-10-0-1-23.ec2.internal",
        "priorityClassName": "system-node-critical",
        "nodeSelector": {"topology.kubernetes.io/zone": "eu-west-1a"},
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchFields": [
                                {
                                    "key": "metadata.name",
                                    "operator": "In",
                                    "values": ["ip-10-0-1-23.ec2.internal"],
                                }
                            ]
                        }
                    ]
                }
            },
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": {
                            "matchExpressions": [
                                {"key": "app", "operator": "In", "values": ["checkout"]}
                            ]
                        },
                        "namespaces": ["payments"],
                        "topologyKey": "kubernetes.io/hostname",
                    }
                ]
            },
        },
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}}],
        "containers": [{"name": "checkout", "image": "registry.example.com/checkout:1.2"}],
    },
    "status": {"podIP": "10.1.0.5", "hostIP": "10.0.1.23", "phase": "Running"},
}
MIRROR = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "kube-apiserver-ip-10-0-1-23.ec2.internal", "namespace": "kube-system"},
    "spec": {},
}


def renamed() -> tuple[Anonymizer, dict[str, Any], dict[str, Any], dict[str, Any]]:
    anonymizer = Anonymizer([NODE, RS_POD, MIRROR])
    return anonymizer, anonymizer.apply(NODE), anonymizer.apply(RS_POD), anonymizer.apply(MIRROR)


def test_a_node_is_renamed_alike_wherever_it_is_named() -> None:
    anonymizer, node, pod_, mirror = renamed()
    new = node["metadata"]["name"]
    assert new.startswith("node-") and len(new) == len("node-") + 10
    assert node["metadata"]["labels"]["kubernetes.io/hostname"] == new
    assert pod_["spec"]["nodeName"] == new
    terms = pod_["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]
    assert terms["nodeSelectorTerms"][0]["matchFields"][0]["values"] == [new]
    # a static pod's mirror is named after its node
    assert mirror["metadata"]["name"] == f"{anonymizer.value('kube-apiserver')}-{new}"
    assert mirror["metadata"]["name"].startswith("kube-")
    assert mirror["metadata"]["namespace"] == "kube-system"
    # nothing of the node's address is left
    text = yaml.safe_dump([node, pod_, mirror])
    assert "10.0.1.23" not in text and "ip-10" not in text and "eu-west" not in text
    assert "providerID" not in text and "addresses" not in text and "podIP" not in text
    assert anonymizer.value("ip-10-0-1-23.ec2.internal") == new


def test_names_and_selectors_keep_pointing_where_they_pointed() -> None:
    anonymizer, node, pod_, _ = renamed()
    meta = pod_["metadata"]
    app = meta["labels"]["app"]
    assert app != "checkout" and len(app) == len("checkout")
    assert app[0] in string.ascii_lowercase and app.isalnum()
    # a name derived from its owner's keeps the owner's pseudonym as its prefix
    owner = meta["ownerReferences"][0]
    assert owner["uid"] == "rs-uid" and meta["name"].startswith(owner["name"] + "-")
    assert meta["generateName"] == owner["name"] + "-"
    assert owner["name"] == f"{app}-{meta['labels']['pod-template-hash']}"
    # selectors: the same pseudonyms as the labels they select
    term = pod_["spec"]["affinity"]["podAntiAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ][0]
    assert term["labelSelector"]["matchExpressions"][0]["values"] == [app]
    assert term["namespaces"] == [meta["namespace"]]
    zone = node["metadata"]["labels"]["topology.kubernetes.io/zone"]
    assert pod_["spec"]["nodeSelector"] == {"topology.kubernetes.io/zone": zone}
    # a StatefulSet's ordinal stays, and the claim is `<volume>-<pod>` still
    volume = pod_["spec"]["volumes"][0]
    assert volume["persistentVolumeClaim"]["claimName"] == (
        f"{volume['name']}-{anonymizer.value('db')}-0"
    )
    # what keeps its meaning
    assert pod_["spec"]["priorityClassName"] == "system-node-critical"
    assert node["metadata"]["labels"]["kubernetes.io/os"] == "linux"
    # a uid stays, and so does a label value that is one (a Job's controller-uid)
    job = {"kind": "Job", "metadata": {"name": "report", "uid": "3f2a-77"}}
    assert Anonymizer([job]).value("3f2a-77") == "3f2a-77"
    assert Anonymizer([job]).value("report") != "report"
    # annotations: only those a simulation reads
    assert meta["annotations"] == {"simulation.kubesched.io/duration": "5m"}
    assert node["metadata"].get("annotations") is None
    # images are left alone (ImageLocality compares them with the node's)
    assert pod_["spec"]["containers"][0]["image"] == "registry.example.com/checkout:1.2"


def test_the_renaming_is_stable_and_the_salt_changes_it() -> None:
    assert renamed()[1:] == renamed()[1:]
    plain = Anonymizer([NODE, RS_POD]).value("payments")
    salted = Anonymizer([NODE, RS_POD], salt="secret").value("payments")
    assert plain != salted and len(plain) == len(salted) == len("payments")
    assert all(Anonymizer([], salt="x").value(w) == w for w in KEPT_WORDS)


def test_different_words_never_get_the_same_pseudonym() -> None:
    """52 one-character words have 26 pseudonyms of one character: the others grow."""
    anonymizer = Anonymizer([])
    words = list(string.ascii_lowercase + string.ascii_uppercase)
    mapped = [anonymizer.value(w) for w in words]
    assert len(set(mapped)) == len(words)
    assert all(m[0] in string.ascii_lowercase for m in mapped)
    assert [anonymizer.value(w) for w in words] == mapped  # each word keeps its pseudonym


def test_the_volume_annotations_stay_with_their_names_renamed() -> None:
    """A delayed-binding claim's selected node and its StorageClass annotation are read by
    the PV controller and volume binding: kept, renamed as the node and class are."""
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": "data-db-0",
            "namespace": "shop",
            "annotations": {
                "volume.kubernetes.io/selected-node": "ip-10-0-1-23.ec2.internal",
                "volume.beta.kubernetes.io/storage-class": "fast-ssd",
                "volume.kubernetes.io/storage-provisioner": "ebs.csi.aws.com",
                "pv.kubernetes.io/bind-completed": "yes",
                "team": "payments",
            },
        },
        "spec": {"storageClassName": "fast-ssd"},
    }
    anonymizer = Anonymizer([NODE, claim])
    renamed = anonymizer.apply(claim)
    annotations = renamed["metadata"]["annotations"]
    assert annotations == {
        "volume.kubernetes.io/selected-node": anonymizer.value("ip-10-0-1-23.ec2.internal"),
        "volume.beta.kubernetes.io/storage-class": renamed["spec"]["storageClassName"],
        "volume.kubernetes.io/storage-provisioner": "ebs.csi.aws.com",
        "pv.kubernetes.io/bind-completed": "yes",
    }
    assert annotations["volume.kubernetes.io/selected-node"].startswith("node-")
    assert renamed["spec"]["storageClassName"] != "fast-ssd"
