"""The conformance kit's pytest plugin.

Opt in from a package's `conftest.py` with `pytest_plugins = ["kubesched.testing"]` (or run
pytest with `-p kubesched.testing`); nothing is loaded otherwise. It provides:

- `kubesched_plugin`: the plugin a contract class names (`plugin_cls` / `plugin_name`,
  `plugin_args`), read once per class;
- `virtual_clock` and `memory_cluster`: an embedded cluster on virtual time, with every kind
  installed plugin packages register;
- options `--kubesched-examples N` and `--kubesched-e2e-examples N`: how many generated
  examples each check (and the end-to-end check) runs; `--kubesched-strict`: the kit's
  warnings (`ConformanceWarning`, e.g. a rejecting plugin without events_to_register, which
  upstream allows) fail their check.

Checks of an extension point the plugin does not implement are not applicable: they are
deselected at collection (not skipped), listed in one line of the terminal summary, and
reported as "not applicable" by `kubesched conformance`.
"""

from __future__ import annotations

import pytest

from kubesched.clock import VirtualClock
from kubesched.cluster.memory import MemoryCluster
from kubesched.testing._contract_base import (
    _POINT_ATTR,
    DEFAULT_E2E_EXAMPLES,
    DEFAULT_EXAMPLES,
    PluginUnderTest,
    applies_to,
)
from kubesched.testing._harness import shared_kinds

__all__ = [
    "NOT_APPLICABLE",
    "kubesched_plugin",
    "memory_cluster",
    "pytest_addoption",
    "pytest_collection_modifyitems",
    "pytest_terminal_summary",
    "virtual_clock",
]

NOT_APPLICABLE = pytest.StashKey[str]()
"""On a deselected contract item: why it does not apply to the plugin."""
_DESELECTED = pytest.StashKey[list[str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kubesched", "kubesched conformance kit")
    group.addoption(
        "--kubesched-examples",
        type=int,
        default=None,
        metavar="N",
        help=f"generated examples per conformance check (default {DEFAULT_EXAMPLES})",
    )
    group.addoption(
        "--kubesched-e2e-examples",
        type=int,
        default=None,
        metavar="N",
        help=f"generated clusters for the end-to-end check (default {DEFAULT_E2E_EXAMPLES})",
    )
    group.addoption(
        "--kubesched-strict",
        action="store_true",
        default=False,
        help="fail on the kit's warnings too (e.g. a rejecting plugin without "
        "events_to_register, which upstream allows)",
    )


@pytest.fixture(scope="class")
def kubesched_plugin(request: pytest.FixtureRequest) -> PluginUnderTest:
    """The plugin the requesting test class names, with its args."""
    if request.cls is None:
        raise pytest.UsageError("kubesched_plugin is for test classes that name a plugin")
    return PluginUnderTest.from_test_class(request.cls)


@pytest.fixture
def virtual_clock() -> VirtualClock:
    """A clock that only moves when told to."""
    return VirtualClock()


@pytest.fixture
def memory_cluster(virtual_clock: VirtualClock) -> MemoryCluster:
    """An empty embedded cluster knowing every installed kind."""
    return MemoryCluster(shared_kinds(), virtual_clock)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the contract checks whose extension point the plugin does not implement."""
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    plugins: dict[type, PluginUnderTest | None] = {}
    for item in items:
        point = getattr(getattr(item, "function", None), _POINT_ATTR, None)
        cls = getattr(item, "cls", None)
        if point is None or cls is None:
            keep.append(item)
            continue
        if cls not in plugins:
            try:
                plugins[cls] = PluginUnderTest.from_test_class(cls)
            except Exception:  # let the check run and report the problem itself
                plugins[cls] = None
        under_test = plugins[cls]
        reason = applies_to(point, under_test) if under_test is not None else None
        if reason is None:
            keep.append(item)
        else:
            item.stash[NOT_APPLICABLE] = reason
            dropped.append(item)
    if dropped:
        items[:] = keep
        config.hook.pytest_deselected(items=dropped)
        config.stash[_DESELECTED] = [f"{i.nodeid}: {i.stash[NOT_APPLICABLE]}" for i in dropped]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    dropped = terminalreporter.config.stash.get(_DESELECTED, [])
    if dropped:
        terminalreporter.write_line(
            f"kubesched conformance: {len(dropped)} checks deselected as not applicable "
            "(extension points the plugins do not implement); `kubesched conformance NAME` "
            "lists each with its reason"
        )
