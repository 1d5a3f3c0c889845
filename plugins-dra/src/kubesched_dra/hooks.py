"""Program-level hooks (entry point group `kubesched`): the resource.k8s.io/v1 kinds and
DeviceInventory, and the resourceclaim and DeviceInventory controllers for the embedded
cluster.

Installed, this module is found through the entry point `dra`. Tests and programs that
want other controllers register a `DRAHooks` instead.
"""

from __future__ import annotations

from kubesched.api import KindRegistry
from kubesched.cluster import Cluster, Controller
from kubesched.hookspecs import hookimpl
from kubesched_dra.api import dra_kinds
from kubesched_dra.controllers import ResourceClaimController
from kubesched_dra.inventory import DeviceInventoryController, inventory_kind

__all__ = ["DRAHooks", "kubesched_cluster_controllers", "kubesched_register_kinds"]


@hookimpl
def kubesched_register_kinds(registry: KindRegistry) -> None:
    for info in dra_kinds():
        registry.register(info)
    registry.register(inventory_kind())


@hookimpl
def kubesched_cluster_controllers(cluster: Cluster) -> list[Controller]:
    return [ResourceClaimController(), DeviceInventoryController()]


class DRAHooks:
    """The same hooks with chosen controllers (for one cluster); None leaves one out."""

    def __init__(
        self,
        *,
        resource_claims: ResourceClaimController | None = None,
        inventories: DeviceInventoryController | None = None,
    ) -> None:
        self.resource_claims = resource_claims
        self.inventories = inventories

    @hookimpl
    def kubesched_register_kinds(self, registry: KindRegistry) -> None:
        kubesched_register_kinds(registry)

    @hookimpl
    def kubesched_cluster_controllers(self, cluster: Cluster) -> list[Controller]:
        return [c for c in (self.resource_claims, self.inventories) if c is not None]
