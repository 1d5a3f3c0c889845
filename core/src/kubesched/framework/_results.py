"""Values extension points exchange besides Status."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from kubesched.framework._status import Code, Status

__all__ = [
    "NodeScore",
    "NodeToStatus",
    "NominatingInfo",
    "NominatingMode",
    "PostFilterResult",
    "PreFilterResult",
    "StatusBuilder",
]


@dataclass(frozen=True)
class PreFilterResult:
    """Which nodes are worth filtering; `node_names=None` means all of them."""

    node_names: frozenset[str] | None = None

    @classmethod
    def of(cls, names: Iterable[str]) -> PreFilterResult:
        return cls(frozenset(names))

    @property
    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        """The intersection of two results (upstream PreFilterResult.Merge)."""
        if other is None or other.node_names is None:
            return self
        if self.node_names is None:
            return other
        return PreFilterResult(self.node_names & other.node_names)


class NominatingMode(enum.Enum):
    Noop = "Noop"
    Override = "Override"


@dataclass(frozen=True)
class NominatingInfo:
    nominated_node_name: str = ""
    mode: NominatingMode = NominatingMode.Override


@dataclass(frozen=True)
class PostFilterResult:
    nominating_info: NominatingInfo | None = None

    @classmethod
    def nominate(cls, node_name: str) -> PostFilterResult:
        return cls(NominatingInfo(node_name, NominatingMode.Override))


@dataclass
class NodeScore:
    name: str
    score: int


StatusBuilder = Callable[[list[str]], Sequence[Status]]
"""Builds the statuses of the named nodes (one per name, in order): see `NodeToStatus.defer`."""

_DEFERRED = Status(Code.Error, "status not built yet")
"""The stand-in of a deferred node's status in `NodeToStatus._map`, never handed out."""


class NodeToStatus:
    """Each rejected node's status; nodes not listed have `absent_status`.

    Upstream: framework.NodeToStatus. The absent status is UnschedulableAndUnresolvable
    (nodes PreFilter ruled out) or, by default, Success-like "not examined".

    kubesched: a node's status may be deferred (`defer`): the node is listed (it counts in
    `len` and `in`) but its Status is built only when some status is first read, all the
    deferred ones at once, one `build` call per builder. The scheduler's fast path defers
    the statuses of the rows an array Filter rejected for certain, which only an
    unschedulable pod's diagnosis reads (a placed pod's is thrown away, as upstream's).
    """

    __slots__ = ("_deferred", "_map", "absent_status")

    def __init__(self, absent_status: Status | None = None) -> None:
        self._map: dict[str, Status] = {}
        self._deferred: dict[StatusBuilder, list[str]] = {}
        self.absent_status: Status = absent_status or Status(Code.UnschedulableAndUnresolvable)

    def set(self, node_name: str, status: Status) -> None:
        if self._deferred and self._map.get(node_name) is _DEFERRED:
            self._build()  # the deferred status is replaced: build the others first
        self._map[node_name] = status

    def defer(self, node_names: Sequence[str], build: StatusBuilder) -> None:
        """List `node_names` now (in order, after the nodes listed so far) and have their
        statuses built by `build(names)` when a status is first read. Names deferred with
        the same `build` are built in one call, in the order they were deferred."""
        if not node_names:
            return
        m = self._map
        if self._deferred and not m.keys().isdisjoint(node_names):
            self._build()
        m.update(dict.fromkeys(node_names, _DEFERRED))
        self._deferred.setdefault(build, []).extend(node_names)

    @property
    def has_deferred(self) -> bool:
        """Whether some listed node's status is not built yet."""
        return bool(self._deferred)

    def _build(self) -> None:
        deferred, self._deferred = self._deferred, {}
        m = self._map
        for build, names in deferred.items():
            m.update(zip(names, build(names), strict=True))

    def get(self, node_name: str) -> Status:
        if self._deferred:
            self._build()
        return self._map.get(node_name, self.absent_status)

    def __contains__(self, node_name: str) -> bool:
        return node_name in self._map

    def __len__(self) -> int:
        return len(self._map)

    def items(self) -> Iterator[tuple[str, Status]]:
        if self._deferred:
            self._build()
        return iter(self._map.items())

    def nodes_for_code(self, code: Code, all_node_names: Iterable[str]) -> list[str]:
        """Node names (listed or absent) whose status has `code`."""
        return [n for n in all_node_names if self.get(n).code is code]
