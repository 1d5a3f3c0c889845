"""Running the conformance kit on an installed plugin, outside any test suite.

`run_conformance("NodeResourcesFit", args)` writes a one-class test module that subclasses
`PluginConformance` for that plugin (loaded through its entry point), runs it with pytest in
this process, and returns one `CheckResult` per check: passed, warning (passed, with a
`ConformanceWarning`), failed or not applicable.
`kubesched conformance NAME` prints that report. Needs the `testing` extra (pytest and
hypothesis).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = ["CheckResult", "ConformanceReport", "run_conformance"]

Outcome = Literal["passed", "warning", "failed", "not applicable"]

_RUNS = itertools.count(1)

_POINTS = [
    "Plugin",
    "Args",
    "QueueSort",
    "PreEnqueue",
    "EnqueueExtensions",
    "PreFilter",
    "Filter",
    "BatchFilter",
    "ArrayFilter",
    "PreFilterExtensions",
    "PostFilter",
    "PreScore",
    "Score",
    "BatchScore",
    "ArrayScore",
    "VectorizedFilter",
    "VectorizedScore",
    "Reserve",
    "Permit",
    "PreBind",
    "Bind",
    "PostBind",
    "EndToEnd",
]
_ORDER = {point: i for i, point in enumerate(_POINTS)}

_MODULE = """\
import json

from kubesched.testing.contracts import PluginConformance


class TestConformance(PluginConformance):
    plugin_name = {name!r}
    plugin_args = json.loads({args!r})
"""


@dataclass
class CheckResult:
    """One check of the kit and how it went."""

    point: str
    """The extension point (or Plugin, Args, EndToEnd ...) the check is about."""
    check: str
    """What it checks, in a line."""
    test: str
    outcome: Outcome
    detail: str = ""
    """Why it failed (its assertion) or why it does not apply."""
    report: str = ""
    """The full failure report."""


@dataclass
class ConformanceReport:
    plugin: str
    checks: list[CheckResult] = field(default_factory=list)
    exit_code: int = 0
    output: str = ""
    """What pytest printed (collection errors show here)."""

    def count(self, outcome: Outcome) -> int:
        return sum(1 for c in self.checks if c.outcome == outcome)

    @property
    def ok(self) -> bool:
        return self.exit_code in (0, 5) and self.count("failed") == 0 and bool(self.checks)


class _Collector:
    """A pytest plugin that records each check's outcome."""

    def __init__(self) -> None:
        self.described: dict[str, tuple[str, str, str]] = {}
        self.results: dict[str, CheckResult] = {}

    def pytest_collection_finish(self, session: Any) -> None:
        for item in session.items:
            fn = getattr(item, "function", None)
            doc = " ".join((getattr(fn, "__doc__", None) or item.name).split())
            point = getattr(fn, "__kubesched_point__", "")
            self.described[item.nodeid] = (point, doc, item.name)

    def pytest_deselected(self, items: Any) -> None:
        from kubesched.testing.plugin import NOT_APPLICABLE

        for item in items:
            reason = item.stash.get(NOT_APPLICABLE, None)
            if reason is None:
                continue
            fn = getattr(item, "function", None)
            doc = " ".join((getattr(fn, "__doc__", None) or item.name).split())
            point = getattr(fn, "__kubesched_point__", "")
            self.results.setdefault(
                item.nodeid, CheckResult(point, doc, item.name, "not applicable", reason)
            )

    def pytest_warning_recorded(self, warning_message: Any, nodeid: str) -> None:
        from kubesched.testing._contract_base import ConformanceWarning

        result = self.results.get(nodeid)
        advice = issubclass(warning_message.category, ConformanceWarning)
        if advice and result is not None and result.outcome == "passed":
            result.outcome = "warning"
            result.detail = _first_line(str(warning_message.message))

    def pytest_runtest_logreport(self, report: Any) -> None:
        point, doc, name = self.described.get(report.nodeid, ("", report.nodeid, report.nodeid))
        if report.when == "call" or (report.when == "setup" and not report.passed):
            if report.skipped:
                reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
                reason = reason.removeprefix("Skipped: ").removeprefix("not applicable: ")
                result = CheckResult(point, doc, name, "not applicable", reason)
            elif report.failed:
                crash = getattr(report.longrepr, "reprcrash", None)
                message = crash.message if crash is not None else str(report.longrepr)
                result = CheckResult(
                    point, doc, name, "failed", _first_line(message), report.longreprtext
                )
            else:
                result = CheckResult(point, doc, name, "passed")
            self.results.setdefault(report.nodeid, result)
        elif report.when == "teardown" and report.failed:
            self.results[report.nodeid] = CheckResult(
                point, doc, name, "failed", "teardown failed", report.longreprtext
            )


def _first_line(message: str) -> str:
    text = message.removeprefix("AssertionError: ").strip()
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= 300 else line[:297] + "..."


def run_conformance(
    name: str,
    args: Mapping[str, Any] | None = None,
    *,
    examples: int | None = None,
    e2e_examples: int | None = None,
    strict: bool = False,
) -> ConformanceReport:
    """Run every check of the kit on the installed plugin `name` with `args`; `strict`
    fails the checks that would only warn."""
    import pytest

    collector = _Collector()
    with tempfile.TemporaryDirectory(prefix="kubesched-conformance-") as tmp:
        root = Path(tmp)
        (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        # a name of its own: runs in one process must not find each other's module
        module = root / f"test_kubesched_conformance_{next(_RUNS)}.py"
        module.write_text(
            _MODULE.format(name=name, args=json.dumps(dict(args or {}))), encoding="utf-8"
        )
        argv = [
            str(module),
            "-c",
            str(root / "pytest.ini"),
            "--rootdir",
            str(root),
            "-p",
            "kubesched.testing.plugin",
            "-p",
            "no:cacheprovider",
            "-q",
        ]
        if examples is not None:
            argv.append(f"--kubesched-examples={examples}")
        if e2e_examples is not None:
            argv.append(f"--kubesched-e2e-examples={e2e_examples}")
        if strict:
            argv.append("--kubesched-strict")
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                code = int(pytest.main(argv, plugins=[collector]))
        finally:
            sys.modules.pop(module.stem, None)
    checks = sorted(collector.results.values(), key=lambda c: _ORDER.get(c.point, len(_ORDER)))
    return ConformanceReport(name, checks, code, out.getvalue())
