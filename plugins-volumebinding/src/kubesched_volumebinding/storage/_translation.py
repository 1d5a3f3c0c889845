"""In-tree volume types and the CSI drivers that replaced them ("CSI migration").

Upstream: k8s.io/csi-translation-lib (translate.go and plugins/{aws_ebs,gce_pd,azure_disk,
openstack_cinder,vsphere_volume,portworx}.go) for which source maps to which driver and
volume handle; pkg/scheduler/framework/plugins/nodevolumelimits/utils.go
(isCSIMigrationOn) for when NodeVolumeLimits counts a migrated volume against its driver;
`_migration.py` for VolumeBinding's use (a whole PV translated, its node affinity
rewritten by `_topology.py`).

What the scheduler needs is translated here: the driver and the volume handle (the CSI
`volumeHandle` the external attacher would use), and which zone key the driver's
topology uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from kubesched.api import Volume
from kubesched_volumebinding.storage._helpers import ANN_MIGRATED_PLUGINS, volume_source
from kubesched_volumebinding.storage._models import CSINode, PersistentVolume
from kubesched_volumebinding.storage._topology import (
    AWS_EBS_TOPOLOGY_KEY,
    BETA_ZONE_LABEL,
    CINDER_TOPOLOGY_KEY,
    GCE_PD_TOPOLOGY_KEY,
    ZONE_LABEL,
)

__all__ = [
    "IN_TREE_PLUGINS",
    "InTreePlugin",
    "TranslationError",
    "csi_migration_key",
    "in_tree_plugin_named",
    "inline_in_tree_plugin",
    "is_csi_migration_on",
    "pv_in_tree_plugin",
    "translate_inline_volume",
    "translate_pv",
]

_UNSPECIFIED: Final = "UNSPECIFIED"
_MULTI_ZONE_DELIMITER: Final = "__"
_EBS_VOLUME_ID = re.compile(r"vol-[^/]*")


class TranslationError(ValueError):
    """An in-tree source that cannot be expressed for its CSI driver (a malformed ID)."""


_Handle = Callable[[Mapping[str, Any], Mapping[str, str]], str]
"""(source as written, the PV's labels or {} inline) → CSI volume handle."""


@dataclass(frozen=True)
class InTreePlugin:
    """An in-tree volume plugin that has a CSI driver to migrate to."""

    name: str
    """The in-tree plugin name (`kubernetes.io/aws-ebs`), also a StorageClass provisioner."""
    driver: str
    """The CSI driver that replaced it (`ebs.csi.aws.com`)."""
    source: str
    """The volume source field of a pod volume or PV (`awsElasticBlockStore`)."""
    pv_handle: _Handle | None
    inline_handle: _Handle | None
    topology_key: str | None = None
    """The driver's zone key a translated PV's affinity uses (None: affinity kept)."""


def _ebs_handle(src: Mapping[str, Any], labels: Mapping[str, str]) -> str:
    """`aws://<zone>/vol-x`, `aws:///vol-x` or a bare ID → `vol-x` (upstream
    KubernetesVolumeIDToEBSVolumeID)."""
    kube_id = str(src.get("volumeID", "") or "")
    if not kube_id.startswith("aws://"):
        return kube_id
    try:
        aws_id = urlsplit(kube_id).path.strip("/")
    except ValueError as exc:
        raise TranslationError(
            f"failed to translate Kubernetes ID to EBS Volume ID Invalid disk name "
            f"({kube_id}): {exc}"
        ) from None
    if not _EBS_VOLUME_ID.fullmatch(aws_id):
        raise TranslationError(
            "failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS "
            f"volume ({kube_id})"
        )
    return aws_id


def _gce_region(zones: list[str]) -> str:
    regions: set[str] = set()
    for zone in zones:
        parts = zone.split("-")
        if len(parts) != 3:
            raise TranslationError(
                "failed to get region from zones: zone in unexpected format, expected: "
                f"{{locale}}-{{region}}-{{zone}}, got: {zone}"
            )
        regions.add("-".join(parts[:2]))
    if len(regions) != 1:
        raise TranslationError(
            "failed to get region from zones: multiple or no regions gotten from zones, "
            f"got: {sorted(regions)}"
        )
    return regions.pop()


def _gce_pv_handle(src: Mapping[str, Any], labels: Mapping[str, str]) -> str:
    """`projects/UNSPECIFIED/zones/<zone>/disks/<pd>` from the PV's zone label (the beta
    label first); a regional disk (zones joined by `__`) names its region."""
    pd = str(src.get("pdName", "") or "")
    zone_label = labels.get(BETA_ZONE_LABEL) or labels.get(ZONE_LABEL, "")
    zones = zone_label.split(_MULTI_ZONE_DELIMITER)
    if len(zones) == 1 and zones[0]:
        return f"projects/{_UNSPECIFIED}/zones/{zones[0]}/disks/{pd}"
    if len(zones) > 1:
        return f"projects/{_UNSPECIFIED}/regions/{_gce_region(zones)}/disks/{pd}"
    return f"projects/{_UNSPECIFIED}/zones/{_UNSPECIFIED}/disks/{pd}"


def _gce_inline_handle(src: Mapping[str, Any], labels: Mapping[str, str]) -> str:
    return f"projects/{_UNSPECIFIED}/zones/{_UNSPECIFIED}/disks/{src.get('pdName', '') or ''}"


def _field(name: str) -> _Handle:
    def handle(src: Mapping[str, Any], labels: Mapping[str, str]) -> str:
        return str(src.get(name, "") or "")

    return handle


def _azure_disk_handle(src: Mapping[str, Any], labels: Mapping[str, str]) -> str:
    """The disk URI; only managed disks migrate (azure_disk.go rejects other kinds)."""
    kind = src.get("kind")
    if kind is not None and str(kind).lower() != "managed":
        raise TranslationError(f"kind({kind}) is not supported in csi migration")
    return str(src.get("diskURI", "") or "")


IN_TREE_PLUGINS: Final = (
    InTreePlugin(
        "kubernetes.io/gce-pd",
        "pd.csi.storage.gke.io",
        "gcePersistentDisk",
        _gce_pv_handle,
        _gce_inline_handle,
        GCE_PD_TOPOLOGY_KEY,
    ),
    InTreePlugin(
        "kubernetes.io/aws-ebs",
        "ebs.csi.aws.com",
        "awsElasticBlockStore",
        _ebs_handle,
        _ebs_handle,
        AWS_EBS_TOPOLOGY_KEY,
    ),
    InTreePlugin(
        "kubernetes.io/cinder",
        "cinder.csi.openstack.org",
        "cinder",
        _field("volumeID"),
        _field("volumeID"),
        CINDER_TOPOLOGY_KEY,
    ),
    # azure_disk.go translates a storage class's topology, never a PV's affinity
    InTreePlugin(
        "kubernetes.io/azure-disk",
        "disk.csi.azure.com",
        "azureDisk",
        _azure_disk_handle,
        _azure_disk_handle,
    ),
    InTreePlugin(
        "kubernetes.io/vsphere-volume",
        "csi.vsphere.vmware.com",
        "vsphereVolume",
        _field("volumePath"),
        _field("volumePath"),
    ),
    InTreePlugin(
        "kubernetes.io/portworx-volume",
        "pxd.portworx.com",
        "portworxVolume",
        _field("volumeID"),
        _field("volumeID"),
    ),
    # migratable (a pod with one is not skipped) but never counted by the scheduler, so
    # their handles are not needed
    InTreePlugin("kubernetes.io/azure-file", "file.csi.azure.com", "azureFile", None, None),
    InTreePlugin("kubernetes.io/rbd", "rbd.csi.ceph.com", "rbd", None, None),
)
"""Upstream's translators, in the order sources are looked for."""

_BY_NAME: Final = {p.name: p for p in IN_TREE_PLUGINS}

# utils.go, v1.34: these are migrated whenever the node has a CSINode; Portworx (gate
# CSIMigrationPortworx, GA and locked on since v1.33) also needs the node's
# migrated-plugins annotation to list it; any other plugin (vSphere, Azure File, RBD) is
# not counted by the scheduler.
_ALWAYS_MIGRATED: Final = frozenset(
    {
        "kubernetes.io/aws-ebs",
        "kubernetes.io/gce-pd",
        "kubernetes.io/azure-disk",
        "kubernetes.io/cinder",
    }
)
_MIGRATED_IF_ANNOTATED: Final = frozenset({"kubernetes.io/portworx-volume"})


def in_tree_plugin_named(name: str) -> InTreePlugin | None:
    """The migratable plugin with this in-tree name (a class's provisioner), if any."""
    return _BY_NAME.get(name)


def pv_in_tree_plugin(pv: PersistentVolume) -> InTreePlugin | None:
    """The migratable in-tree plugin of a PV's source (upstream IsPVMigratable)."""
    for plugin in IN_TREE_PLUGINS:
        if volume_source(pv.spec, plugin.source) is not None:
            return plugin
    return None


def inline_in_tree_plugin(vol: Volume) -> InTreePlugin | None:
    """The migratable in-tree plugin of a pod's inline volume (IsInlineMigratable)."""
    for plugin in IN_TREE_PLUGINS:
        if volume_source(vol, plugin.source) is not None:
            return plugin
    return None


def is_csi_migration_on(csi_node: CSINode | None, plugin_name: str) -> bool:
    """Whether the scheduler counts this plugin's volumes as its CSI driver's on a node
    (upstream isCSIMigrationOn): never without a CSINode."""
    if csi_node is None or not plugin_name:
        return False
    if plugin_name in _ALWAYS_MIGRATED:
        return True
    if plugin_name not in _MIGRATED_IF_ANNOTATED:
        return False
    listed = csi_node.metadata.annotations.get(ANN_MIGRATED_PLUGINS, "")
    return plugin_name in listed.split(",")


def csi_migration_key(csi_node: CSINode | None) -> str | None:
    """What `is_csi_migration_on` reads of a CSINode: whether there is one (None when
    not) and its migrated-plugins annotation. Two CSINodes with the same key give the
    same answers for every plugin, so work that depends on migration only can be shared."""
    if csi_node is None:
        return None
    return csi_node.metadata.annotations.get(ANN_MIGRATED_PLUGINS, "")


def translate_pv(pv: PersistentVolume) -> tuple[str, str]:
    """(driver, volume handle) of an in-tree PV as its CSI driver sees it; TranslationError
    when the source is malformed or has no translation."""
    plugin = pv_in_tree_plugin(pv)
    if plugin is None or plugin.pv_handle is None:
        raise TranslationError(
            f'could not find in-tree plugin translation logic for "{pv.metadata.name}"'
        )
    src = volume_source(pv.spec, plugin.source) or {}
    return plugin.driver, plugin.pv_handle(src, pv.metadata.labels)


def translate_inline_volume(vol: Volume) -> tuple[str, str]:
    """(driver, volume handle) of a pod's inline in-tree volume; TranslationError as
    `translate_pv`."""
    plugin = inline_in_tree_plugin(vol)
    if plugin is None or plugin.inline_handle is None:
        raise TranslationError(f'could not find in-tree plugin translation logic for "{vol.name}"')
    src = volume_source(vol, plugin.source) or {}
    return plugin.driver, plugin.inline_handle(src, {})
