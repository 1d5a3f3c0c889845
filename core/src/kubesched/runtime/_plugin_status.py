"""The Status helpers every runner shares: success, a plugin that raised, and an error
wrapped with the runner's prefix (upstream framework.go's `AsStatus(fmt.Errorf(...))`)."""

from __future__ import annotations

from kubesched.framework import Code, Plugin, Status

__all__ = ["SUCCESS", "raised", "wrap_error"]

SUCCESS = Status()


def raised(plugin: Plugin, exc: BaseException) -> Status:
    error = RuntimeError(f"plugin {plugin.name} raised {type(exc).__name__}: {exc}")
    error.__cause__ = exc
    return Status(Code.Error, error=error, plugin=plugin.name)


def wrap_error(prefix: str, plugin: str, status: Status) -> Status:
    error = RuntimeError(f"{prefix}: {status.message()}")
    # Go's %w: the plugin's own exception (and its traceback) stays reachable for reports
    error.__cause__ = status.error
    return Status(Code.Error, error=error, plugin=plugin)
