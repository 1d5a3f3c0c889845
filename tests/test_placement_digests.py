"""Every benchmark workload (small sizes) and every example decides as recorded.

A refactor or a speed-up must leave placements and reports byte-identical; a change that
means to alter decisions re-records them with `python benchmarks/digests.py --write` and says
why in its commit.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def test_placements_and_reports_match_the_recorded_digests() -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import digests
    finally:
        sys.path.remove(str(BENCHMARKS))
    expected = json.loads(digests.DIGESTS.read_text())
    now = digests.current()
    assert set(now) == set(expected)
    assert {case: d for case, d in now.items() if expected[case] != d} == {}
