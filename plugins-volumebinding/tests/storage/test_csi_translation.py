"""In-tree → CSI translation (k8s.io/csi-translation-lib): which driver and volume handle an
in-tree PV or inline volume has, and when the scheduler counts it (isCSIMigrationOn,
v1.34: EBS, GCE PD, Azure Disk and Cinder with any CSINode; Portworx when the CSINode's
migrated-plugins annotation lists it; vSphere, Azure File and RBD never)."""

from __future__ import annotations

from typing import Any

import pytest
from volumebinding_helpers import csi_node, make_pv

from kubesched.api import Volume
from kubesched_volumebinding.storage import (
    PersistentVolume,
    TranslationError,
    in_tree_plugin_named,
    inline_in_tree_plugin,
    is_csi_migration_on,
    pv_in_tree_plugin,
    translate_inline_volume,
    translate_pv,
    volume_source,
)

BETA_ZONE, ZONE = "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"


def _pv(source: str, spec: dict[str, Any], **labels: str) -> PersistentVolume:
    return make_pv("pv").labels(labels).spec(**{source: spec}).obj()


PV_CASES: dict[str, tuple[PersistentVolume, tuple[str, str]]] = {
    "EBS bare ID": (
        _pv("awsElasticBlockStore", {"volumeID": "vol-1"}),
        ("ebs.csi.aws.com", "vol-1"),
    ),
    "EBS URL with zone": (
        _pv("awsElasticBlockStore", {"volumeID": "aws://us-east-1a/vol-0a1b"}),
        ("ebs.csi.aws.com", "vol-0a1b"),
    ),
    "EBS URL without zone": (
        _pv("awsElasticBlockStore", {"volumeID": "aws:///vol-2"}),
        ("ebs.csi.aws.com", "vol-2"),
    ),
    "GCE PD in a zone (beta label first)": (
        _pv("gcePersistentDisk", {"pdName": "d"}, **{BETA_ZONE: "us-central1-a", ZONE: "x"}),
        ("pd.csi.storage.gke.io", "projects/UNSPECIFIED/zones/us-central1-a/disks/d"),
    ),
    "GCE PD in a zone (GA label)": (
        _pv("gcePersistentDisk", {"pdName": "d"}, **{ZONE: "europe-west1-b"}),
        ("pd.csi.storage.gke.io", "projects/UNSPECIFIED/zones/europe-west1-b/disks/d"),
    ),
    "GCE PD regional": (
        _pv("gcePersistentDisk", {"pdName": "d"}, **{ZONE: "us-central1-a__us-central1-c"}),
        ("pd.csi.storage.gke.io", "projects/UNSPECIFIED/regions/us-central1/disks/d"),
    ),
    "GCE PD without zone": (
        _pv("gcePersistentDisk", {"pdName": "d"}),
        ("pd.csi.storage.gke.io", "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d"),
    ),
    "Azure Disk": (
        _pv("azureDisk", {"diskName": "d", "diskURI": "/subscriptions/s/disks/d"}),
        ("disk.csi.azure.com", "/subscriptions/s/disks/d"),
    ),
    "Cinder": (_pv("cinder", {"volumeID": "c-1"}), ("cinder.csi.openstack.org", "c-1")),
    "Portworx": (_pv("portworxVolume", {"volumeID": "px"}), ("pxd.portworx.com", "px")),
    "vSphere": (
        _pv("vsphereVolume", {"volumePath": "[ds] v.vmdk"}),
        ("csi.vsphere.vmware.com", "[ds] v.vmdk"),
    ),
}


@pytest.mark.parametrize(("pv", "want"), PV_CASES.values(), ids=PV_CASES.keys())
def test_translate_pv(pv: PersistentVolume, want: tuple[str, str]) -> None:
    assert translate_pv(pv) == want


@pytest.mark.parametrize(
    ("pv", "message"),
    [
        (
            _pv("awsElasticBlockStore", {"volumeID": "aws://us-east-1a/disk-1"}),
            "Invalid format for AWS volume (aws://us-east-1a/disk-1)",
        ),
        (
            _pv("gcePersistentDisk", {"pdName": "d"}, **{ZONE: "us-central1-a__europe-west1-b"}),
            "multiple or no regions gotten from zones",
        ),
        (_pv("gcePersistentDisk", {"pdName": "d"}, **{ZONE: "a__b"}), "zone in unexpected format"),
        (make_pv("pv").spec(hostPath={"path": "/x"}).obj(), "could not find in-tree plugin"),
        (_pv("azureFile", {"shareName": "s"}), "could not find in-tree plugin"),
    ],
)
def test_untranslatable_pvs(pv: PersistentVolume, message: str) -> None:
    with pytest.raises(TranslationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        translate_pv(pv)


@pytest.mark.parametrize(
    ("source", "spec", "want"),
    [
        ("awsElasticBlockStore", {"volumeID": "aws-inline1"}, ("ebs.csi.aws.com", "aws-inline1")),
        (
            "gcePersistentDisk",
            {"pdName": "d"},
            ("pd.csi.storage.gke.io", "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/d"),
        ),
        ("cinder", {"volumeID": "c"}, ("cinder.csi.openstack.org", "c")),
        ("azureDisk", {"diskURI": "uri"}, ("disk.csi.azure.com", "uri")),
        ("portworxVolume", {"volumeID": "px"}, ("pxd.portworx.com", "px")),
    ],
)
def test_translate_inline(source: str, spec: dict[str, Any], want: tuple[str, str]) -> None:
    vol = Volume.model_validate({"name": "v", source: spec})
    assert translate_inline_volume(vol) == want
    plugin = inline_in_tree_plugin(vol)
    assert plugin is not None and plugin.driver == want[0]


def test_migration_is_on_per_plugin_and_node() -> None:
    bare, annotated = csi_node("n"), csi_node("n", migrated="kubernetes.io/portworx-volume,x")
    for name in ("kubernetes.io/aws-ebs", "kubernetes.io/gce-pd", "kubernetes.io/azure-disk"):
        assert is_csi_migration_on(bare, name) and not is_csi_migration_on(None, name)
    assert is_csi_migration_on(bare, "kubernetes.io/cinder")
    assert not is_csi_migration_on(bare, "kubernetes.io/portworx-volume")
    assert is_csi_migration_on(annotated, "kubernetes.io/portworx-volume")
    everything = csi_node("n", migrated="kubernetes.io/vsphere-volume,kubernetes.io/azure-file")
    for name in ("kubernetes.io/vsphere-volume", "kubernetes.io/azure-file", "kubernetes.io/rbd"):
        assert not is_csi_migration_on(everything, name)
    assert not is_csi_migration_on(bare, "")


def test_sources_are_found_as_written_and_typed() -> None:
    pv = PersistentVolume.model_validate(
        {"metadata": {"name": "pv"}, "spec": {"awsElasticBlockStore": {"volumeID": "vol-1"}}}
    )
    assert pv.spec.aws_elastic_block_store == {"volumeID": "vol-1"}
    assert pv.to_dict()["spec"]["awsElasticBlockStore"] == {"volumeID": "vol-1"}
    plugin = pv_in_tree_plugin(pv)
    assert plugin is not None and plugin.name == "kubernetes.io/aws-ebs"
    assert in_tree_plugin_named("kubernetes.io/aws-ebs") is plugin
    assert in_tree_plugin_named("ebs.csi.aws.com") is None
    camel = Volume.model_validate({"name": "v", "gcePersistentDisk": {"pdName": "d"}})
    snake = Volume(name="v", gce_persistent_disk={"pdName": "d"})  # type: ignore[call-arg]
    assert volume_source(camel, "gcePersistentDisk") == volume_source(snake, "gcePersistentDisk")
    assert volume_source(camel, "awsElasticBlockStore") is None
    assert (
        inline_in_tree_plugin(Volume(name="v", persistent_volume_claim={"claimName": "c"})) is None
    )
