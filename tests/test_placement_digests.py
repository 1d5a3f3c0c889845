"""Every benchmark workload (small sizes) and every example decides as recorded.

A refactor or a speed-up must leave placements and reports byte-identical; a change that
means to alter decisions re-records them with `python benchmarks/digests.py --write` and says
why in its commit.
"""

from __future__ import annotations

import json

import digests  # benchmarks/digests.py, importable through the pythonpath ini option


def test_placements_and_reports_match_the_recorded_digests() -> None:
    expected = json.loads(digests.DIGESTS.read_text())
    now = digests.current()
    assert set(now) == set(expected)
    assert {case: d for case, d in now.items() if expected[case] != d} == {}
