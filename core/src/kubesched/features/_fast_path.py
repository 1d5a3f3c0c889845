"""The fast path switch: whether Filter and Score run on arrays or node by node.

Not an upstream gate: both paths decide the same (the placement digests hold either way);
the per-node one is kept for comparison and debugging. It lives here, at the bottom layer,
so plugins whose own shortcuts follow the switch (DefaultPreemption's) read it through the
plugin API.
"""

from __future__ import annotations

import os

__all__ = ["FAST_PATH_ENV", "fast_path_enabled"]

FAST_PATH_ENV = "KUBESCHED_FAST_PATH"
"""Environment variable: "0" keeps the per-node path (for comparison and debugging)."""


def fast_path_enabled(requested: bool | None = None) -> bool:
    """Whether a scheduler uses the fast path: `requested` when given (`--no-fast-path`
    gives False), else on unless KUBESCHED_FAST_PATH is "0" (the one place it is read)."""
    if requested is not None:
        return requested
    return os.environ.get(FAST_PATH_ENV, "1").strip() != "0"
