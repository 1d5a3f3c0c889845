"""Time the structured allocator the way DynamicResources' Filter uses it: one claim
(2 devices, a class selector and two request selectors, one with quantity()) allocated
on every node of N nodes with 8 devices each, with the CEL cache cold, then warm (a new
Allocator per pass, as the plugin builds one per pod).

    .tox/dra/bin/python plugins-dra/docs/allocator_bench.py 5000

Figures go to benchmarks/RESULTS.md by way of the lead; this is a measuring script, not
a test.
"""

from __future__ import annotations

import sys
import time

from kubesched.api import Node
from kubesched_dra.api import DeviceClass, ResourceClaim, ResourceSlice
from kubesched_dra.cel import CELCache
from kubesched_dra.structured import Allocator, AllocatorFeatures, SliceIndex

DRIVER = "gpu.example.com"


def _slice(i: int) -> ResourceSlice:
    devices = [
        {
            "name": f"gpu-{g}",
            "attributes": {"model": {"string": "a100" if g < 4 else "h100"}},
            "capacity": {"memory": {"value": "80Gi" if g % 2 else "40Gi"}},
        }
        for g in range(8)
    ]
    spec = {
        "driver": DRIVER,
        "nodeName": f"node-{i}",
        "pool": {"name": f"node-{i}", "resourceSliceCount": 1, "generation": 1},
        "devices": devices,
    }
    return ResourceSlice.model_validate({"metadata": {"name": f"slice-{i}"}, "spec": spec})


def main(nodes_count: int) -> None:
    slices = [_slice(i) for i in range(nodes_count)]
    nodes = [Node.model_validate({"metadata": {"name": f"node-{i}"}}) for i in range(nodes_count)]
    gpu = DeviceClass.model_validate(
        {
            "metadata": {"name": "gpu"},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
        }
    )
    selectors = [
        f'device.attributes["{DRIVER}"].model == "h100"',
        f'device.capacity["{DRIVER}"].memory.compareTo(quantity("60Gi")) >= 0',
    ]
    claim = ResourceClaim.model_validate(
        {
            "metadata": {"name": "claim", "namespace": "default"},
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "gpus",
                            "exactly": {
                                "deviceClassName": "gpu",
                                "count": 2,
                                "selectors": [{"cel": {"expression": e}} for e in selectors],
                            },
                        }
                    ]
                }
            },
        }
    )
    start = time.perf_counter()
    index = SliceIndex(slices)
    print(f"SliceIndex of {nodes_count} slices: {1e3 * (time.perf_counter() - start):.1f} ms")
    cel = CELCache()
    for label in ("cold", "warm", "warm"):
        allocator = Allocator(AllocatorFeatures(), set(), {"gpu": gpu}, index, cel)
        start = time.perf_counter()
        fit = sum(allocator.allocate(node, [claim]) is not None for node in nodes)
        elapsed = time.perf_counter() - start
        print(
            f"{label}: allocate on {nodes_count} nodes {1e3 * elapsed:.0f} ms, "
            f"{1e6 * elapsed / nodes_count:.0f} us/node, {fit} fit"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
