"""Consoles and tables that read well anywhere: a terminal of any width, a pipe, a CI log.

rich sizes a console in a pipe at 80 columns and fits a table to its console by shrinking
columns evenly, ending in `NodeResourcesBal…` and four-character message columns. Names are
what people copy into configs and commands, so kubesched's tables never cut them: a pipe
gets a wide console, and `fit_table` chooses every column's width itself.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

__all__ = ["MIN_TEXT_WIDTH", "PIPE_WIDTH", "fit_table", "output_console"]

PIPE_WIDTH = 200
"""Columns of a report written to a pipe or a file when COLUMNS is not set."""

MIN_TEXT_WIDTH = 30
"""Text columns (messages) keep at least this width before any name column wraps."""

_MIN_FOLD_WIDTH = 4


def output_console(*, stderr: bool = False) -> Console:
    """A console on stdout (or stderr): a terminal's own width; elsewhere (a pipe, a file,
    a CI log) COLUMNS when it is set, else PIPE_WIDTH rather than rich's 80."""
    # the stream itself, not rich's is_terminal: FORCE_COLOR in CI makes any stream a
    # terminal to rich, with 80 columns
    stream = sys.stderr if stderr else sys.stdout
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    if tty or "COLUMNS" in os.environ:
        return Console(stderr=stderr)
    return Console(stderr=stderr, width=PIPE_WIDTH)


def fit_table(table: Table, console: Console, *, text: Collection[int] = ()) -> bool:
    """Fix the width of every column of `table` (rows added) so it fits `console` and no
    cell is cut short: columns are narrowed widest first, text columns (indexes in `text`:
    messages, reasons) down to MIN_TEXT_WIDTH, then the others (names) down to their
    longest word, then text columns down to theirs. Only when that is not enough do words
    fold onto the next line (text columns first); nothing becomes an ellipsis.

    Returns whether the table reads well: every name column at least as wide as its
    longest word and every text column at least MIN_TEXT_WIDTH wide (or as wide as its
    text); when not, a caller may choose another layout."""
    columns = table.columns
    if not columns:
        return True
    _, pad_right, _, pad_left = table.padding
    extra = (2 if table.box and table.show_edge else 0) + (len(columns) - 1 if table.box else 0)
    extra += (pad_left + pad_right) * len(columns)
    if not table.pad_edge:
        extra -= pad_left + pad_right
    options = console.options
    longest: list[int] = []
    widest: list[int] = []
    for column in columns:
        cells = [column.header, *column.cells] if table.show_header else list(column.cells)
        sizes = [Measurement.get(console, options, cell) for cell in cells]
        longest.append(max((m.minimum for m in sizes), default=1))
        widest.append(max((m.maximum for m in sizes), default=1))
    widths = list(widest)
    excess = sum(widths) + extra - console.width
    names = [i for i in range(len(columns)) if i not in text]
    texts = [i for i in range(len(columns)) if i in text]
    fold = [min(widest[i], _MIN_FOLD_WIDTH) for i in range(len(columns))]
    stages = [
        (texts, [min(widest[i], max(MIN_TEXT_WIDTH, longest[i])) for i in range(len(columns))]),
        (names, longest),
        (texts, longest),
        (texts, fold),
        (names, fold),
        (list(range(len(columns))), [1] * len(columns)),
    ]
    for which, floors in stages:
        if excess <= 0:
            break
        excess = _narrow(widths, which, floors, excess)
    for column, width in zip(columns, widths, strict=True):
        column.width = width
        column.no_wrap = False
        column.overflow = "fold"
    # rich wraps a title and a caption at the table's width: widen a narrow table for them
    labels = [label for label in (table.title, table.caption) if label is not None]
    wanted = max((Measurement.get(console, options, label).maximum for label in labels), default=0)
    if wanted > sum(widths) + extra:
        table.min_width = min(console.width, wanted)
    return all(widths[i] >= longest[i] for i in names) and all(
        widths[i] >= min(widest[i], MIN_TEXT_WIDTH) for i in texts
    )


def _narrow(widths: list[int], which: list[int], floors: list[int], excess: int) -> int:
    """Take up to `excess` columns of width from the columns `which`, always from the
    widest one, none below its floor; what could not be taken is returned."""
    while excess > 0:
        open_ = [i for i in which if widths[i] > floors[i]]
        if not open_:
            break
        widest = max(open_, key=lambda i: widths[i])
        widths[widest] -= 1
        excess -= 1
    return excess
