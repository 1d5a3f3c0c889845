"""NodeColumns: the snapshot's node state as numpy arrays, one row per node.

The seam for Filter/Score paths that work on many nodes at once. Row `i` describes
`Snapshot.node_info_list[i]`. The columns are built once when the snapshot's node list is
laid out, then patched row by row as the cache swaps changed nodes' clones in
(`Snapshot.replace`), so a cycle never pays a gather over every node.

Amounts are int64 (CPU in millicores, the others in base units). A Python int outside int64
is stored saturated at ±(2**63 - 1) and clears `exact` until the next build; readers that
need exact arithmetic check `exact` (or bound the values they read) and fall back to the
NodeInfos.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, final

import numpy as np
import numpy.typing as npt

from kubesched.api import CPU, EPHEMERAL_STORAGE, MEMORY, PODS
from kubesched.framework._node_info import NodeInfo
from kubesched.framework._resource import Resource

__all__ = ["NodeColumns", "TaintKey"]

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

TaintKey = tuple[tuple[str, str, str], ...]
"""A node's taints as (key, value, effect) in the node's order: what the scheduler reads of
them (timeAdded only matters to eviction)."""

_BASIC: Final = (CPU, MEMORY, EPHEMERAL_STORAGE, PODS)
_INT64_MAX: Final = 2**63 - 1


def _resources_of(info: NodeInfo) -> Iterable[str]:
    yield from info.allocatable.scalar
    yield from info.requested.scalar


def _taint_key(info: NodeInfo) -> TaintKey:
    node = info.node
    if node is None:
        return ()
    return tuple((t.key, t.value, str(t.effect)) for t in node.spec.taints)


def _label(info: NodeInfo, key: str) -> str | None:
    node = info.node
    return None if node is None else node.metadata.labels.get(key)


class _Interned:
    """Small ids for equal values (taint sets, image sets, label values), in order of
    first appearance; ids are never reused while the columns live."""

    __slots__ = ("ids", "values")

    def __init__(self) -> None:
        self.ids: dict[object, int] = {}
        self.values: list[object] = []

    def id_of(self, value: object) -> int:
        found = self.ids.get(value)
        if found is None:
            found = self.ids[value] = len(self.values)
            self.values.append(value)
        return found


@final
class NodeColumns:
    """Node state as arrays aligned with `names` (row i is the snapshot's i-th node).

    - `allocatable`, `requested`, `non_zero_requested`: resource name → int64 array, for the
      four basic resources and every extended/scalar resource any node has or has requests
      of (a resource a node lacks is 0 there; non-zero requests are 0 outside CPU/memory);
    - `pod_count`: pods on the node (assumed ones included);
    - `generation`: the row's NodeInfo generation (a global counter: every change to a node
      info takes a new one, a clone keeps it), so a value derived from a row's pods stays
      right for as long as the row shows the generation it was derived on;
    - `unschedulable`: `spec.unschedulable`;
    - `taint_set`: an id per distinct taint list, `taint_sets[id]` the list (`TaintKey`);
    - `has_host_ports`: some pod on the node uses a host port;
    - `image_set`: an id per distinct set of (normalised) image names present on the node,
      `image_sets[id]` the set;
    - `with_affinity`, `with_required_anti_affinity`: the node holds a pod with
      (anti-)affinity terms / with required anti-affinity terms;
    - `domain_ids(key)`: for a label key, an id per distinct value (-1 where the label is
      missing); kept up to date for every key asked for once.
    """

    __slots__ = (
        "_domains",
        "_infos",
        "_position",
        "allocatable",
        "exact",
        "generation",
        "has_host_ports",
        "image_set",
        "image_sets_interned",
        "index",
        "names",
        "non_zero_requested",
        "pod_count",
        "requested",
        "taint_set",
        "taint_sets_interned",
        "unschedulable",
        "with_affinity",
        "with_required_anti_affinity",
    )

    def __init__(self, nodes: Sequence[NodeInfo]) -> None:
        self._infos: list[NodeInfo] = list(nodes)
        self._position: dict[NodeInfo, int] = {info: i for i, info in enumerate(self._infos)}
        self.names: list[str] = [n.name for n in self._infos]
        self.index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        self.exact = True
        resources = dict.fromkeys(_BASIC)
        for info in self._infos:
            resources.update(dict.fromkeys(_resources_of(info)))
        self.allocatable: dict[str, Ints] = {}
        self.requested: dict[str, Ints] = {}
        self.non_zero_requested: dict[str, Ints] = {}
        for r in resources:
            self.allocatable[r] = self._ints([n.allocatable.get(r) for n in self._infos])
            self.requested[r] = self._ints([n.requested.get(r) for n in self._infos])
            self.non_zero_requested[r] = self._ints(
                [n.non_zero_requested.get(r) for n in self._infos]
            )
        # `get(PODS)` is the allowed pod number; requests of pods are counted apart
        self.pod_count: Ints = self._ints([len(n.pods) for n in self._infos])
        self.generation: Ints = self._ints([n.generation for n in self._infos])
        self.unschedulable: Bools = np.array(
            [n.node is not None and n.node.spec.unschedulable for n in self._infos], np.bool_
        )
        self.taint_sets_interned = _Interned()
        self.taint_set: Ints = np.array(
            [self.taint_sets_interned.id_of(_taint_key(n)) for n in self._infos], np.int64
        )
        self.image_sets_interned = _Interned()
        self.image_set: Ints = np.array(
            [self.image_sets_interned.id_of(frozenset(n.image_states)) for n in self._infos],
            np.int64,
        )
        self.has_host_ports: Bools = np.array(
            [len(n.used_ports) > 0 for n in self._infos], np.bool_
        )
        self.with_affinity: Bools = np.array(
            [bool(n.pods_with_affinity) for n in self._infos], np.bool_
        )
        self.with_required_anti_affinity: Bools = np.array(
            [bool(n.pods_with_required_anti_affinity) for n in self._infos], np.bool_
        )
        self._domains: dict[str, tuple[Ints, _Interned]] = {}

    @classmethod
    def build(cls, nodes: Sequence[NodeInfo]) -> NodeColumns:
        """Gather the columns of `nodes` (the snapshot does this when its list is laid out)."""
        return cls(nodes)

    def _ints(self, values: list[int]) -> Ints:
        try:
            return np.array(values, np.int64)
        except OverflowError:
            self.exact = False
            return np.array([max(-_INT64_MAX, min(_INT64_MAX, v)) for v in values], np.int64)

    def _set_int(self, column: Ints, i: int, value: int) -> None:
        if -_INT64_MAX <= value <= _INT64_MAX:
            column[i] = value
        else:
            self.exact = False
            column[i] = _INT64_MAX if value > 0 else -_INT64_MAX

    # --- reading ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.names)

    @property
    def taint_sets(self) -> list[TaintKey]:
        """Taint lists by `taint_set` id."""
        return self.taint_sets_interned.values  # type: ignore[return-value]

    @property
    def image_sets(self) -> list[frozenset[str]]:
        """Sets of image names by `image_set` id."""
        return self.image_sets_interned.values  # type: ignore[return-value]

    def positions(self, nodes: Sequence[NodeInfo]) -> npt.NDArray[np.intp] | None:
        """The rows of `nodes`, or None when one of them is not a node info of these columns
        (a clone made for a what-if, e.g. with nominated pods added, or a foreign list).

        Nodes are matched by identity, so a changed copy never reads another's row."""
        try:
            return np.fromiter(map(self._position.__getitem__, nodes), np.intp, len(nodes))
        except KeyError:
            return None

    def column(self, table: dict[str, Ints], name: str) -> Ints:
        """`table[name]`, or zeros when no node has that resource."""
        found = table.get(name)
        return found if found is not None else np.zeros(len(self.names), np.int64)

    def domain_ids(self, key: str) -> Ints:
        """An id per distinct value of node label `key` (-1 where missing), per row; the
        values by id are `domain_values(key)`. Patched with the other columns from then on."""
        found = self._domains.get(key)
        if found is None:
            interned = _Interned()
            ids = np.array(
                [self._domain_id(interned, _label(n, key)) for n in self._infos], np.int64
            ).reshape(len(self._infos))
            found = self._domains[key] = (ids, interned)
        return found[0]

    def domain_values(self, key: str) -> list[str]:
        """Label values of `key` by the ids of `domain_ids(key)`."""
        self.domain_ids(key)
        return self._domains[key][1].values  # type: ignore[return-value]

    @staticmethod
    def _domain_id(interned: _Interned, value: str | None) -> int:
        return -1 if value is None else interned.id_of(value)

    # --- patching --------------------------------------------------------------------------

    def replace(self, i: int, info: NodeInfo) -> None:
        """Row `i` now describes `info` (a fresh clone of the node that row holds). A clone
        of the same Node object as the row's has the same allocatable, taints, images and
        labels (NodeInfo.set_node and the cache's image states derive them from it), so only
        what the pods make of the row is set anew."""
        old = self._infos[i]
        del self._position[old]
        self._infos[i] = info
        self._position[info] = i
        for r in _resources_of(info):
            if r not in self.allocatable:
                size = len(self.names)
                self.allocatable[r] = np.zeros(size, np.int64)
                self.requested[r] = np.zeros(size, np.int64)
                self.non_zero_requested[r] = np.zeros(size, np.int64)
        self._set_amounts(i, self.requested, info.requested)
        self._set_amounts(i, self.non_zero_requested, info.non_zero_requested)
        self._set_int(self.pod_count, i, len(info.pods))
        self.generation[i] = info.generation
        self.has_host_ports[i] = len(info.used_ports) > 0
        self.with_affinity[i] = bool(info.pods_with_affinity)
        self.with_required_anti_affinity[i] = bool(info.pods_with_required_anti_affinity)
        node = info.node
        if node is not None and node is old.node:
            # only pods changed (an assume, a bind, a delete): what the row holds of the
            # node itself (allocatable, taints, images, labels; the cache sets them together
            # from the Node object) is still right
            return
        self._set_amounts(i, self.allocatable, info.allocatable)
        self.unschedulable[i] = node is not None and node.spec.unschedulable
        self.taint_set[i] = self.taint_sets_interned.id_of(_taint_key(info))
        self.image_set[i] = self.image_sets_interned.id_of(frozenset(info.image_states))
        for key, (ids, interned) in self._domains.items():
            ids[i] = self._domain_id(interned, _label(info, key))

    def _set_amounts(self, i: int, table: dict[str, Ints], amounts: Resource) -> None:
        set_int = self._set_int
        set_int(table[CPU], i, amounts.milli_cpu)
        set_int(table[MEMORY], i, amounts.memory)
        set_int(table[EPHEMERAL_STORAGE], i, amounts.ephemeral_storage)
        set_int(table[PODS], i, amounts.allowed_pod_number)
        scalar = amounts.scalar
        for r, column in table.items():
            if r not in _BASIC:
                set_int(column, i, scalar.get(r, 0))
