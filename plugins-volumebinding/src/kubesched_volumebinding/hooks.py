"""Program-level hooks (entry point group `kubesched`): the storage kinds, and the PV
controller and provisioner for the embedded cluster.

Installed, this module is found through the entry point `volumebinding`. Tests and
programs that want other controller settings register a `VolumeBindingHooks` instead.
"""

from __future__ import annotations

from kubesched.api import KindRegistry
from kubesched.cluster import Cluster, Controller
from kubesched.hookspecs import hookimpl
from kubesched_volumebinding.controllers import Provisioner, PVController
from kubesched_volumebinding.storage import storage_kinds

__all__ = ["VolumeBindingHooks", "kubesched_cluster_controllers", "kubesched_register_kinds"]


@hookimpl
def kubesched_register_kinds(registry: KindRegistry) -> None:
    for info in storage_kinds():
        registry.register(info)


@hookimpl
def kubesched_cluster_controllers(cluster: Cluster) -> list[Controller]:
    return [PVController(), Provisioner()]


class VolumeBindingHooks:
    """The same hooks with chosen controllers (for one cluster); None leaves one out."""

    def __init__(
        self,
        *,
        pv_controller: PVController | None = None,
        provisioner: Provisioner | None = None,
    ) -> None:
        self.pv_controller = pv_controller
        self.provisioner = provisioner

    @hookimpl
    def kubesched_register_kinds(self, registry: KindRegistry) -> None:
        kubesched_register_kinds(registry)

    @hookimpl
    def kubesched_cluster_controllers(self, cluster: Cluster) -> list[Controller]:
        return [c for c in (self.pv_controller, self.provisioner) if c is not None]
