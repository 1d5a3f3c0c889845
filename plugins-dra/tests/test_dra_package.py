"""The kubesched-dra distribution: its version, its public names and the kinds its hook
registers."""

from __future__ import annotations

from importlib.metadata import entry_points, version

from dra_helpers import dra_kind_registry

import kubesched_dra
from kubesched.clock import VirtualClock
from kubesched.cluster.memory import MemoryCluster
from kubesched_dra import hooks
from kubesched_dra.api import (
    DeviceClass,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)
from kubesched_dra.controllers import ResourceClaimController
from kubesched_dra.inventory import DeviceInventory, DeviceInventoryController


def test_version_matches_distribution_metadata() -> None:
    assert kubesched_dra.__version__ == version("kubesched-dra")


def test_the_hook_module_is_the_kubesched_entry_point() -> None:
    (point,) = [p for p in entry_points(group="kubesched") if p.name == "dra"]
    assert point.load() is hooks


def test_hook_registers_the_resource_kinds() -> None:
    kinds = dra_kind_registry()
    registered = {
        (k.api_version, k.kind, k.plural, k.namespaced, k.model)
        for k in kinds
        if k.group == "resource.k8s.io"
    }
    assert registered == {
        ("resource.k8s.io/v1", "DeviceClass", "deviceclasses", False, DeviceClass),
        ("resource.k8s.io/v1", "ResourceClaim", "resourceclaims", True, ResourceClaim),
        (
            "resource.k8s.io/v1",
            "ResourceClaimTemplate",
            "resourceclaimtemplates",
            True,
            ResourceClaimTemplate,
        ),
        ("resource.k8s.io/v1", "ResourceSlice", "resourceslices", False, ResourceSlice),
    }


def test_hooks_contribute_the_controllers() -> None:
    cluster = MemoryCluster(dra_kind_registry(), VirtualClock())
    claims, inventories = hooks.kubesched_cluster_controllers(cluster)
    assert isinstance(claims, ResourceClaimController) and claims.name == "resource_claim"
    assert isinstance(inventories, DeviceInventoryController)
    chosen = ResourceClaimController()
    assert hooks.DRAHooks(resource_claims=chosen).kubesched_cluster_controllers(cluster) == [chosen]
    assert hooks.DRAHooks().kubesched_cluster_controllers(cluster) == []


def test_hook_registers_the_device_inventory() -> None:
    info = dra_kind_registry().get("simulation.kubesched.io/v1alpha1", "DeviceInventory")
    assert info is not None
    assert (info.plural, info.namespaced, info.model) == (
        "deviceinventories",
        False,
        DeviceInventory,
    )
