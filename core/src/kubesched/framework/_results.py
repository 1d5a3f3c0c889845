"""Values extension points exchange besides Status."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from kubesched.framework._status import Code, Status

__all__ = [
    "NodeScore",
    "NodeToStatus",
    "NominatingInfo",
    "NominatingMode",
    "PostFilterResult",
    "PreFilterResult",
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


class NodeToStatus:
    """Each rejected node's status; nodes not listed have `absent_status`.

    Upstream: framework.NodeToStatus. The absent status is UnschedulableAndUnresolvable
    (nodes PreFilter ruled out) or, by default, Success-like "not examined".
    """

    __slots__ = ("_map", "absent_status")

    def __init__(self, absent_status: Status | None = None) -> None:
        self._map: dict[str, Status] = {}
        self.absent_status: Status = absent_status or Status(Code.UnschedulableAndUnresolvable)

    def set(self, node_name: str, status: Status) -> None:
        self._map[node_name] = status

    def get(self, node_name: str) -> Status:
        return self._map.get(node_name, self.absent_status)

    def __contains__(self, node_name: str) -> bool:
        return node_name in self._map

    def __len__(self) -> int:
        return len(self._map)

    def items(self) -> Iterator[tuple[str, Status]]:
        return iter(self._map.items())

    def nodes_for_code(self, code: Code, all_node_names: Iterable[str]) -> list[str]:
        """Node names (listed or absent) whose status has `code`."""
        return [n for n in all_node_names if self.get(n).code is code]
