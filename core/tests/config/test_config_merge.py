"""mergePluginSet rules (section 3.3), table-driven like upstream's TestMergePlugins
(pkg/scheduler/apis/config/v1/default_plugins_test.go)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kubesched.config import PluginEntry, PluginSet
from kubesched.config._merge import MergedPlugin, merge_plugin_set


def pset(enabled: Sequence[str | tuple[str, int]] = (), disabled: Sequence[str] = ()) -> PluginSet:
    entries = [
        PluginEntry(name=e) if isinstance(e, str) else PluginEntry(name=e[0], weight=e[1])
        for e in enabled
    ]
    return PluginSet(enabled=entries, disabled=[PluginEntry(name=d) for d in disabled])


DEFAULT = pset([("A", 1), ("B", 2), "C"])

CASES = [
    pytest.param(
        DEFAULT, pset(), [("A", 1, None), ("B", 2, None), ("C", None, None)], (), id="no-custom"
    ),
    pytest.param(
        DEFAULT,
        pset(disabled=["B"]),
        [("A", 1, None), ("C", None, None)],
        ("B",),
        id="disable-one-default",
    ),
    pytest.param(
        DEFAULT,
        pset(["X", ("B", 7)]),
        [("A", 1, None), ("B", 7, 1), ("C", None, None), ("X", None, 0)],
        (),
        id="enabled-default-replaced-in-place-custom-appended",
    ),
    pytest.param(
        DEFAULT,
        pset(["X", "A"], disabled=["*"]),
        [("X", None, 0), ("A", None, 1)],
        ("*",),
        id="star-keeps-only-custom",
    ),
    pytest.param(
        DEFAULT,
        pset(["X", "X"]),
        [("A", 1, None), ("B", 2, None), ("C", None, None), ("X", None, 0), ("X", None, 1)],
        (),
        id="duplicates-kept-for-later-rejection",
    ),
    pytest.param(
        DEFAULT,
        pset([("A", 3), ("A", 4)]),
        [("A", 4, 1), ("B", 2, None), ("C", None, None), ("A", 3, 0)],
        (),
        id="repeated-default-last-entry-replaces-first-appended",
    ),
    pytest.param(
        pset(["A", "B"], disabled=["B"]),
        pset(disabled=["A"]),
        [],
        ("A", "B"),
        id="default-disabled-merged",
    ),
    pytest.param(
        DEFAULT,
        pset(["B"], disabled=["B"]),
        [("A", 1, None), ("C", None, None), ("B", None, 0)],
        ("B",),
        id="disabled-default-enabled-again-goes-last",
    ),
]


@pytest.mark.parametrize(("default", "custom", "enabled", "disabled"), CASES)
def test_merge_plugin_set(
    default: PluginSet,
    custom: PluginSet,
    enabled: list[tuple[str, int | None, int | None]],
    disabled: tuple[str, ...],
) -> None:
    merged = merge_plugin_set(default, custom)
    assert list(merged.enabled) == [MergedPlugin(*e) for e in enabled]
    assert merged.disabled == disabled
