"""Compiled selectors by expression, and selector results by (expression, device).

upstream: staging/src/k8s.io/dynamic-resource-allocation/cel/cache.go (Cache,
GetOrCompile: an LRU of compilation results keyed by the expression). Upstream evaluates
again in every Allocate; here a device's converted `device` value and each expression's
result on it are kept while the device object lives, because the scheduler asks the same
question for the same device on every node and every pod.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field

from kubesched_dra.api import Device
from kubesched_dra.cel._compile import CompilationResult, compile_expression
from kubesched_dra.cel._device import CELDevice
from kubesched_dra.cel._errors import CELRuntimeError

__all__ = ["CELCache"]


@dataclass(slots=True)
class _DeviceRecord:
    device: CELDevice
    results: dict[str, bool | CELRuntimeError] = field(default_factory=dict)
    memo: dict[Hashable, bool] = field(default_factory=dict)


class CELCache:
    """Compile each expression once; evaluate each expression once per device.

    `max_entries` bounds the compiled programs kept (least recently used go first, as
    upstream's cache); results per device live as long as the device object (a
    ResourceSlice's `spec.devices[i]`) does, and never change because the device and the
    expression do not."""

    def __init__(self, max_entries: int = 10) -> None:
        if max_entries < 1:
            raise ValueError(f"CELCache max_entries must be at least 1, got {max_entries}")
        self._max_entries = max_entries
        self._compiled: OrderedDict[str, CompilationResult] = OrderedDict()
        self._devices: dict[tuple[int, str], tuple[weakref.ref[Device], _DeviceRecord]] = {}

    def get_or_compile(self, expression: str) -> CompilationResult:
        """The compilation result of `expression`, compiled on first use."""
        compiled = self._compiled.get(expression)
        if compiled is not None:
            self._compiled.move_to_end(expression)
            return compiled
        compiled = compile_expression(expression)
        self._compiled[expression] = compiled
        if len(self._compiled) > self._max_entries:
            self._compiled.popitem(last=False)
        return compiled

    def _record(self, driver: str, device: Device) -> _DeviceRecord:
        key = (id(device), driver)
        entry = self._devices.get(key)
        if entry is not None and entry[0]() is device:
            return entry[1]
        devices = self._devices

        def forget(_: weakref.ref[Device], key: tuple[int, str] = key) -> None:
            devices.pop(key, None)

        record = _DeviceRecord(CELDevice.from_device(driver, device))
        self._devices[key] = (weakref.ref(device, forget), record)
        return record

    def cel_device(self, driver: str, device: Device) -> CELDevice:
        """`device` (of a slice of `driver`) as selectors see it, converted once."""
        return self._record(driver, device).device

    def memo(self, driver: str, device: Device) -> dict[Hashable, bool]:
        """A dict for what callers derive from this device's selector results (the
        allocator keeps "matches all selectors of class X and request Y" in it); it lives
        as long as the device object, like the results."""
        return self._record(driver, device).memo

    def device_matches(self, compiled: CompilationResult, driver: str, device: Device) -> bool:
        """Whether `compiled` (which must have compiled) is true for `device`; raises
        :class:`CELRuntimeError` for a failed evaluation, every time it is asked."""
        record = self._record(driver, device)
        result = record.results.get(compiled.expression)
        if result is None:
            try:
                result = compiled.device_matches(record.device)
            except CELRuntimeError as error:
                result = error
            record.results[compiled.expression] = result
        if isinstance(result, CELRuntimeError):
            raise result
        return result
