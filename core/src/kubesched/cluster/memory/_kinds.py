"""The kinds an embedded cluster stores: core's, plus those plugin packages register."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubesched import hookspecs
from kubesched.api import KindRegistry, core_kinds

if TYPE_CHECKING:
    import pluggy

__all__ = ["default_kinds"]


def default_kinds(plugin_manager: pluggy.PluginManager | None = None) -> KindRegistry:
    """Core kinds (Node, Pod, Namespace, PriorityClass) and, given a plugin manager, every
    kind its `kubesched_register_kinds` implementations add (PodGroup, the storage kinds ...).

    The hook is historic, so plugins registered with the manager later still add theirs to
    this registry.
    """
    registry = KindRegistry()
    for info in core_kinds():
        registry.register(info)
    if plugin_manager is not None:
        caller = getattr(plugin_manager.hook, "kubesched_register_kinds", None)
        if caller is None or caller.spec is None:
            plugin_manager.add_hookspecs(hookspecs)
        plugin_manager.hook.kubesched_register_kinds.call_historic(kwargs={"registry": registry})
    return registry
