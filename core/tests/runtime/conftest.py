"""A Framework built from in-test plugin classes, with a recording event recorder."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from kubesched.clock import VirtualClock
from kubesched.config import ResolvedProfile
from kubesched.framework import Plugin, Snapshot
from kubesched.runtime import Framework


class RecordingRecorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, str]] = []

    def event(
        self,
        obj: Any,
        event_type: str,
        reason: str,
        action: str,
        message: str,
        related: Any = None,
    ) -> None:
        self.events.append((event_type, reason, message))


FrameworkFactory = Callable[..., Framework]


@pytest.fixture
def make_framework() -> FrameworkFactory:
    def build(
        points: Mapping[str, Sequence[type[Plugin]]],
        weights: Mapping[str, int] | None = None,
        snapshot: Snapshot | None = None,
    ) -> Framework:
        classes: dict[str, type[Plugin]] = {}
        names: dict[str, list[str]] = {}
        for point, plugins in points.items():
            names[point] = [p.name for p in plugins]
            for p in plugins:
                classes[p.name] = p
        spec = ResolvedProfile("test-scheduler", names, dict(weights or {}), {})
        return Framework(
            spec,
            classes,
            cluster=None,
            clock=VirtualClock(),
            snapshot=snapshot or Snapshot(),
            event_recorder=RecordingRecorder(),
        )

    return build
