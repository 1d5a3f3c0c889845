"""Program-level hooks (entry point group `kubesched`): the resource.k8s.io/v1 kinds.

Installed, this module is found through the entry point `dra`.
"""

from __future__ import annotations

from kubesched.api import KindRegistry
from kubesched.hookspecs import hookimpl
from kubesched_dra.api import dra_kinds

__all__ = ["kubesched_register_kinds"]


@hookimpl
def kubesched_register_kinds(registry: KindRegistry) -> None:
    for info in dra_kinds():
        registry.register(info)
