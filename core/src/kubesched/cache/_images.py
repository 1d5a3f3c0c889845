"""Image states: which images the cluster's nodes hold, for ImageLocality.

Upstream: pkg/scheduler/backend/cache/cache.go (addNodeImageStates, removeNodeImageStates).
The cache keeps, per image name, its size and the set of nodes that have it. Each node's
NodeInfo maps its images to a summary shared by every node holding the image; a snapshot gets
frozen copies (`snapshot_image_states`), so a cycle never sees the counts move.
"""

from __future__ import annotations

from kubesched.api import Node, normalized_image_name
from kubesched.framework import ImageStateSummary

__all__ = ["ImageStates", "snapshot_image_states"]


class _ImageState:
    __slots__ = ("nodes", "summary")

    def __init__(self, size: int) -> None:
        self.nodes: set[str] = set()
        self.summary = ImageStateSummary(size, 0)


class ImageStates:
    """Image name → size and the nodes holding it, kept in step with the cache's nodes."""

    __slots__ = ("_states",)

    def __init__(self) -> None:
        self._states: dict[str, _ImageState] = {}

    def add_node(self, node: Node) -> dict[str, ImageStateSummary]:
        """Record the node's images; returns the node's image map for its NodeInfo.

        The size of an image is the one reported by the first node seen with it (as upstream).
        """
        name = node.metadata.name
        summaries: dict[str, ImageStateSummary] = {}
        for image in node.status.images:
            for raw in image.names:
                image_name = normalized_image_name(raw)
                state = self._states.get(image_name)
                if state is None:
                    state = self._states[image_name] = _ImageState(image.size_bytes)
                state.nodes.add(name)
                state.summary.num_nodes = len(state.nodes)
                summaries.setdefault(image_name, state.summary)
        return summaries

    def remove_node(self, node: Node | None) -> None:
        """Forget the node's images; an image no node holds any more is dropped."""
        if node is None:
            return
        name = node.metadata.name
        for image in node.status.images:
            for raw in image.names:
                image_name = normalized_image_name(raw)
                state = self._states.get(image_name)
                if state is None:
                    continue
                state.nodes.discard(name)
                state.summary.num_nodes = len(state.nodes)
                if not state.nodes:
                    del self._states[image_name]

    def get(self, image_name: str) -> ImageStateSummary | None:
        """A frozen copy of the image's summary (name normalised), or None when no node has it."""
        state = self._states.get(normalized_image_name(image_name))
        if state is None:
            return None
        return ImageStateSummary(state.summary.size, state.summary.num_nodes)

    def nodes_with(self, image_name: str) -> set[str]:
        state = self._states.get(normalized_image_name(image_name))
        return set(state.nodes) if state is not None else set()

    def __len__(self) -> int:
        return len(self._states)


def snapshot_image_states(states: dict[str, ImageStateSummary]) -> dict[str, ImageStateSummary]:
    """Copies of a NodeInfo's image summaries, detached from the cache's live counts.

    Upstream: pkg/scheduler/framework/types.go (ImageStateSummary.Snapshot).
    """
    return {name: ImageStateSummary(s.size, s.num_nodes) for name, s in states.items()}
