"""Read rich box tables back from printed text, for tests of what a person sees.

Each table becomes its header and rows of cells; a cell's lines are joined with a space,
so a message rich wrapped at spaces reads as it was given. A row begins where the first
column has text, so a table whose first column wraps cannot be read back (and a test
asserting whole names in it fails, as it should).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["TextTable", "normalized", "read_tables"]

_EDGES = "┃│"


@dataclass
class TextTable:
    title: str
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)

    def column(self, name: str) -> list[str]:
        i = self.header.index(name)
        return [row[i] for row in self.rows]

    def row(self, first: str) -> dict[str, str]:
        """The row whose first cell is `first`, by column name."""
        (row,) = [r for r in self.rows if r[0] == first]
        return dict(zip(self.header, row, strict=True))


def normalized(text: str) -> str:
    return " ".join(text.split())


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip()[1:-1].replace("┃", "│").split("│")]


def _join(parts: list[str]) -> list[str]:
    return [normalized(" ".join(p)) for p in parts]


def read_tables(text: str) -> list[TextTable]:
    tables: list[TextTable] = []
    lines = text.splitlines()
    title = ""
    header: list[list[str]] | None = None
    rows: list[list[list[str]]] = []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("┏"):
            header, rows = [], []
        elif stripped.startswith("┃") and header is not None:
            cells = _cells(stripped)
            if not header:
                header.extend([c] for c in cells)
            else:
                for parts, cell in zip(header, cells, strict=True):
                    parts.append(cell)
        elif stripped.startswith("│") and header is not None:
            cells = _cells(stripped)
            if cells[0] or not rows:
                rows.append([[c] for c in cells])
            else:
                for parts, cell in zip(rows[-1], cells, strict=True):
                    parts.append(cell)
        elif stripped.startswith("└") and header is not None:
            tables.append(TextTable(title, _join(header), [_join(r) for r in rows]))
            header = None
        elif header is None and stripped and stripped[0] not in _EDGES + "┡":
            title = stripped
    return tables
