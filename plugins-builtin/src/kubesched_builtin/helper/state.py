"""Reading a plugin's own typed value from CycleState, with upstream's error texts.

Every upstream plugin has a `getPreFilterState`/`getPreScoreState` of the same shape: a
missing key and a value of another type are both errors the runner reports.
"""

from __future__ import annotations

from typing import TypeVar

from kubesched.framework import CycleState, StateNotFoundError

__all__ = ["read_state"]

_T = TypeVar("_T")


def read_state(state: CycleState, key: str, kind: type[_T], *, reading: str, convert: str) -> _T:
    """The value under `key`, which must be a `kind`.

    Raises RuntimeError `<reading> "<key>" from cycleState: not found` when nothing was
    written (its PreFilter/PreScore did not run or said Skip) and `<value repr><convert>`
    when the value has another type.
    """
    try:
        data = state.read(key)
    except StateNotFoundError as exc:
        raise RuntimeError(f'{reading} "{key}" from cycleState: {exc}') from None
    if not isinstance(data, kind):
        raise RuntimeError(f"{data!r}{convert}")
    return data
