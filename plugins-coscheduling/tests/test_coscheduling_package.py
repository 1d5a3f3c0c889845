"""The kubesched-coscheduling distribution installs and reports its own version."""

from __future__ import annotations

from importlib.metadata import version

import kubesched_coscheduling


def test_version_matches_distribution_metadata() -> None:
    assert kubesched_coscheduling.__version__ == version("kubesched-coscheduling")
