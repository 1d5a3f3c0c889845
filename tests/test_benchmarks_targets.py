"""`benchmarks/run.py --targets`: issue 14's targets read against RESULTS.md's rows."""

from __future__ import annotations

from pathlib import Path

from kubesched_bench.report import RESULTS_HEADER
from kubesched_bench.targets import TARGETS, latest_row, parse_rows, render_targets, write_targets


def _row(date: str, size: str, pods_s: str, notes: str, cycle: str = "0.400") -> str:
    cells = [date, "SchedulingBasic", size, pods_s, "0", "0", "0.4", "0.5", "3.11.7"]
    return "| " + " | ".join([*cells, "2 cores", notes, cycle, "0.7", "280", "0.7"]) + " |"


def _results(*rows: str) -> str:
    return RESULTS_HEADER + "\n".join(rows) + "\n\n## `kubesched run`\n\n| date |\n|---|\n"


BASIC_5000 = TARGETS[0]
BASIC_CYCLE = TARGETS[1]


def test_the_latest_fast_path_row_of_the_size_counts() -> None:
    rows = parse_rows(
        _results(
            _row("2026-01-01", "5000 / 1000 / 10000", "1200.0", "load 0.5"),
            _row("2026-01-02", "5000 / 1000 / 10000", "1600.0", "load 0.6; fast path"),
            _row("2026-01-03", "5000 / 1000 / 10000", "500.0", "load 0.6; per-node path"),
            _row("2026-01-03", "5000 / 1000 / 10000", "510.0", "load 0.6; KUBESCHED_FAST_PATH=0"),
            _row("2026-01-04", "5000 / 1000 / 1000", "1700.0", "load 0.6"),
        )
    )
    assert len(rows) == 5
    row = latest_row(BASIC_5000, rows)
    assert row is not None and row["date"] == "2026-01-02"


def test_rows_written_before_a_column_existed_do_not_count_for_it() -> None:
    old = "| 2026-01-01 | SchedulingBasic | 5000 / 1000 / 10000 | 99.0 | 1 | 1 | 1 | 1 | 3.11.7 |"
    rows = parse_rows(_results(old + " 2 cores | load 0.5 |"))
    assert latest_row(BASIC_5000, rows) is not None
    assert latest_row(BASIC_CYCLE, rows) is None


def test_the_table_says_met_missed_by_how_much_and_not_measured() -> None:
    table = render_targets(
        parse_rows(_results(_row("2026-01-02", "5000 / 1000 / 10000", "1200.0", "load 0.61")))
    )
    lines = table.splitlines()
    assert len(lines) == 2 + len(TARGETS)
    assert "| 1200 | 2026-01-02 | 0.61 | no (20% off) |" in lines[2]
    assert "| 0.4 | 2026-01-02 | 0.61 | no (33% off) |" in lines[3]
    assert "not measured" in lines[4]
    met = render_targets(
        parse_rows(_results(_row("2026-01-02", "5000 / 1000 / 10000", "1500.0", "", "0.3")))
    )
    assert met.splitlines()[2].endswith("| yes |") and met.splitlines()[3].endswith("| yes |")


def test_record_rewrites_one_section_at_the_end(tmp_path: Path) -> None:
    path = tmp_path / "RESULTS.md"
    first = _row("2026-01-02", "5000 / 1000 / 10000", "1200.0", "load 1")
    path.write_text(_results(first))
    write_targets(path)
    assert "| 1200 | 2026-01-02 |" in path.read_text()
    later = _row("2026-01-03", "5000 / 1000 / 10000", "1550.0", "load 1")
    path.write_text(path.read_text().replace(first, f"{first}\n{later}"))
    write_targets(path)
    text = path.read_text()
    assert text.count("## Against the targets (issue 14)") == 1
    assert "| 1200 | 2026-01-02 |" not in text
    assert "| 1550 | 2026-01-03 | 1 | yes |" in text
    assert text.index("## `kubesched run`") < text.index("## Against the targets")
