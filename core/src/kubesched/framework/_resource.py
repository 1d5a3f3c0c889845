"""Resource: a bundle of integer resource amounts, as NodeInfo aggregates them.

Upstream: pkg/scheduler/framework/types.go (Resource). CPU in millicores, the rest in base
units; extended resources (e.g. `nvidia.com/gpu`, `hugepages-2Mi`) in `scalar`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import final

from kubesched.api import CPU, EPHEMERAL_STORAGE, MEMORY, PODS

__all__ = ["Resource"]


@final
class Resource:
    __slots__ = ("allowed_pod_number", "ephemeral_storage", "memory", "milli_cpu", "scalar")

    def __init__(
        self,
        milli_cpu: int = 0,
        memory: int = 0,
        ephemeral_storage: int = 0,
        allowed_pod_number: int = 0,
        scalar: dict[str, int] | None = None,
    ) -> None:
        self.milli_cpu: int = milli_cpu
        self.memory: int = memory
        self.ephemeral_storage: int = ephemeral_storage
        self.allowed_pod_number: int = allowed_pod_number
        self.scalar: dict[str, int] = scalar if scalar is not None else {}

    @classmethod
    def from_mapping(cls, amounts: Mapping[str, int]) -> Resource:
        r = cls()
        r.add(amounts)
        return r

    def get(self, name: str) -> int:
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pod_number
        return self.scalar.get(name, 0)

    def add(self, amounts: Mapping[str, int], sign: int = 1) -> None:
        for name, value in amounts.items():
            v = sign * value
            if name == CPU:
                self.milli_cpu += v
            elif name == MEMORY:
                self.memory += v
            elif name == EPHEMERAL_STORAGE:
                self.ephemeral_storage += v
            elif name == PODS:
                self.allowed_pod_number += v
            else:
                self.scalar[name] = self.scalar.get(name, 0) + v

    def add_resource(self, other: Resource, sign: int = 1) -> None:
        self.milli_cpu += sign * other.milli_cpu
        self.memory += sign * other.memory
        self.ephemeral_storage += sign * other.ephemeral_storage
        self.allowed_pod_number += sign * other.allowed_pod_number
        for name, value in other.scalar.items():
            self.scalar[name] = self.scalar.get(name, 0) + sign * value

    def items(self) -> Iterator[tuple[str, int]]:
        """Every named amount, the four basic ones first (zeros included)."""
        yield CPU, self.milli_cpu
        yield MEMORY, self.memory
        yield EPHEMERAL_STORAGE, self.ephemeral_storage
        yield PODS, self.allowed_pod_number
        yield from self.scalar.items()

    def clone(self) -> Resource:
        return Resource(
            self.milli_cpu,
            self.memory,
            self.ephemeral_storage,
            self.allowed_pod_number,
            dict(self.scalar),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Resource):
            return NotImplemented
        return dict(self.items()) == dict(other.items())

    def __repr__(self) -> str:
        parts = ", ".join(f"{k}={v}" for k, v in self.items() if v)
        return f"Resource({parts})"
