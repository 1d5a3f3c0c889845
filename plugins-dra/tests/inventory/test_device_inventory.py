"""DeviceInventory: a few lines that become ResourceSlices on the nodes they select, kept
up to date as nodes come, go and change labels; mistakes named by file and field."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from dra_helpers import dra_kind_registry, load_text, only

from kubesched._errors import ManifestError
from kubesched.api import K8sModel, Node
from kubesched.clock import VirtualClock, VirtualTimeLoop
from kubesched.cluster.memory import AdmissionError, MemoryCluster
from kubesched.simulate._manifests import create_objects
from kubesched.testing import make_node
from kubesched_dra.api import ResourceSlice
from kubesched_dra.inventory import (
    INVENTORY_LABEL,
    DeviceInventory,
    DeviceInventoryController,
    devices_of,
)

INVENTORY = """\
apiVersion: simulation.kubesched.io/v1alpha1
kind: DeviceInventory
metadata:
  name: h100
spec:
  driver: gpu.example.com
  nodeSelector:
    matchLabels: {gpu: h100}
  devices:
  - namePrefix: gpu
    count: 2
    indexAttribute: index
    attributes:
      model: H100
      gpu.example.com/nvlink: true
      cores: 132
      driverVersion: {version: 1.2.3}
    capacity:
      memory: 80Gi
  - name: nic
    capacity:
      bandwidth: {value: "100"}
"""


def test_the_compact_form_loads_and_expands(tmp_path: Path) -> None:
    inventory = only(load_text(tmp_path, INVENTORY))
    assert isinstance(inventory, DeviceInventory)
    gpu0, gpu1, nic = devices_of(inventory)
    assert [d.name for d in (gpu0, gpu1, nic)] == ["gpu-0", "gpu-1", "nic"]
    assert {k: a.value for k, a in gpu1.attributes.items()} == {
        "model": "H100",
        "gpu.example.com/nvlink": True,
        "cores": 132,
        "driverVersion": "1.2.3",
        "index": 1,
    }
    assert gpu1.attributes["driverVersion"].set_fields == ["version"]
    assert gpu0.attributes["index"].value == 0
    assert gpu0.capacity["memory"].value == Fraction(80 * 2**30)
    assert nic.capacity["bandwidth"].value == 100
    assert nic.attributes == {}


class Env:
    """The DeviceInventory controller alone on a memory cluster, on virtual time."""

    def __init__(self, *objects: K8sModel) -> None:
        self.loop = VirtualTimeLoop(VirtualClock())
        self.cluster = MemoryCluster(dra_kind_registry(), self.loop.clock, uid_seed=5)
        self.cluster.create_many(list(objects))
        self.cluster.add_controller(DeviceInventoryController())
        self.run(self._start())

    async def _start(self) -> None:
        self.cluster.start_controllers()

    def run(self, action: Awaitable[Any]) -> None:
        async def go() -> None:
            await action
            await asyncio.sleep(0)
            while self.cluster.busy():
                await asyncio.sleep(0.01)

        self.loop.run_until_complete(go())

    def get(self, kind: str, name: str) -> Any:
        obj = self.cluster.get(kind, name)
        assert obj is not None, f"{kind} {name}"
        return obj

    def slices(self, node: str | None = None) -> list[ResourceSlice]:
        found = [s for s in self.cluster.list("ResourceSlice") if isinstance(s, ResourceSlice)]
        return [s for s in found if node is None or s.spec.node_name == node]


def inventory(tmp_path: Path, text: str = INVENTORY) -> DeviceInventory:
    obj = only(load_text(tmp_path, text))
    assert isinstance(obj, DeviceInventory)
    return obj


def node(name: str, **labels: str) -> Node:
    return make_node(name).label(**labels).obj()


def test_selected_nodes_publish_a_pool_of_their_own(tmp_path: Path) -> None:
    env = Env(node("a", gpu="h100"), node("b", gpu="a100"), inventory(tmp_path))
    (published,) = env.slices()
    assert env.slices("b") == []
    spec = published.spec
    assert (spec.driver, spec.node_name) == ("gpu.example.com", "a")
    assert (spec.pool.name, spec.pool.generation, spec.pool.resource_slice_count) == ("a", 1, 1)
    assert [d.name for d in spec.devices] == ["gpu-0", "gpu-1", "nic"]
    meta = published.metadata
    assert meta.name.startswith("a-gpu.example.com-")
    assert meta.labels == {INVENTORY_LABEL: "h100"}
    a = env.get("Node", "a")
    assert [(o.kind, o.name, o.uid, o.controller) for o in meta.owner_references] == [
        ("Node", "a", a.metadata.uid, True)
    ]
    env.loop.close()


def test_nodes_can_be_named_instead_of_selected(tmp_path: Path) -> None:
    text = INVENTORY.replace("  nodeSelector:\n    matchLabels: {gpu: h100}\n", "  nodes: [b, c]\n")
    env = Env(node("a", gpu="h100"), node("b"), node("c"), inventory(tmp_path, text))
    assert sorted(s.spec.node_name or "" for s in env.slices()) == ["b", "c"]
    env.loop.close()


def test_many_devices_are_split_over_the_slices_of_one_pool(tmp_path: Path) -> None:
    text = INVENTORY.replace("count: 2", "count: 200")
    env = Env(node("a", gpu="h100"), inventory(tmp_path, text))
    slices = sorted(env.slices("a"), key=lambda s: len(s.spec.devices), reverse=True)
    assert [len(s.spec.devices) for s in slices] == [128, 73]
    assert {s.spec.pool.resource_slice_count for s in slices} == {2}
    env.loop.close()


def test_nodes_that_come_change_and_go_gain_and_lose_their_slices(tmp_path: Path) -> None:
    env = Env(inventory(tmp_path))
    assert env.slices() == []
    env.run(env.cluster.create(node("a", gpu="h100")))
    assert len(env.slices("a")) == 1
    relabelled = env.get("Node", "a")
    meta = relabelled.metadata.model_copy(update={"labels": {"gpu": "none"}})
    env.run(env.cluster.update(relabelled.model_copy(update={"metadata": meta})))
    assert env.slices("a") == []
    env.run(env.cluster.create(node("b", gpu="h100")))
    assert len(env.slices("b")) == 1
    env.run(env.cluster.delete("Node", "b"))
    assert env.slices() == []
    env.loop.close()


def test_a_changed_inventory_publishes_the_next_generation(tmp_path: Path) -> None:
    env = Env(node("a", gpu="h100"), inventory(tmp_path))
    (before,) = env.slices("a")
    current = env.get("DeviceInventory", "h100")
    spec = current.spec.model_copy(deep=True)  # the stored object is read-only
    spec.devices[0].count = 3
    env.run(env.cluster.update(current.model_copy(update={"spec": spec})))
    (after,) = env.slices("a")
    assert after.metadata.uid != before.metadata.uid and before.spec.pool.generation == 1
    assert after.spec.pool.generation == 2
    assert [d.name for d in after.spec.devices] == ["gpu-0", "gpu-1", "gpu-2", "nic"]
    env.loop.close()


def test_slices_written_by_hand_are_left_alone(tmp_path: Path) -> None:
    manual = ResourceSlice.model_validate(
        {
            "metadata": {"name": "manual"},
            "spec": {
                "driver": "gpu.example.com",
                "nodeName": "a",
                "pool": {"name": "manual", "generation": 1, "resourceSliceCount": 1},
            },
        }
    )
    env = Env(node("a", gpu="none"), manual, inventory(tmp_path))
    assert [s.metadata.name for s in env.slices("a")] == ["manual"]
    env.loop.close()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ("  nodeSelector:\n    matchLabels: {gpu: h100}\n", ""),
            "spec: Required value: exactly one of `nodes` or `nodeSelector` is required",
        ),
        (
            ("count: 2", "count: 0"),
            "spec.devices[0].count: Invalid value: 0: must be greater than zero",
        ),
        (
            ("  - name: nic\n", "  - name: gpu-1\n"),
            'spec.devices[1]: Duplicate value: "gpu-1"',
        ),
        (
            ("      model: H100", "      bad/name/x: H100"),
            'spec.devices[0].attributes: Invalid value: "bad/name/x": must not contain more '
            "than one slash",
        ),
        (
            ("{version: 1.2.3}", "{version: v1}"),
            'spec.devices[0].attributes[driverVersion].version: Invalid value: "v1": must be a '
            "string compatible with semver.org spec 2.0.0",
        ),
        (
            ("indexAttribute: index", "indexAttribute: cores"),
            'spec.devices[0].indexAttribute: Invalid value: "cores": is also set in `attributes`',
        ),
    ],
)
def test_a_bad_inventory_is_refused_naming_file_and_field(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    text = INVENTORY.replace(*change)
    assert text != INVENTORY
    loaded = load_text(tmp_path, text, name="devices.yaml")
    cluster = MemoryCluster(dra_kind_registry(), VirtualClock())
    with pytest.raises(ManifestError) as caught:
        asyncio.run(create_objects(cluster, loaded.objects, loaded.origins))
    assert str(caught.value) == (
        f"{tmp_path / 'devices.yaml'}: document 1: "
        f'DeviceInventory.simulation.kubesched.io "h100" is invalid: {message}'
    )
    assert isinstance(caught.value.__cause__, AdmissionError)


def test_an_attribute_of_no_known_type_is_refused_when_read(tmp_path: Path) -> None:
    text = INVENTORY.replace("model: H100", "model: [H100]")
    with pytest.raises(ManifestError) as caught:
        load_text(tmp_path, text, name="devices.yaml")
    assert str(caught.value) == (
        f"{tmp_path / 'devices.yaml'}: document 1: spec.devices[0].attributes.model: "
        "expected a bool, an int, a string or one of {int: ...}, {bool: ...}, {string: ...}, "
        '{version: ...}, got ["H100"]'
    )
