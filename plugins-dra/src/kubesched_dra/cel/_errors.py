"""The errors of compiling and evaluating selectors, carrying upstream's text."""

from __future__ import annotations

from kubesched import KubeschedError

__all__ = ["CELCompileError", "CELError", "CELRuntimeError"]


class CELError(KubeschedError):
    """A selector that cannot be used; the message is upstream's text for it, which the
    allocator prefixes with the class or claim and the selector's index."""


class CELCompileError(CELError):
    """An expression that does not compile or does not evaluate to bool (upstream's
    CompilationResult.Error: ``compilation failed: ERROR: <input>:1:5: ...``)."""


class CELRuntimeError(CELError):
    """An evaluation that failed (``no such key: model. Consider using ...``)."""
