"""`kubesched simulate --report out.html` and `kubesched schema report|compare`."""

from __future__ import annotations

from collections.abc import Sequence

import click

from kubesched.cli._options import write_page
from kubesched.compare import comparison_schema
from kubesched.report import AttemptLog, html_document, render_html, schema_text
from kubesched.simulate import SimulationResult

__all__ = ["report_title", "schema_group", "write_report"]


def report_title(paths: Sequence[str], config: str | None, seed: int) -> str:
    """What the page says was simulated: `examples/basic --config c.yaml --seed 0`."""
    words = [*paths]
    if config is not None:
        words += ["--config", config]
    return " ".join([*words, "--seed", str(seed)])


def write_report(path: str, result: SimulationResult, log: AttemptLog, title: str) -> None:
    """Render the HTML report of a run recorded by `log` and write it to `path`."""
    document = html_document(result, attempts=log.attempts, cluster=log.cluster, title=title)
    write_page(path, render_html(document))


@click.group("schema")
def schema_group() -> None:
    """Print the JSON Schema of kubesched's JSON documents."""


@schema_group.command("report")
def schema_report_command() -> None:
    """The JSON Schema of the simulation report: `kubesched simulate -o json` and the data
    of the HTML report (`--report`)."""
    click.echo(schema_text(), nl=False)


@schema_group.command("compare")
def schema_compare_command() -> None:
    """The JSON Schema of a comparison: `kubesched compare -o json` and the data of its
    HTML report."""
    click.echo(schema_text(comparison_schema()), nl=False)
