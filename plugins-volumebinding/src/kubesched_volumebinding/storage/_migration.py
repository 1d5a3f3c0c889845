"""A bound in-tree PV as VolumeBinding checks it where its plugin migrated to CSI.

Upstream: pkg/scheduler/framework/plugins/volumebinding/binder.go (tryTranslatePVToCSI,
isCSIMigrationOnForPlugin, isPluginMigratedToCSIOnNode; called by checkBoundClaims in
Filter and checkBindings in PreBind) and k8s.io/csi-translation-lib (translate.go and
plugins/*.go TranslateInTreePVToCSI). When a PV's in-tree plugin is migratable and the
node's CSINode lists it in `storage.alpha.kubernetes.io/migrated-plugins`, the PV's node
affinity is checked as its CSI driver sees it: zone requirements (or the zone label of a
PV without any) on the driver's topology key, which is what a node running the driver is
labelled with.

The rule differs from NodeVolumeLimits' (`is_csi_migration_on`): here the CSINode must
list the plugin for every plugin, not only Portworx.
"""

from __future__ import annotations

from typing import Any, Final

from kubesched_volumebinding.storage._helpers import ANN_MIGRATED_PLUGINS, volume_source
from kubesched_volumebinding.storage._models import CSINode, PersistentVolume
from kubesched_volumebinding.storage._topology import translate_topology_to_csi
from kubesched_volumebinding.storage._translation import TranslationError, pv_in_tree_plugin

__all__ = [
    "is_plugin_migrated_on_node",
    "translate_pv_to_csi",
    "try_translate_pv_to_csi",
]

# binder.go isCSIMigrationOnForPlugin, v1.34: Portworx depends on the CSIMigrationPortworx
# gate, GA and locked on since v1.33; vSphere, Azure File and RBD are never translated here.
_MIGRATABLE: Final = frozenset(
    {
        "kubernetes.io/aws-ebs",
        "kubernetes.io/gce-pd",
        "kubernetes.io/azure-disk",
        "kubernetes.io/cinder",
        "kubernetes.io/portworx-volume",
    }
)


def is_plugin_migrated_on_node(plugin_name: str, csi_node: CSINode | None) -> bool:
    """Whether VolumeBinding checks this plugin's PVs translated on the node: the plugin
    migrates, and the node's CSINode lists it as migrated (none without a CSINode)."""
    if plugin_name not in _MIGRATABLE or csi_node is None:
        return False
    listed = csi_node.metadata.annotations.get(ANN_MIGRATED_PLUGINS, "")
    return bool(listed) and plugin_name in listed.split(",")


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def _gce_access_modes(modes: list[str]) -> list[str]:
    """gce_pd.go backwardCompatibleAccessModes: the in-tree plugin attached every PD
    read-write once whatever the PV said, so the CSI form says so."""
    have = {"ReadWriteOnce" if m == "ReadWriteMany" else m for m in modes}
    if "ReadWriteOnce" in have or "ReadOnlyMany" not in have:
        return ["ReadWriteOnce"]
    return ["ReadOnlyMany"]


def _translate(pv: PersistentVolume) -> PersistentVolume:
    plugin = pv_in_tree_plugin(pv)
    if plugin is None or plugin.pv_handle is None:
        raise TranslationError(
            f'could not find in-tree plugin translation logic for "{pv.metadata.name}"'
        )
    src = volume_source(pv.spec, plugin.source) or {}
    labels = pv.metadata.labels
    csi: dict[str, Any] = {
        "driver": plugin.driver,
        "volumeHandle": plugin.pv_handle(src, labels),
    }
    if src.get("fsType"):
        csi["fsType"] = src["fsType"]
    if src.get("readOnly"):
        csi["readOnly"] = True
    update: dict[str, Any] = {_snake(plugin.source): None, "csi": csi}
    if plugin.topology_key is not None:
        update["node_affinity"] = translate_topology_to_csi(
            pv.spec.node_affinity, labels, plugin.topology_key
        )
    if plugin.name == "kubernetes.io/gce-pd" and pv.spec.access_modes:
        update["access_modes"] = _gce_access_modes(pv.spec.access_modes)
    return pv.model_copy(update={"spec": pv.spec.model_copy(update=update)})


class _Entry:
    """What is known of one PV object: its migratable plugin, and once asked, its
    translation (or why there is none)."""

    __slots__ = ("outcome", "plugin", "pv")

    def __init__(self, pv: PersistentVolume) -> None:
        self.pv = pv
        plugin = pv_in_tree_plugin(pv)
        self.plugin = plugin.name if plugin is not None and plugin.name in _MIGRATABLE else ""
        self.outcome: PersistentVolume | TranslationError | None = None


_MEMO: dict[int, _Entry] = {}
_MEMO_MAX: Final = 1 << 14


def _entry(pv: PersistentVolume) -> _Entry:
    """The PV's entry; stored objects never change, so answers are kept per object."""
    entry = _MEMO.get(id(pv))
    if entry is None or entry.pv is not pv:
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        entry = _MEMO[id(pv)] = _Entry(pv)
    return entry


def translate_pv_to_csi(pv: PersistentVolume) -> PersistentVolume:
    """The PV as its CSI driver sees it (upstream TranslateInTreePVToCSI): a `csi` source
    with the driver and volume handle instead of the in-tree one, and node affinity on the
    driver's topology key. Raises TranslationError (a malformed source, or a plugin with
    no translation here). `pv` is not changed."""
    entry = _entry(pv)
    if entry.outcome is None:
        try:
            entry.outcome = _translate(pv)
        except TranslationError as exc:
            entry.outcome = exc
    if isinstance(entry.outcome, TranslationError):
        raise TranslationError(str(entry.outcome))
    return entry.outcome


def try_translate_pv_to_csi(pv: PersistentVolume, csi_node: CSINode | None) -> PersistentVolume:
    """The PV VolumeBinding checks on a node with this CSINode: translated when its in-tree
    plugin migrated there, else `pv` itself. Raises TranslationError ("could not translate
    pv: ...") when a migrated PV cannot be translated."""
    if pv.spec.csi is not None:
        return pv
    entry = _entry(pv)
    if not entry.plugin or not is_plugin_migrated_on_node(entry.plugin, csi_node):
        return pv
    try:
        return translate_pv_to_csi(pv)
    except TranslationError as exc:
        raise TranslationError(f"could not translate pv: {exc}") from None
