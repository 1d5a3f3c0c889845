"""`allocation_maps`: the tile maps compare's and sweep's pages show per run."""

from __future__ import annotations

import re

from kubesched.compare import allocation_maps


def _titles(svg: str) -> list[str]:
    return re.findall(r"<title>([^<]*)</title>", svg)


def test_a_square_per_node_with_the_resource_fullest_first() -> None:
    run = {
        "nodes": [
            {"name": "a", "allocatable": {"cpu": 4, "memory": 8}, "requested": {"cpu": 1}},
            {
                "name": "b",
                "allocatable": {"cpu": 2, "memory": 8},
                "requested": {"cpu": 2, "memory": 4},
            },
            {"name": "c", "allocatable": {"cpu": 4}, "requested": {"cpu": 2}},
        ]
    }
    cpu, memory = allocation_maps(run)
    assert _titles(cpu) == ["b: 100%", "c: 50%", "a: 25%"]
    assert _titles(memory) == ["b: 50%", "a: 0%"]  # c has no memory to request
