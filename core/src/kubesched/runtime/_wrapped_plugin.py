"""A plugin with some of its extension-point methods replaced: how `kubesched run`'s metrics
time a plugin (upstream instrumented_plugins.go) and how a fault plan makes one fail, without
either knowing the plugin's class."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kubesched.framework import Plugin

__all__ = ["WrappedPlugin"]


class WrappedPlugin:
    """A plugin as a profile's runners see it: the extension-point methods given are the
    wrapped ones, all else is the plugin's own, and `isinstance` sees the plugin's class."""

    def __init__(self, plugin: Plugin, methods: dict[str, Callable[..., Any]]) -> None:
        self._plugin = plugin
        self.name = plugin.name
        self.__dict__.update(methods)

    @property  # type: ignore[misc]
    def __class__(self) -> type[Any]:
        return type(self._plugin)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._plugin, name)
