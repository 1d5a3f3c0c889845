"""Code and Status: what every extension point returns.

Upstream: staging/src/k8s.io/kube-scheduler/framework/interface.go. A plugin may return
None for Success; the framework fills in `plugin` on rejections so the queue knows which
plugin to ask when the cluster changes.
"""

from __future__ import annotations

import enum
from typing import Final, final

__all__ = ["Code", "Status", "is_success"]


class Code(enum.IntEnum):
    """Status codes, in upstream's order."""

    Success = 0
    """The plugin ran and the pod may go on."""
    Error = 1
    """Something unexpected went wrong: the attempt is aborted and the pod retried after backoff."""
    Unschedulable = 2
    """The pod does not fit here; preemption (PostFilter) may help."""
    UnschedulableAndUnresolvable = 3
    """The pod does not fit here and preemption cannot change that."""
    Wait = 4
    """Permit only: hold the pod until allowed, rejected or timed out."""
    Skip = 5
    """PreFilter/PreScore: disable this plugin's Filter/Score for the cycle. Bind: not mine."""
    Pending = 6
    """The attempt stops waiting for something outside the scheduler; counts as a rejection."""

    def __str__(self) -> str:
        return self.name


_REJECTIONS: Final = frozenset(
    {Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Pending}
)


@final
class Status:
    """The outcome of a plugin call: a code, human-readable reasons and the plugin's name."""

    __slots__ = ("code", "error", "plugin", "reasons")

    def __init__(
        self,
        code: Code = Code.Success,
        *reasons: str,
        plugin: str = "",
        error: BaseException | None = None,
    ) -> None:
        self.code: Code = code
        self.reasons: tuple[str, ...] = reasons
        self.plugin: str = plugin
        self.error: BaseException | None = error

    # -- constructors -------------------------------------------------------------------
    @classmethod
    def success(cls) -> Status:
        return cls(Code.Success)

    @classmethod
    def as_error(cls, error: BaseException | str) -> Status:
        """An Error status carrying an exception (or a message made into one)."""
        exc = error if isinstance(error, BaseException) else RuntimeError(error)
        return cls(Code.Error, error=exc)

    @classmethod
    def unschedulable(cls, *reasons: str) -> Status:
        return cls(Code.Unschedulable, *reasons)

    @classmethod
    def unresolvable(cls, *reasons: str) -> Status:
        """UnschedulableAndUnresolvable: preemption cannot help on this node."""
        return cls(Code.UnschedulableAndUnresolvable, *reasons)

    @classmethod
    def wait(cls, *reasons: str) -> Status:
        return cls(Code.Wait, *reasons)

    @classmethod
    def skip(cls, *reasons: str) -> Status:
        return cls(Code.Skip, *reasons)

    @classmethod
    def pending(cls, *reasons: str) -> Status:
        return cls(Code.Pending, *reasons)

    # -- predicates ---------------------------------------------------------------------
    @property
    def is_success(self) -> bool:
        return self.code is Code.Success

    @property
    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending."""
        return self.code in _REJECTIONS

    @property
    def is_skip(self) -> bool:
        return self.code is Code.Skip

    @property
    def is_wait(self) -> bool:
        return self.code is Code.Wait

    # -- text ---------------------------------------------------------------------------
    def message(self) -> str:
        """Reasons joined by ", ", the error's text first when there is one."""
        parts = list(self.reasons)
        if self.error is not None:
            parts.insert(0, str(self.error))
        return ", ".join(parts)

    def with_plugin(self, plugin: str) -> Status:
        """This status attributed to `plugin` (a copy when it names another plugin)."""
        if self.plugin == plugin:
            return self
        return Status(self.code, *self.reasons, plugin=plugin, error=self.error)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Status):
            return NotImplemented
        return (
            self.code == other.code
            and self.message() == other.message()
            and self.plugin == other.plugin
        )

    def __hash__(self) -> int:
        return hash((self.code, self.message(), self.plugin))

    def __repr__(self) -> str:
        extra = f", plugin={self.plugin!r}" if self.plugin else ""
        return f"Status({self.code}, {self.message()!r}{extra})"


def is_success(status: Status | None) -> bool:
    """None and Success both mean success."""
    return status is None or status.code is Code.Success
