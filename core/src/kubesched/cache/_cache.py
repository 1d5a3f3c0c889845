"""SchedulerCache: the scheduler's own view of nodes and the pods on them.

Upstream: pkg/scheduler/backend/cache/cache.go. Informer events (add/update/remove of nodes
and bound pods) and the scheduler's optimistic decisions (assume, forget) both land here; each
cycle starts from `update_snapshot`, which copies only the nodes that changed since the
snapshot was last brought up to date.

Pods are keyed by UID. Assumed pods never expire: upstream's TTL is 0 since v1.27
(durationToExpireAssumedPod, kubernetes/kubernetes#106361), so a pod stays assumed until the
informer confirms it (`add_pod`) or the scheduler forgets it.

Single-threaded by design (one asyncio loop, see DESIGN.md), so there is no lock.
"""

from __future__ import annotations

from collections import OrderedDict

from kubesched._errors import KubeschedError
from kubesched.api import Node, Pod
from kubesched.cache._images import ImageStates, snapshot_image_states
from kubesched.cache._node_tree import NodeTree
from kubesched.framework import ImageStateSummary, NodeInfo, PodInfo, Snapshot, next_generation

__all__ = ["CacheError", "SchedulerCache"]


class CacheError(KubeschedError):
    """A cache operation that contradicts what the cache holds (upstream's error texts)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail

    def __str__(self) -> str:
        return self.detail


def _pod_key(pod: Pod) -> str:
    # upstream: pkg/scheduler/framework/types.go (GetPodKey)
    if not pod.metadata.uid:
        raise CacheError(f"cannot get cache key for pod {pod.key} with empty UID")
    return pod.metadata.uid


def _ref(uid: str, pod: Pod) -> str:
    # upstream formats "pod %v(%v)" with the key and klog.KObj(pod)
    return f"{uid}({pod.key})"


def _snapshot_clone(info: NodeInfo) -> NodeInfo:
    clone = info.clone()
    clone.image_states = snapshot_image_states(info.image_states)
    return clone


class SchedulerCache:
    """Nodes and pods as the scheduler believes them to be, including assumed pods.

    Node infos are kept in an OrderedDict in order of last change (the end is the most recent),
    the counterpart of upstream's doubly linked list: `update_snapshot` walks it from the end
    and stops at the first node info not newer than the snapshot.
    """

    def __init__(self) -> None:
        self._nodes: OrderedDict[str, NodeInfo] = OrderedDict()
        self._tree = NodeTree()
        self._images = ImageStates()
        self._pod_states: dict[str, Pod] = {}
        self._assumed: set[str] = set()
        self._binding_finished: set[str] = set()
        # Generation at which the node tree (membership or zones) last changed; a snapshot
        # older than this needs its node list rebuilt in tree order.
        self._tree_generation = 0
        self._order: list[str] | None = None
        self._position: dict[str, int] = {}

    # --- nodes (informer side) ---------------------------------------------------------------

    def add_node(self, node: Node) -> None:
        """Add the node, or replace it when already known (the informer re-listed)."""
        name = node.metadata.name
        info = self._nodes.get(name)
        if info is None:
            info = self._nodes[name] = NodeInfo()
        else:
            self._images.remove_node(info.node)
            self._nodes.move_to_end(name)
        if self._tree.add_node(node):
            self._tree_changed()
        info.set_node(node)
        info.image_states = self._images.add_node(node)

    def update_node(self, old: Node, new: Node) -> None:
        """Replace the node; a changed zone moves it in the node order."""
        # upstream reads the old node only for the node tree, which here remembers zones.
        del old
        self.add_node(new)

    def remove_node(self, node: Node) -> None:
        """Remove the node; while pods remain on it a node-less NodeInfo keeps them.

        Upstream keeps this "ghost" until the pods' delete events arrive (they come on another
        watch); snapshots leave it out.
        """
        name = node.metadata.name
        info = self._nodes.get(name)
        if info is None:
            raise CacheError(f"node {name} is not found")
        self._images.remove_node(info.node)
        info.remove_node()
        if info.pods:
            self._nodes.move_to_end(name)
        else:
            del self._nodes[name]
        if not self._tree.remove_node(name):
            raise CacheError(f"node {name} was not found in the node tree")
        self._tree_changed()

    def _tree_changed(self) -> None:
        self._tree_generation = next_generation()
        self._order = None

    # --- pods (informer side) ----------------------------------------------------------------

    def add_pod(self, pod: Pod) -> None:
        """A bound pod seen by the informer: confirms an assumed pod, or adds a new one.

        A pod assumed on one node and bound to another is moved to the node it is bound to.
        """
        uid = _pod_key(pod)
        current = self._pod_states.get(uid)
        if current is not None and uid in self._assumed:
            self._update_pod(current, pod)
        elif current is None:
            self._add_pod(pod, assumed=False)
        else:
            raise CacheError(f"pod {_ref(uid, pod)} was already in added state")

    def update_pod(self, old: Pod, new: Pod) -> None:
        """Replace an added (not assumed) pod with its new version, on the same node."""
        uid = _pod_key(old)
        current = self._pod_states.get(uid)
        if current is None:
            raise CacheError(
                f"pod {_ref(uid, old)} is not added to scheduler cache, so cannot be updated"
            )
        if uid in self._assumed:
            raise CacheError(f"assumed pod {_ref(uid, old)} should not be updated")
        if current.spec.node_name != new.spec.node_name:
            # upstream exits the process here: the cache can no longer be trusted.
            raise CacheError(
                f"pod {_ref(uid, old)} updated on a different node than previously added to"
                f" ({current.spec.node_name} → {new.spec.node_name}); scheduler cache is corrupted"
            )
        self._update_pod(current, new)

    def remove_pod(self, pod: Pod) -> None:
        """Remove a pod that was deleted (or assumed and then deleted)."""
        uid = _pod_key(pod)
        current = self._pod_states.get(uid)
        if current is None:
            raise CacheError(
                f"pod {_ref(uid, pod)} is not found in scheduler cache,"
                " so cannot be removed from it"
            )
        if pod.spec.node_name and current.spec.node_name != pod.spec.node_name:
            # An empty nodeName is allowed: a missed delete replayed from the last known state.
            raise CacheError(
                f"pod {_ref(uid, pod)} was added to {current.spec.node_name} but removed from"
                f" {pod.spec.node_name}; scheduler cache is corrupted"
            )
        self._remove_pod(current)

    # --- pods (scheduler side) ---------------------------------------------------------------

    def assume_pod(self, pod: Pod, pod_info: PodInfo | None = None) -> None:
        """Account the pod on `pod.spec.node_name` before its binding is confirmed.

        `pod_info`, when given, is the PodInfo of `pod` to account (the scheduling cycle's,
        `updated` to the assumed pod, so what it computed is not computed again; upstream
        AssumePod takes the PodInfo too); without it one is made."""
        uid = _pod_key(pod)
        if uid in self._pod_states:
            raise CacheError(f"pod {_ref(uid, pod)} is in the cache, so can't be assumed")
        if not pod.spec.node_name:
            raise CacheError(f"pod {_ref(uid, pod)} has no spec.nodeName, so can't be assumed")
        self._add_pod(pod, assumed=True, pod_info=pod_info)

    def finish_binding(self, pod: Pod) -> None:
        """Mark an assumed pod's binding as done; with TTL 0 it still never expires."""
        uid = _pod_key(pod)
        if uid in self._assumed:
            self._binding_finished.add(uid)

    def is_binding_finished(self, pod: Pod) -> bool:
        """Whether `finish_binding` was called for this (still assumed) pod."""
        return _pod_key(pod) in self._binding_finished

    def forget_pod(self, pod: Pod) -> None:
        """Undo `assume_pod`; a pod the cache no longer holds is ignored."""
        uid = _pod_key(pod)
        current = self._pod_states.get(uid)
        if current is None:
            return
        if current.spec.node_name != pod.spec.node_name:
            raise CacheError(
                f"pod {_ref(uid, pod)} was assumed on {pod.spec.node_name}"
                f" but assigned to {current.spec.node_name}"
            )
        if uid not in self._assumed:
            raise CacheError(
                f"pod {_ref(uid, pod)} is not assumed, so it cannot be removed or forgotten"
            )
        self._remove_pod(current)

    def is_assumed_pod(self, pod: Pod) -> bool:
        return _pod_key(pod) in self._assumed

    def get_pod(self, pod: Pod) -> Pod | None:
        """The cached version of the pod (by UID), also when its node is gone; None if unknown."""
        return self._pod_states.get(_pod_key(pod))

    def _add_pod(self, pod: Pod, *, assumed: bool, pod_info: PodInfo | None = None) -> None:
        uid = pod.metadata.uid
        name = pod.spec.node_name
        info = self._nodes.get(name)
        if info is None:
            info = self._nodes[name] = NodeInfo()
        else:
            self._nodes.move_to_end(name)
        info.add_pod_info(PodInfo(pod) if pod_info is None else pod_info)
        self._pod_states[uid] = pod
        if assumed:
            self._assumed.add(uid)

    def _remove_pod(self, pod: Pod) -> PodInfo | None:
        """Take the pod out; its PodInfo, or None when its node info is gone."""
        uid = pod.metadata.uid
        name = pod.spec.node_name
        info = self._nodes.get(name)
        removed = None
        if info is not None:
            removed = info.pop_pod(pod)
            if removed is None:
                raise CacheError(f"no corresponding pod {pod.key} in pods of node {name}")
            if not info.pods and info.node is None:
                del self._nodes[name]
            else:
                self._nodes.move_to_end(name)
        self._pod_states.pop(uid, None)
        self._assumed.discard(uid)
        self._binding_finished.discard(uid)
        return removed

    def _update_pod(self, old: Pod, new: Pod) -> None:
        # the new version keeps what the old one's PodInfo computed from unchanged inputs
        removed = self._remove_pod(old)
        self._add_pod(
            new, assumed=False, pod_info=None if removed is None else removed.updated(new)
        )

    # --- snapshot ----------------------------------------------------------------------------

    def update_snapshot(self, snapshot: Snapshot) -> None:
        """Bring the snapshot up to date, copying only node infos changed since its last update.

        The snapshot holds clones, so later cache changes never show in it. Its node list is in
        node-tree order (zones interleaved); it is rebuilt only when nodes were added, removed
        or changed zone, otherwise changed nodes are swapped in place. A snapshot is meant to be
        brought up to date by one cache only (its `generation` is this cache's bookmark).
        """
        since = snapshot.generation
        changed: list[NodeInfo] = []
        for info in reversed(self._nodes.values()):
            if info.generation <= since:
                break
            if info.node is not None:
                changed.append(info)
        if self._order is None:
            self._order = self._tree.list()
            self._position = {name: i for i, name in enumerate(self._order)}
        if since < self._tree_generation or not self._patch(snapshot, changed):
            self._rebuild(snapshot)
        snapshot.generation = next_generation()

    def _patch(self, snapshot: Snapshot, changed: list[NodeInfo]) -> bool:
        """Swap in clones of the changed nodes; False when the snapshot's list does not match."""
        infos = snapshot.node_info_list
        if len(infos) != len(self._position):
            return False
        slots: list[tuple[int, NodeInfo]] = []
        for info in changed:
            index = self._position.get(info.name)
            if index is None or infos[index].name != info.name:
                return False
            slots.append((index, info))
        if not slots:
            return True
        for index, info in slots:
            # patches the snapshot's columns and derived lists for this node only
            snapshot.replace(index, _snapshot_clone(info))
        return True

    def _rebuild(self, snapshot: Snapshot) -> None:
        """Lay the node list out anew in tree order, reusing clones that are still current."""
        assert self._order is not None
        old = snapshot.node_info_map
        infos: list[NodeInfo] = []
        for name in self._order:
            info = self._nodes[name]
            existing = old.get(name)
            # Generations are unique per change, so an equal one means the same content.
            if existing is None or existing.generation != info.generation:
                existing = _snapshot_clone(info)
            infos.append(existing)
        snapshot.set_nodes(infos)

    # --- inspection --------------------------------------------------------------------------

    def node_count(self) -> int:
        """Node infos held, including those of removed nodes that still have pods (upstream)."""
        return len(self._nodes)

    def pod_count(self) -> int:
        """Pods held, assumed ones and those on removed nodes included."""
        return sum(len(info.pods) for info in self._nodes.values())

    def assumed_pod_count(self) -> int:
        """Pods assumed and not yet confirmed by an informer event, expired or forgotten."""
        return len(self._assumed)

    def image_state(self, image_name: str) -> ImageStateSummary | None:
        """The image's size and how many nodes hold it now (name normalised), or None."""
        return self._images.get(image_name)

    def node_order(self) -> list[str]:
        """Node names in the order snapshots list them (zones interleaved)."""
        return self._tree.list()

    def dump(self) -> dict[str, NodeInfo]:
        """Clones of every node info, removed-but-occupied nodes included (node is None)."""
        return {name: _snapshot_clone(info) for name, info in self._nodes.items()}
