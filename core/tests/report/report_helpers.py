"""Runs of the examples with every attempt recorded, for the report's tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubesched.report import AttemptLog, html_document
from kubesched.simulate import SimulationResult, simulate

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def recorded_run(example: str, *args: str, **options: Any) -> tuple[SimulationResult, AttemptLog]:
    """Simulate an example folder (or files in it) with an AttemptLog watching."""
    log = AttemptLog()
    paths = [EXAMPLES / example / a for a in args] if args else [EXAMPLES / example]
    result = simulate(paths, observers=[log], **options)
    return result, log


def report_of(example: str, *args: str, **options: Any) -> dict[str, Any]:
    """The HTML report's document of an example's run."""
    result, log = recorded_run(example, *args, **options)
    return html_document(result, attempts=log.attempts, cluster=log.cluster, title=example)
