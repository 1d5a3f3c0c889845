"""NodeVolumeLimits: a node attaches at most so many volumes of each CSI driver.

Upstream: pkg/scheduler/framework/plugins/nodevolumelimits/csi.go (CSILimits), v1.34. The
pod's volumes that the node does not already have attached are counted per driver and
compared with the driver's limit, the CSINode's `spec.drivers[].allocatable.count` (a node
without a CSINode, or a driver without a count, has no limit; the node's
`attachable-volumes-csi-*` allocatable is not read). A claim not bound yet counts once
for its class's provisioner. Volumes of in-tree plugins that migrated to CSI (a PV's
`awsElasticBlockStore`, an inline `gcePersistentDisk` ...) count against their CSI
driver, with the translated volume handle, where migration is on for the node
(`storage.is_csi_migration_on`: a CSINode, and for Portworx its migrated-plugins
annotation). The node's VolumeAttachments count too (upstream PR #127757, issue #126502):
a volume still attached while a deleted pod's volume is being detached takes a slot, once
(not again when a pod on the node uses it). The events and queueing hints are in
`hints.py`.

Upstream recounts everything for every node; here the same answers come from memos
(`counting.py`): the pod's own volumes are counted once per cycle, a node's pods' volumes
are counted again only when an object they were counted from changed, and not at all when
the pod stays under every limit even if each of those volumes were attached. On the fast
path that last answer comes for a block of nodes at once (`filter_mask`, `rows.py`).
"""

from __future__ import annotations

import random
import string
from collections.abc import Sequence
from typing import Any, ClassVar, Final

import numpy as np
from pydantic import BaseModel

from kubesched.api import Node, Pod
from kubesched.framework import (
    ClusterEventWithHint,
    CycleState,
    EnqueueExtensions,
    FilterPlugin,
    Handle,
    NoArgs,
    NodeColumns,
    NodeInfo,
    PreFilterPlugin,
    PreFilterResult,
    RowMask,
    Rows,
    Status,
)
from kubesched_volumebinding.common import StoragePlugin, namespace_of, skip_unless
from kubesched_volumebinding.names import NODE_VOLUME_LIMITS
from kubesched_volumebinding.nodevolumelimits.counting import (
    Attachable,
    Count,
    NodeVolumes,
    PodVolumes,
    RecordingListers,
    Volumes,
    attachment_volumes,
    attachments_by_node,
    node_attachments,
    volume_limits,
)
from kubesched_volumebinding.nodevolumelimits.hints import may_attach, node_volume_limits_events
from kubesched_volumebinding.nodevolumelimits.rows import Ints, NodeRows
from kubesched_volumebinding.storage import (
    CSINode,
    Listers,
    PersistentVolumeClaim,
    TranslationError,
    claim_class,
    csi_migration_key,
    in_tree_plugin_named,
    inline_in_tree_plugin,
    is_csi_migration_on,
    pv_in_tree_plugin,
    translate_inline_volume,
    translate_pv,
    volume_is_for_pod,
)

__all__ = ["ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED", "NodeVolumeLimits"]

ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED: Final = "node(s) exceed max volume count"
_STATE_KEY: Final = "PreFilter" + NODE_VOLUME_LIMITS


class _NotFound(Exception):
    pass


class NodeVolumeLimits(StoragePlugin, PreFilterPlugin, FilterPlugin, EnqueueExtensions):
    """Rejects nodes that would exceed a CSI driver's attach limit (Unschedulable)."""

    name: ClassVar[str] = NODE_VOLUME_LIMITS
    Args: ClassVar[type[BaseModel]] = NoArgs

    def __init__(self, args: BaseModel, handle: Handle) -> None:
        super().__init__(args, handle)
        # a claim not bound yet gets a made-up volume handle, unique to this plugin
        rng = random.Random(0)
        self.random_prefix = "".join(rng.choices(string.ascii_lowercase, k=32))
        self._nodes: dict[str, NodeVolumes] = {}
        self._rows: NodeRows | None = None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        needed = any(may_attach(v) for v in pod.spec.volumes)
        if needed:
            state.write(_STATE_KEY, PodVolumes())
        return skip_unless(needed)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        memo = state.get(_STATE_KEY)
        count = self._count(pod, node_info, memo if isinstance(memo, PodVolumes) else None)
        if count is None or isinstance(count, Status):
            return count
        if count.exceeded():
            return Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return None

    def filter_mask(self, state: CycleState, pod: Pod, columns: NodeColumns, rows: Rows) -> RowMask:
        """Filter on the snapshot's rows (ArrayFilterPlugin): passes a row where `_count`
        answers None without counting the node's pods' volumes (`rows.py`); the others
        are left to `filter`. Raises without PreFilter's state or on columns that are not
        the snapshot's, so `filter` answers."""
        memo = state.get(_STATE_KEY)
        if not isinstance(memo, PodVolumes):
            raise LookupError(f"{self.name}: no PreFilter state")
        snapshot = self.handle.snapshot
        if snapshot.columns is not columns:
            raise LookupError(f"{self.name}: columns of another snapshot")
        table = self._rows
        if table is None or table.names is not columns.names:
            table = self._rows = NodeRows(columns.names)
        table.refresh_csi_nodes(self.listers.cluster.list("CSINode"))
        table.refresh_pods(rows, columns.generation[rows], snapshot.node_info_list)
        mask: RowMask = np.zeros(len(rows), np.bool_)
        key_ids = table.key_id[rows]
        attachments: Ints | None = None
        for key_id in np.unique(key_ids).tolist():
            own = self._own_volumes(pod, table.csi_node_of_key[key_id], memo)
            if isinstance(own, Exception):
                continue  # `filter` says why
            at = np.flatnonzero(key_ids == key_id)
            if not own:
                mask[at] = True
                continue
            if attachments is None:
                by_node = attachments_by_node(self.listers, memo)
                attachments = table.attachment_counts(by_node, columns.index)
            sub = rows[at]
            most = table.volume_count[sub] + attachments[sub] + len(own)
            fits = ~table.may_fail[sub]
            for driver in {volume.driver for volume in own.values()}:
                limit = table.limits.get(driver)
                if limit is not None:
                    fits &= most <= limit[sub]
            mask[at] = fits | ~table.has_limits[sub]
        return mask

    def explain_filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> list[str]:
        """Per driver over its limit: attached, new (which volumes) and the limit."""
        count = self._count(pod, node_info)
        if count is None or isinstance(count, Status):
            return []
        lines = []
        for driver in count.exceeded():
            new = count.new[driver]
            attached = count.attached.get(driver, 0)
            through = count.through_attachments.get(driver, 0)
            detail = f" ({through} only through VolumeAttachments)" if through else ""
            lines.append(
                f"driver {driver}: {attached} volume(s) attached{detail} + {len(new)} "
                f"new ({', '.join(v.origin for v in new)}) > limit {count.limits[driver]}"
            )
        return lines

    def _count(
        self, pod: Pod, node_info: NodeInfo, memo: PodVolumes | None = None
    ) -> Count | Status | None:
        """The counts Filter compares, a Status when the pod cannot be counted, or None
        when nothing limits it here (or it is under every limit whatever is attached).
        `memo` keeps the pod's own volumes for the cycle."""
        node = node_info.node
        if not pod.spec.volumes or node is None:
            return None
        csi_node = self.listers.csi_node(node.metadata.name)
        own = self._own_volumes(pod, csi_node, memo)
        if isinstance(own, _NotFound):
            return Status.unresolvable(str(own))
        if isinstance(own, Exception):
            return Status.as_error(own)
        if not own:
            return None
        on_node = self._node_volumes(node_info, node, csi_node)
        if not on_node.limits:
            return None
        attachments = node_attachments(self.listers, node.metadata.name, memo)
        if not on_node.may_fail and on_node.cannot_exceed(own, len(attachments)):
            return None
        attached = self._attached(on_node)
        if isinstance(attached, Exception):
            return Status.as_error(attached)
        new: dict[str, list[Attachable]] = {}
        for unique, volume in own.items():
            if unique not in attached:  # a volume shared with a pod there counts once
                new.setdefault(volume.driver, []).append(volume)
        counts = dict(on_node.attached_count)
        through: dict[str, int] = {}
        for unique, volume in attachment_volumes(self.listers, attachments).items():
            # csi.go: not again when a pod there uses it; the pod's own new volumes are
            # still counted as new even when attached already
            if unique not in attached:
                counts[volume.driver] = counts.get(volume.driver, 0) + 1
                through[volume.driver] = through.get(volume.driver, 0) + 1
        return Count(on_node.limits, counts, new, through)

    def _own_volumes(
        self, pod: Pod, csi_node: CSINode | None, memo: PodVolumes | None
    ) -> Volumes | Exception:
        """The pod's volumes as a node with this CSINode counts them, or why they cannot
        be counted (_NotFound: a missing claim; ValueError: anything else)."""
        key = csi_migration_key(csi_node)
        if memo is not None and key in memo.by_key:
            return memo.by_key[key]
        volumes: Volumes = {}
        outcome: Volumes | Exception
        try:
            self._attachable_volumes(pod, csi_node, True, volumes, self.listers)
            outcome = volumes
        except (_NotFound, ValueError) as exc:
            outcome = exc
        if memo is not None:
            memo.by_key[key] = outcome
        return outcome

    def _node_volumes(
        self, node_info: NodeInfo, node: Node, csi_node: CSINode | None
    ) -> NodeVolumes:
        """The node's entry, new when its node, CSINode or pods changed."""
        name = node.metadata.name
        entry = self._nodes.get(name)
        if entry is None or not entry.same_node(node_info, csi_node):
            entry = NodeVolumes(
                node, csi_node, [p.pod for p in node_info.pods], volume_limits(csi_node)
            )
            self._nodes[name] = entry
        return entry

    def _attached(self, entry: NodeVolumes) -> Volumes | Exception:
        """What the node's pods have attached (counted again when an object it was
        counted from changed), or why they cannot be counted."""
        if entry.counted(self.listers.cluster):
            assert entry.attached is not None
            return entry.attached
        listers = RecordingListers(self.listers.cluster)
        attached: Volumes = {}
        outcome: Volumes | Exception = attached
        for pod in entry.pods:
            try:
                self._attachable_volumes(pod, entry.csi_node, False, attached, listers)
            except (ValueError, _NotFound) as exc:
                outcome = exc
                break
        counts: dict[str, int] = {}
        for volume in attached.values():
            counts[volume.driver] = counts.get(volume.driver, 0) + 1
        entry.seen = listers.seen
        entry.attached = outcome
        entry.attached_count = counts
        return outcome

    def _attachable_volumes(
        self,
        pod: Pod,
        csi_node: CSINode | None,
        new_pod: bool,
        result: Volumes,
        listers: Listers,
    ) -> None:
        """Add the pod's CSI volumes to `result` (`driver/handle` → what it counts
        against). A missing claim is _NotFound for the pod being scheduled and ignored for
        others; a foreign ephemeral claim or an untranslatable inline volume is a
        ValueError."""
        namespace = namespace_of(pod)
        for vol in pod.spec.volumes:
            if vol.persistent_volume_claim is not None:
                name, ephemeral = str(vol.persistent_volume_claim.get("claimName", "") or ""), False
            elif vol.ephemeral is not None:
                name, ephemeral = f"{pod.metadata.name}-{vol.name}", True
            else:
                self._inline_volume(vol, csi_node, result)
                continue
            if not name:
                raise ValueError("PersistentVolumeClaim had no name")
            pvc = listers.claim(namespace, name)
            if pvc is None:
                if new_pod:
                    raise _NotFound(
                        f"looking up PVC {namespace}/{name}: "
                        f'persistentvolumeclaim "{name}" not found'
                    )
                continue
            if ephemeral:
                problem = volume_is_for_pod(pod, pvc)
                if problem is not None:
                    raise ValueError(problem)
            driver, handle = self._driver_info(pvc, csi_node, listers)
            if not driver or not handle:
                continue
            result[f"{driver}/{handle}"] = Attachable(driver, f"claim {namespace}/{name}")

    def _inline_volume(
        self, vol: Any, csi_node: CSINode | None, result: dict[str, Attachable]
    ) -> None:
        """An inline volume counts when its in-tree plugin migrated to CSI on the node
        (upstream checkAttachableInlineVolume)."""
        plugin = inline_in_tree_plugin(vol)
        if plugin is None or not is_csi_migration_on(csi_node, plugin.name):
            return
        try:
            driver, handle = translate_inline_volume(vol)
        except TranslationError as exc:
            raise ValueError(f"converting volume({vol.name}) from inline to csi: {exc}") from None
        result[f"{driver}/{handle}"] = Attachable(driver, f"volume {vol.name} ({plugin.source})")

    def _driver_info(
        self, pvc: PersistentVolumeClaim, csi_node: CSINode | None, listers: Listers
    ) -> tuple[str, str]:
        """The claim's CSI driver and volume handle (through its PV, translated when
        in-tree), or ("", "") when it does not count (upstream getCSIDriverInfo)."""
        if pvc.spec.volume_name:
            pv = listers.volume(pvc.spec.volume_name)
            if pv is not None:
                csi = pv.spec.csi
                if csi is not None:
                    return str(csi.get("driver", "")), str(csi.get("volumeHandle", ""))
                plugin = pv_in_tree_plugin(pv)
                if plugin is None or not is_csi_migration_on(csi_node, plugin.name):
                    return "", ""
                try:
                    return translate_pv(pv)
                except TranslationError:
                    return "", ""
        # not bound (or the PV is gone): count it for the class's provisioner
        class_name = claim_class(pvc)
        if not class_name:
            return "", ""
        sc = listers.storage_class(class_name)
        if sc is None:
            return "", ""
        handle = f"{self.random_prefix}-{namespace_of(pvc)}/{pvc.metadata.name}"
        plugin = in_tree_plugin_named(sc.provisioner)
        if plugin is not None:
            if not is_csi_migration_on(csi_node, plugin.name):
                return "", ""
            return plugin.driver, handle
        return sc.provisioner, handle

    # -- EnqueueExtensions ----------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return node_volume_limits_events()
