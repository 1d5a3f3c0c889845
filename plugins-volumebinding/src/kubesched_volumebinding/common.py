"""What the volume plugins share: storage listers on the handle, the pod's claim names and
namespace, PreFilter's "nothing to check" answer, and the claim-created queueing hint.

VolumeBinding, VolumeZone, VolumeRestrictions and NodeVolumeLimits each had a copy of
these; the rules are the same in all four (upstream repeats them in each plugin's file
too), so they live here once. What differs between the plugins stays with them: which
volumes a plugin reads, its error texts and its state.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from typing_extensions import TypeVar

from kubesched.api import Pod
from kubesched.framework import (
    ClusterEvent,
    Handle,
    Plugin,
    PreFilterResult,
    QueueingHint,
    Status,
)
from kubesched_volumebinding.storage import Listers, PersistentVolumeClaim, claim_refs_of_pod

__all__ = [
    "StoragePlugin",
    "claim_names",
    "is_schedulable_after_claim_added",
    "namespace_of",
    "skip_unless",
]


def namespace_of(obj: Any) -> str:
    """An object's namespace, `default` when unset (as the API server defaults it)."""
    return str(obj.metadata.namespace or "default")


_ArgsT = TypeVar("_ArgsT", bound=BaseModel, default=BaseModel, covariant=True)


class StoragePlugin(Plugin[_ArgsT]):
    """A plugin that reads storage objects through `self.listers` (the handle's cluster),
    and may report changes of its own state through the handle. Generic in the plugin's
    args as `Plugin` is (`StoragePlugin[VolumeBindingArgs]`)."""

    def __init__(self, args: _ArgsT, handle: Handle) -> None:
        super().__init__(args, handle)
        self.listers = Listers(handle.cluster)

    def report_cluster_event(self, event: ClusterEvent, old: Any, new: Any) -> None:
        """Forward to `Handle.report_cluster_event`; a handle from before that method
        (plugin API 0.1) silently has none."""
        report = getattr(self.handle, "report_cluster_event", None)
        if report is not None:
            report(event, old, new)


def claim_names(pod: Pod, *, ephemeral: bool) -> list[str]:
    """The claims the pod's volumes name, in volume order: `persistentVolumeClaim`
    claim names and, with `ephemeral`, the `<pod>-<volume>` claims of generic ephemeral
    volumes."""
    return [ref.name for ref in claim_refs_of_pod(pod) if ephemeral or not ref.ephemeral]


def is_schedulable_after_claim_added(pod: Pod, new: Any, *, ephemeral: bool) -> QueueingHint:
    """The hint every volume plugin gives a PVC add (or update): only a claim the pod
    names, in its namespace, can help it (upstream isSchedulableAfterPVCAdded and its
    copies)."""
    if not isinstance(new, PersistentVolumeClaim):
        return QueueingHint.Queue
    if namespace_of(new) != namespace_of(pod):
        return QueueingHint.QueueSkip
    if new.metadata.name in claim_names(pod, ephemeral=ephemeral):
        return QueueingHint.Queue
    return QueueingHint.QueueSkip


def skip_unless(needed: bool) -> tuple[PreFilterResult | None, Status | None]:
    """PreFilter's answer of a plugin with nothing to check for some pods: Skip (its
    Filter is not called this cycle) unless `needed`."""
    return None, (None if needed else Status.skip())
