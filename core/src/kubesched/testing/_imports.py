"""The plugin API boundary: which kubesched modules a plugin package's code may import.

A plugin package builds on the plugin API only, so the core may change everything else (the
runtime, the queue, the scheduler loop, the simulator) without breaking it. Our own plugin
distributions are held to it by core/tests/package/test_layers.py, packages made from the
template by the template's tests; a third-party package can call `plugin_api_violations` on
its `src/` in a test of its own.

Tests are not held to it: they may drive the runtime or the simulator directly.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import kubesched

__all__ = ["PLUGIN_API_MODULES", "plugin_api_violations"]

PLUGIN_API_MODULES: Final = frozenset(
    {
        "kubesched",  # the errors kubesched raises (NotFoundError, ConflictError ...)
        "kubesched.api",
        "kubesched.api.field",
        "kubesched.api.validation",
        "kubesched.clock",
        "kubesched.cluster",
        # Plugins may read feature gates, as upstream's plugins get them (plugins/feature's
        # Features, from the process-wide gates): read-only, and at the bottom layer.
        "kubesched.features",
        "kubesched.framework",
        "kubesched.framework.preemption",
        "kubesched.hookspecs",
    }
)
"""The modules of the plugin API. `kubesched.testing` is for tests only."""


def plugin_api_violations(src: Path) -> list[str]:
    """Every import of a kubesched module outside `PLUGIN_API_MODULES` in the Python files
    under `src` (imports made only for type checking count too), as
    `path:line: imports kubesched.runtime`; empty when the package keeps to the plugin API."""
    problems: list[str] = []
    for path in sorted(src.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, module in sorted(_kubesched_imports(tree)):
            if module not in PLUGIN_API_MODULES:
                problems.append(f"{path.relative_to(src)}:{line}: imports {module}")
    return problems


def _kubesched_imports(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, module) of each kubesched module imported; `from kubesched import x` imports
    the module `kubesched.x` when x is not one of the names the package itself exports."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_kubesched(alias.name):
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if not _is_kubesched(node.module):
                continue
            if node.module != "kubesched":
                yield node.lineno, node.module
                continue
            for alias in node.names:
                exported = alias.name in kubesched.__all__
                yield node.lineno, "kubesched" if exported else f"kubesched.{alias.name}"


def _is_kubesched(module: str) -> bool:
    return module == "kubesched" or module.startswith("kubesched.")
