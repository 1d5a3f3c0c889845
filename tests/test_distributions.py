"""The five distributions install side by side and agree on the kubesched version range."""

from __future__ import annotations

import importlib
import importlib.metadata

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

DISTRIBUTIONS = {
    "kubesched": "kubesched",
    "kubesched-builtin": "kubesched_builtin",
    "kubesched-coscheduling": "kubesched_coscheduling",
    "kubesched-volumebinding": "kubesched_volumebinding",
    "kubesched-dra": "kubesched_dra",
}
PLUGIN_DISTRIBUTIONS = sorted(set(DISTRIBUTIONS) - {"kubesched"})


@pytest.mark.parametrize(("distribution", "package"), sorted(DISTRIBUTIONS.items()))
def test_package_version_matches_distribution(distribution: str, package: str) -> None:
    module = importlib.import_module(package)
    assert module.__version__ == importlib.metadata.version(distribution)


@pytest.mark.parametrize("distribution", PLUGIN_DISTRIBUTIONS)
def test_plugin_distribution_accepts_the_installed_core(distribution: str) -> None:
    requires = [Requirement(r) for r in importlib.metadata.requires(distribution) or []]
    (core,) = [r for r in requires if r.name == "kubesched"]
    assert Version(importlib.metadata.version("kubesched")) in core.specifier


def test_the_providers_table_agrees_with_the_installed_entry_points() -> None:
    """kubesched.config.KNOWN_PROVIDERS (what a user is told to install) names the
    distribution each of our plugins really comes from, and every plugin we publish."""
    from kubesched.config import KNOWN_PROVIDERS
    from kubesched.runtime import PluginRegistry

    ours = {
        name: entry.distribution
        for name, entry in PluginRegistry.discover().entries.items()
        if entry.distribution in PLUGIN_DISTRIBUTIONS
    }
    assert ours == dict(KNOWN_PROVIDERS)
