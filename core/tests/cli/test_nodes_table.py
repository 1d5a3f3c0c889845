"""The simulate report's Nodes table: CPU, memory and every extended resource some node
offers, each as requested / allocatable with a bar."""

from __future__ import annotations

from rich.console import Console

from kubesched.cli._simulate import nodes_table
from kubesched.simulate import SimulationResult
from kubesched.simulate._results import NodeAllocation

GIB = 1024**3


def _render(nodes: list[NodeAllocation]) -> list[str]:
    result = SimulationResult(pods=[], nodes=nodes, virtual_seconds=0.0, seed=0, attempts=0)
    console = Console(width=100, record=True)
    console.print(nodes_table(result))
    return console.export_text().splitlines()


def _node(name: str, alloc: dict[str, int], req: dict[str, int], pods: int) -> NodeAllocation:
    return NodeAllocation(name, {**alloc, "pods": 110}, {**req, "pods": pods}, pods)


def test_cpu_and_memory_only_when_no_node_has_extended_resources() -> None:
    lines = _render([_node("n1", {"cpu": 4000, "memory": 8 * GIB}, {"cpu": 1500}, 2)])
    header = next(line for line in lines if line.startswith("┃"))
    assert [c.strip() for c in header.strip("┃ ").split("┃")] == ["Node", "CPU", "Memory", "Pods"]
    row = next(line for line in lines if "n1" in line)
    assert "1.5/4 ████░░░░░░░░" in row  # 12-wide bar, 1.5 of 4 rounds to 4 cells
    assert "0/8.0Gi ░░░░░░░░░░░░" in row
    assert "2/110" in row


def test_extended_resources_get_a_column_and_absent_ones_a_dash() -> None:
    gpu_node = _node(
        "gpu-a",
        {"cpu": 16000, "memory": 128 * GIB, "nvidia.com/gpu": 4},
        {"cpu": 16000, "nvidia.com/gpu": 2},
        4,
    )
    cpu_node = _node("cpu-1", {"cpu": 16000, "memory": 64 * GIB}, {}, 0)
    lines = _render([cpu_node, gpu_node])
    header = next(line for line in lines if line.startswith("┃"))
    assert "nvidia.com/gpu" in header
    gpu_row = next(line for line in lines if "gpu-a" in line)
    assert "2/4 ████░░░░" in gpu_row  # bars shrink to 8 cells with one extra resource
    cpu_row = next(line for line in lines if "cpu-1" in line)
    cells = [c.strip() for c in cpu_row.strip("│ ").split("│")]
    assert cells[3] == "-"
