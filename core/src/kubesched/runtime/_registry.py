"""Plugin discovery: entry point group `kubesched.plugins`, name → plugin class.

Every installed plugin is imported once at start-up; one that fails to import, has a
mismatched name or is not a Plugin is recorded with its error and becomes fatal only when
a profile names it (the config resolver reports it then).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from importlib_metadata import EntryPoint, entry_points

from kubesched.config import KNOWN_PROVIDERS
from kubesched.framework import (
    EXTENSION_POINTS,
    EnqueueExtensions,
    Plugin,
    extension_points_of,
)

__all__ = ["ENTRY_POINT_GROUP", "DiscoveredPlugin", "PluginRegistry"]

ENTRY_POINT_GROUP = "kubesched.plugins"


@dataclass(frozen=True)
class DiscoveredPlugin:
    """One ``kubesched.plugins`` entry point as discovered: the plugin class it loads, or
    why it could not be loaded. (A plugin named in a configuration is
    `kubesched.config.PluginEntry`.)"""

    name: str
    value: str
    distribution: str | None
    version: str | None
    plugin: type[Plugin] | None = None
    error: str | None = None

    @property
    def extension_points(self) -> list[str]:
        return extension_points_of(self.plugin) if self.plugin is not None else []

    @property
    def ok(self) -> bool:
        return self.plugin is not None and self.error is None


def _load(ep: EntryPoint) -> DiscoveredPlugin:
    dist = ep.dist
    dist_name = dist.name if dist is not None else None
    version = dist.version if dist is not None else None
    base = DiscoveredPlugin(ep.name, ep.value, dist_name, version)
    try:
        obj = ep.load()
    except Exception as exc:
        return _with(base, error=f"{type(exc).__name__}: {exc}")
    if not (isinstance(obj, type) and issubclass(obj, Plugin)):
        return _with(base, error=f"{ep.value} is not a kubesched.framework.Plugin subclass")
    if not extension_points_of(obj):
        return _with(base, error=f"{ep.value} implements no extension point")
    missing = _unimplemented(obj)
    if missing:
        return _with(base, error=f"{ep.value} does not implement {missing}")
    if obj.name != ep.name:
        return _with(
            base,
            error=f'entry point "{ep.name}" loads a plugin whose name is "{obj.name}"',
        )
    return _with(base, plugin=obj)


def _unimplemented(plugin: type[Plugin]) -> str:
    """The abstract methods a plugin class leaves out, named with the base that requires
    each (``FilterPlugin.filter``); empty when it is complete."""
    missing = sorted(getattr(plugin, "__abstractmethods__", ()))
    bases: list[type] = [*EXTENSION_POINTS.values(), EnqueueExtensions]
    return ", ".join(
        next((f"{b.__name__}.{m}" for b in bases if m in getattr(b, "__abstractmethods__", ())), m)
        for m in missing
    )


def _with(entry: DiscoveredPlugin, **changes: object) -> DiscoveredPlugin:
    from dataclasses import replace

    return replace(entry, **changes)  # type: ignore[arg-type]


@dataclass
class PluginRegistry:
    """Every plugin found, by name, plus extra classes registered in-process (tests).

    It is the `kubesched.config.PluginCatalog` that `kubesched.config.resolve` takes.
    """

    entries: dict[str, DiscoveredPlugin] = field(default_factory=dict)

    @classmethod
    def of(cls, *plugins: type[Plugin]) -> PluginRegistry:
        """A registry of just these plugin classes, no entry points (tests, embedding)."""
        reg = cls()
        for plugin in plugins:
            reg.register(plugin)
        return reg

    @classmethod
    def discover(cls, extra: Iterable[type[Plugin]] = ()) -> PluginRegistry:
        """Load the `kubesched.plugins` entry points; two distributions offering the same
        name make that name broken, naming both."""
        reg = cls()
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            entry = _load(ep)
            existing = reg.entries.get(entry.name)
            if existing is not None and existing.distribution != entry.distribution:
                entry = _with(
                    entry,
                    plugin=None,
                    error=(
                        f'a plugin named "{entry.name}" is provided by both '
                        f"{existing.distribution} and {entry.distribution}"
                    ),
                )
            reg.entries[entry.name] = entry
        for plugin in extra:
            reg.register(plugin)
        return reg

    def register(self, plugin: type[Plugin], distribution: str | None = None) -> None:
        """Add a plugin class directly (in-process plugins, tests)."""
        if not plugin.name:
            raise ValueError(f"{plugin.__qualname__} has no `name`")
        missing = _unimplemented(plugin)
        if missing:
            raise ValueError(f"{plugin.__qualname__} does not implement {missing}")
        self.entries[plugin.name] = DiscoveredPlugin(
            plugin.name,
            f"{plugin.__module__}:{plugin.__qualname__}",
            distribution,
            None,
            plugin=plugin,
        )

    @property
    def plugins(self) -> dict[str, type[Plugin]]:
        return {n: e.plugin for n, e in self.entries.items() if e.plugin is not None and e.ok}

    @property
    def broken(self) -> dict[str, str]:
        return {n: e.error for n, e in self.entries.items() if e.error is not None}

    def provider(self, name: str) -> str | None:
        """The distribution that provides plugin ``name``: the one it was found in, else the
        one this project publishes it in (to say what to install); None when unknown."""
        entry = self.entries.get(name)
        if entry is not None and entry.distribution:
            return entry.distribution
        return KNOWN_PROVIDERS.get(name)
