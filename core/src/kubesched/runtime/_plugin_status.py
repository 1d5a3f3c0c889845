"""The Status helpers every runner shares: success, a plugin that raised, and an error
wrapped with the runner's prefix (upstream framework.go's `AsStatus(fmt.Errorf(...))`)."""

from __future__ import annotations

from kubesched.framework import MAX_NODE_SCORE, MIN_NODE_SCORE, Code, Plugin, Status

__all__ = ["SUCCESS", "invalid_score", "raised", "wrap_error"]

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


def invalid_score(plugin: str, score: int) -> Status:
    """A Score plugin's score outside [MIN_NODE_SCORE, MAX_NODE_SCORE] after normalizing
    (upstream framework.go RunScorePlugins), whichever runner found it."""
    msg = (
        f'applying score defaultWeights on Score plugins: plugin "{plugin}" '
        f"returns an invalid score {score}, it should in the range of "
        f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
    )
    return Status(Code.Error, error=RuntimeError(msg), plugin=plugin)
