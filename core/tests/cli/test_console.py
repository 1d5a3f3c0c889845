"""Tables that fit any console without cutting a name: `fit_table`'s widths, and the width
of a console writing to a pipe."""

from __future__ import annotations

import io
import sys

import pytest
from rich.console import Console
from rich.table import Table

from kubesched.cli._console import MIN_TEXT_WIDTH, PIPE_WIDTH, fit_table, output_console

NAMES = ["default/web-server-0", "kube-system/x", "team-b/batch-17"]
MESSAGE = (
    "0/5000 nodes are available: 1200 Insufficient cpu, 300 node(s) had untolerated "
    "taint(s), 3500 node(s) didn't match Pod's node affinity/selector. preemption: 0/5000 "
    "nodes are available: 5000 Preemption is not helpful for scheduling."
)


def pods(message: str = MESSAGE) -> Table:
    table = Table(title="Pods")
    for column in ("Pod", "Status", "Message"):
        table.add_column(column)
    for name in NAMES:
        table.add_row(name, "Unschedulable", message)
    return table


def render(table: Table, width: int) -> str:
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    console.print(table)
    return console.export_text()


def message_column(text: str) -> list[str]:
    """The last column's text of each row, its lines joined."""
    rows: list[list[str]] = []
    for line in text.splitlines():
        if not line.startswith("│"):
            continue
        cells = [c.strip() for c in line.strip("│").split("│")]
        if cells[0]:
            rows.append([])
        rows[-1].append(cells[-1])
    return [" ".join(" ".join(r).split()) for r in rows]


@pytest.mark.parametrize("width", [80, 100, 120, 200, 400])
def test_names_stay_whole_and_messages_complete(width: int) -> None:
    table = pods()
    assert fit_table(table, Console(width=width), text={2})
    text = render(table, width)

    assert "…" not in text
    assert all(len(line) <= width for line in text.splitlines())
    for name in NAMES:
        assert f"│ {name} " in text  # on one line, in its cell
    assert message_column(text) == [MESSAGE] * len(NAMES)


def test_text_shrinks_first() -> None:
    table = pods()
    assert fit_table(table, Console(width=80), text={2})
    widths = [c.width for c in table.columns]
    # names as wide as the longest one, the message takes the rest of 80 columns
    assert widths[:2] == [len(NAMES[0]), len("Unschedulable")]
    assert widths[2] == 80 - sum(widths[:2]) - 10  # 3 columns: 4 borders, 6 padding
    assert widths[2] >= MIN_TEXT_WIDTH


def test_too_narrow_for_names_and_text_says_so_and_still_cuts_nothing() -> None:
    table = pods()
    assert not fit_table(table, Console(width=60), text={2})
    assert [c.width for c in table.columns] == [len(NAMES[0]), len("Unschedulable"), 17]
    text = render(table, 60)

    assert "…" not in text
    assert all(len(line) <= 60 for line in text.splitlines())
    # the message's longest word (`affinity/selector.`, 18) folds: nothing is lost
    assert [m.replace(" ", "") for m in message_column(text)] == [MESSAGE.replace(" ", "")] * len(
        NAMES
    )


def test_names_wrap_at_spaces_before_text_folds() -> None:
    table = Table()
    table.add_column("Node")
    table.add_column("CPU")
    table.add_column("Why")
    table.add_row("node-a", "3/4 █████████░░░", "x " * 40)
    assert fit_table(table, Console(width=58), text={2})
    # the bar wraps under its amount so that the text keeps MIN_TEXT_WIDTH
    assert [c.width for c in table.columns] == [6, len("█████████░░░"), MIN_TEXT_WIDTH]


def test_a_table_that_fits_keeps_its_natural_widths() -> None:
    table = pods("short")
    assert fit_table(table, Console(width=200), text={2})
    assert [c.width for c in table.columns] == [
        len(NAMES[0]),
        len("Unschedulable"),
        len("Message"),
    ]


def test_a_narrow_table_is_widened_for_its_title() -> None:
    table = Table(title="A title longer than the table's cells")
    table.add_column("A")
    table.add_row("1")
    fit_table(table, Console(width=80))
    text = render(table, 80)
    assert "A title longer than the table's cells" in text


def test_a_pipe_gets_a_wide_console_unless_columns_is_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich would call it a terminal of 80 columns
    assert output_console().width == PIPE_WIDTH

    monkeypatch.setenv("COLUMNS", "80")
    assert output_console().width == 80


def test_stderr_follows_the_same_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.delenv("COLUMNS", raising=False)
    console = output_console(stderr=True)
    assert console.width == PIPE_WIDTH
    console.print("to stderr")
    assert sys.stderr.getvalue() == "to stderr\n"  # type: ignore[attr-defined]
