"""The node tree: node names grouped by zone, listed with the zones interleaved.

Upstream: pkg/scheduler/backend/cache/node_tree.go. The scheduler walks nodes in this order
(and Filter stops after enough feasible nodes), so interleaving zones spreads a cycle's search
over every zone instead of exhausting the first one.
"""

from __future__ import annotations

from collections.abc import Iterable

from kubesched.api import Node

__all__ = [
    "LABEL_FAILURE_DOMAIN_BETA_REGION",
    "LABEL_FAILURE_DOMAIN_BETA_ZONE",
    "LABEL_TOPOLOGY_REGION",
    "LABEL_TOPOLOGY_ZONE",
    "NodeTree",
    "get_zone_key",
]

LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION = "topology.kubernetes.io/region"
LABEL_FAILURE_DOMAIN_BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
LABEL_FAILURE_DOMAIN_BETA_REGION = "failure-domain.beta.kubernetes.io/region"


def get_zone_key(node: Node) -> str:
    """The node's zone key, `region + ":\\x00:" + zone`, or "" when it has neither label.

    Upstream: pkg/util/node/node.go (GetZoneKey). The deprecated beta labels are read when the
    GA ones are missing; the NUL keeps a colon inside a region or zone name from colliding.
    """
    labels = node.metadata.labels
    if not labels:
        return ""
    zone = labels.get(LABEL_TOPOLOGY_ZONE)
    if zone is None:
        zone = labels.get(LABEL_FAILURE_DOMAIN_BETA_ZONE, "")
    region = labels.get(LABEL_TOPOLOGY_REGION)
    if region is None:
        region = labels.get(LABEL_FAILURE_DOMAIN_BETA_REGION, "")
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


class NodeTree:
    """Node names per zone, zones in the order they were first seen.

    Unlike upstream, the tree remembers each node's zone, so removing or moving a node does not
    depend on the caller passing the node object as it was when it was added.
    """

    __slots__ = ("_tree", "_zone_of", "_zones")

    def __init__(self, nodes: Iterable[Node] = ()) -> None:
        self._tree: dict[str, list[str]] = {}
        self._zones: list[str] = []
        self._zone_of: dict[str, str] = {}
        for node in nodes:
            self.add_node(node)

    @property
    def num_nodes(self) -> int:
        return len(self._zone_of)

    def add_node(self, node: Node) -> bool:
        """Add the node to its zone (moving it if it sits in another); True when it changed."""
        name = node.metadata.name
        zone = get_zone_key(node)
        current = self._zone_of.get(name)
        if current == zone:
            return False
        if current is not None:
            self.remove_node(name)
        names = self._tree.get(zone)
        if names is None:
            self._zones.append(zone)
            self._tree[zone] = [name]
        else:
            names.append(name)
        self._zone_of[name] = zone
        return True

    def update_node(self, node: Node) -> bool:
        """Move the node when its zone changed (add it when unknown); True when it changed."""
        return self.add_node(node)

    def remove_node(self, name: str) -> bool:
        """Remove the node; False when it was not in the tree."""
        zone = self._zone_of.pop(name, None)
        if zone is None:
            return False
        names = self._tree[zone]
        names.remove(name)
        if not names:
            del self._tree[zone]
            self._zones.remove(zone)
        return True

    def zones(self) -> list[str]:
        """Zone keys in the order they were first seen."""
        return list(self._zones)

    def list(self) -> list[str]:
        """Node names, one from each zone in turn: zone order, then position within a zone.

        E.g. zone a = [n1, n2, n3, n4], zone b = [n5, n6] gives n1, n5, n2, n6, n3, n4.
        """
        columns = [self._tree[zone] for zone in self._zones]
        longest = max((len(c) for c in columns), default=0)
        return [c[i] for i in range(longest) for c in columns if i < len(c)]

    def __len__(self) -> int:
        return len(self._zone_of)

    def __contains__(self, name: object) -> bool:
        return name in self._zone_of
