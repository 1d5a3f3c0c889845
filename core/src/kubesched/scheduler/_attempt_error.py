"""Where a scheduling attempt that ended in an Error status went wrong, for reports.

Upstream turns a plugin's error into an Error status whose message names the plugin
(framework.go: `running "X" filter plugin: <err>`); the pod's PodScheduled condition then
has reason SchedulerError and that message (schedule_one.go handleSchedulingFailure). A
Python plugin raises instead of returning an error, so kubesched can say more than the
message: which exception, the file and line in the plugin's code it came from, and on request
the whole traceback. The condition keeps upstream's message; this is extra detail.
"""

from __future__ import annotations

import os
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from kubesched.framework import Plugin, Status

__all__ = ["AttemptError", "attempt_error", "raised_exception"]


@dataclass(frozen=True)
class AttemptError:
    """An Error status's plugin (`""` when none is named), the type name of the exception
    raised (`""` when the plugin returned an Error status without raising), where it was
    raised (`file:line`, the innermost frame in the plugin's own code; `""` when unknown)
    and the formatted traceback (`""` unless asked for)."""

    plugin: str
    exception: str = ""
    location: str = ""
    traceback: str = ""


def raised_exception(status: Status) -> BaseException | None:
    """The exception a plugin raised behind an Error status: the runners wrap it in
    exceptions of their own (`running ... plugin: ...`) that were never raised, so follow
    `__cause__` to the first one that carries a traceback."""
    error = status.error
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if error.__traceback__ is not None:
            return error
        seen.add(id(error))
        error = error.__cause__
    return None


def attempt_error(status: Status, plugin: Plugin | None, *, with_traceback: bool) -> AttemptError:
    """What `status` (an Error) says about where it came from; `plugin` is the profile's
    instance of the plugin the status names, if any."""
    exc = raised_exception(status)
    if exc is None:
        return AttemptError(status.plugin or "")
    tb = exc.__traceback__
    assert tb is not None
    return AttemptError(
        plugin=status.plugin or "",
        exception=type(exc).__name__,
        location=_location(tb, _code_roots(plugin)),
        traceback="".join(traceback.format_exception(exc)) if with_traceback else "",
    )


def _code_roots(plugin: Plugin | None) -> list[Path]:
    """Where the plugin's code lives, most specific first: the folder of its class's module
    (one plugin's folder), then its top-level package (or its module file)."""
    if plugin is None:
        return []
    module = sys.modules.get(type(plugin).__module__)
    file = getattr(module, "__file__", None)
    if module is None or file is None:
        return []
    roots = [Path(file).resolve().parent]
    top = sys.modules.get(module.__name__.partition(".")[0])
    for path in getattr(top, "__path__", ()):
        roots.append(Path(path).resolve())
    return roots


def _location(tb: TracebackType, roots: list[Path]) -> str:
    frames = [(Path(f.f_code.co_filename), line) for f, line in traceback.walk_tb(tb)]
    for root in roots:
        for file, line in reversed(frames):
            if file.resolve().is_relative_to(root):
                return _show(file, line)
    file, line = frames[-1]
    return _show(file, line)


def _show(file: Path, line: int) -> str:
    """`file:line`, the file relative to the working directory when it is inside it."""
    try:
        shown = os.path.relpath(file) if file.resolve().is_relative_to(Path.cwd()) else str(file)
    except ValueError:  # another drive (Windows)
        shown = str(file)
    return f"{shown}:{line}"
