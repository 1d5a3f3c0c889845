"""Read an example's expected outcome from the `| pod | node | why |` table of its README
(and any other table, by its header row, with `readme_table`).

The tests compare a simulation with the table, so an example's README and its behaviour
cannot drift apart.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@dataclass(frozen=True)
class Expected:
    """One row of a README's outcome table."""

    pod: str
    node: str | None
    status: str
    message: str


def readme_outcome(example: Path) -> dict[str, Expected]:
    """Pod name → expected outcome, from the example's README table."""
    rows: dict[str, Expected] = {}
    in_table = False
    for line in (example / "README.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            in_table = False
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[:2] == ["pod", "node"] and cells[2].startswith("why"):
            in_table = True
            continue
        if not in_table or set(cells[0]) <= {"-"}:
            continue  # another table, or the |---| separator
        pod, node, why = cells
        if node in ("—", "-"):
            status, _, rest = why.partition(":")
            # `code` in the README is quoted text in the message
            message = re.sub(r"`([^`]*)`", r'"\1"', rest.strip())
            if status == "Unschedulable":
                message = message.strip('"')  # the whole message is quoted in the README
            rows[pod] = Expected(pod, None, status, message)
        else:
            rows[pod] = Expected(pod, node, "Bound", "")
    return rows


def check_outcome(pods: dict[str, dict[str, Any]], outcome: dict[str, Expected]) -> None:
    """Assert each pod of the table ended as the table says (JSON pod records by name)."""
    for name, want in outcome.items():
        got = pods[name]
        assert (got["node"], got["status"]) == (want.node, want.status), name
        if want.status in ("Unschedulable", "Preempted"):
            assert got["message"] == want.message, name
        elif want.status == "Pending":
            assert got["message"].startswith(want.message), got["message"]
        else:
            assert got["message"] == "", name


def readme_table(example: Path, header: Sequence[str]) -> list[dict[str, str]]:
    """The rows of the README table whose header row is `header`, each as column → cell.

    A cell that is all code (`` `text` ``) gives its text; `—` or `-` gives ""."""
    rows: list[dict[str, str]] = []
    in_table = False
    for line in (example / "README.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            in_table = False
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells == list(header):
            in_table = True
            continue
        if not in_table or set(cells[0]) <= {"-"}:
            continue  # another table, or the |---| separator
        assert len(cells) == len(header), f"{example.name} README: {line!r}"
        cells = ["" if c in ("—", "-") else re.sub(r"^`(.*)`$", r"\1", c) for c in cells]
        rows.append(dict(zip(header, cells, strict=True)))
    return rows
