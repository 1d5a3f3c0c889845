"""Report sections that hook modules add to a simulation's report.

A plugin package knows things about a run that the core does not (gangs, volumes, quotas).
It implements the `kubesched_report_sections(cluster, result)` hook and returns
`ReportSection`s: the table report prints each as its own table after the pods, and the JSON
report puts each section's `payload` under `"sections"`, by the section's `key`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ReportSection", "collect_sections"]


@dataclass(frozen=True)
class ReportSection:
    """One section of a simulation report: a table for people, a payload for programs.

    `key` names the section in JSON (`"sections": {key: payload}`), so it must be unique
    in a report and should be a lowerCamelCase word (`podGroups`). `title` heads the table;
    `columns` name its columns and every row has exactly one cell per column. Cells are
    plain text (never rich markup); the last column wraps, the others do not, so put long
    text such as a message last. `caption`, when given, is printed under the table.
    `payload` is any JSON-serializable value (usually a list of objects with the same
    facts as the rows, with numbers as numbers)."""

    key: str
    title: str
    columns: Sequence[str]
    rows: Sequence[Sequence[str]]
    payload: Any = None
    caption: str = ""

    def __post_init__(self) -> None:
        if not self.key:
            raise ValueError(f"report section {self.title!r}: key must not be empty")
        columns = tuple(self.columns)
        rows = tuple(tuple(row) for row in self.rows)
        for i, row in enumerate(rows):
            if len(row) != len(columns):
                raise ValueError(
                    f"report section {self.key!r}: row {i} has {len(row)} cells, "
                    f"expected {len(columns)} (one per column)"
                )
            for cell in row:
                if not isinstance(cell, str):
                    raise TypeError(
                        f"report section {self.key!r}: row {i} has a cell of type "
                        f"{type(cell).__name__}, expected str"
                    )
        try:
            json.dumps(self.payload)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"report section {self.key!r}: payload is not JSON-serializable: {exc}"
            ) from None
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "rows", rows)


def collect_sections(contributed: Iterable[Iterable[ReportSection] | None]) -> list[ReportSection]:
    """Flatten what every hook implementation returned, sorted by key so the report does
    not depend on the order hook modules were loaded in; a key given twice is an error."""
    sections: dict[str, ReportSection] = {}
    for batch in contributed:
        for section in batch or ():
            if not isinstance(section, ReportSection):
                raise TypeError(
                    "kubesched_report_sections must return ReportSection objects, got "
                    f"{type(section).__name__}"
                )
            if section.key in sections:
                raise ValueError(f"two report sections have the key {section.key!r}")
            sections[section.key] = section
    return [sections[k] for k in sorted(sections)]
