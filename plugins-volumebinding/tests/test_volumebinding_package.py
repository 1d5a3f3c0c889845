"""The kubesched-volumebinding distribution installs and reports its own version."""

from __future__ import annotations

from importlib.metadata import version

import kubesched_volumebinding


def test_version_matches_distribution_metadata() -> None:
    assert kubesched_volumebinding.__version__ == version("kubesched-volumebinding")
