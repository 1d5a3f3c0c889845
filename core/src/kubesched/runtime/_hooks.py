"""The pluggy plugin manager for program-level hooks (entry point group `kubesched`)."""

from __future__ import annotations

import pluggy

from kubesched import hookspecs
from kubesched.hookspecs import PROJECT

__all__ = ["make_plugin_manager"]


def make_plugin_manager(load_entrypoints: bool = True) -> pluggy.PluginManager:
    """A PluginManager with kubesched's hook specs and, unless told not to, every hook
    module installed under the `kubesched` entry point group."""
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)
    if load_entrypoints:
        pm.load_setuptools_entrypoints(PROJECT)
    pm.check_pending()
    return pm
