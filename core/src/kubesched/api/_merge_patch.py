"""Applying a JSON merge patch (RFC 7386), as the API server does for
`application/merge-patch+json`: the embedded cluster's scenario `patch` steps and the fake
API server both use it."""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["apply_merge_patch"]


def apply_merge_patch(target: Any, patch: Any) -> Any:
    """`target` with `patch` applied: mappings merge key by key, null removes a key, anything
    else replaces (a copy of the patch's value, so the result shares nothing with it)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = apply_merge_patch(result.get(key), value)
    return result
