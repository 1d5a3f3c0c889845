"""CycleState: data plugins share within one scheduling attempt.

Upstream: pkg/scheduler/framework/cycle_state.go. Written once (usually in PreFilter or
PreScore), read many times (Filter, Score). Clones are used for nominated-pod and preemption
dry runs: a value with a `clone()` method is cloned, others are shared.
"""

from __future__ import annotations

from typing import Any, Protocol, final, runtime_checkable

__all__ = ["CycleState", "StateData", "StateNotFoundError"]


@runtime_checkable
class StateData(Protocol):
    """A value in CycleState that knows how to copy itself for a cloned state."""

    def clone(self) -> StateData: ...


class StateNotFoundError(KeyError):
    """Reading a key nobody wrote (upstream ErrNotFound, message "not found")."""

    def __str__(self) -> str:
        return "not found"


@final
class CycleState:
    """Key/value storage for one scheduling attempt, shared by its binding cycle."""

    __slots__ = ("_data", "skip_filter_plugins", "skip_score_plugins")

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        self.skip_filter_plugins: set[str] = set()
        """Plugins whose PreFilter returned Skip: their Filter does not run this cycle."""
        self.skip_score_plugins: set[str] = set()
        """Plugins whose PreScore returned Skip: their Score does not run this cycle."""

    def read(self, key: str) -> Any:
        """The value under `key`; StateNotFoundError when nothing was written."""
        try:
            return self._data[key]
        except KeyError:
            raise StateNotFoundError(key) from None

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def write(self, key: str, value: Any) -> None:
        self._data[key] = value

    def delete(self, key: str) -> None:
        self._data.pop(key, None)

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def clone(self) -> CycleState:
        """A copy in which each StateData value is its own clone; skip sets are shared."""
        copy = CycleState()
        data = {}
        for k, v in self._data.items():
            # duck-typed on purpose: isinstance against a runtime Protocol is slow, and this
            # runs for every node of a preemption dry run
            clone = getattr(v, "clone", None)
            data[k] = clone() if callable(clone) else v
        copy._data = data
        copy.skip_filter_plugins = self.skip_filter_plugins
        copy.skip_score_plugins = self.skip_score_plugins
        return copy
