"""Building every profile of a resolved configuration: scheduler name → Framework.

Upstream: pkg/scheduler/profile/profile.go (NewMap). This is the one place a configuration
becomes running profiles; the scheduler and every test harness go through it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kubesched.clock import Clock
from kubesched.config import ResolvedConfig, check_profiles
from kubesched.framework import EventRecorder, Plugin, Snapshot
from kubesched.runtime._framework import Framework

__all__ = ["FrameworkFactory", "build_profiles"]

FrameworkFactory = Callable[..., Framework]
"""Builds one profile: called as `Framework(profile, registry, cluster=..., clock=...,
snapshot=..., event_recorder=..., fast_path=...)` is."""


def build_profiles(
    resolved: ResolvedConfig,
    registry: Mapping[str, type[Plugin]],
    *,
    cluster: Any,
    clock: Clock,
    snapshot: Snapshot,
    recorder_factory: Callable[[str], EventRecorder],
    framework: FrameworkFactory = Framework,
    fast_path: bool | None = None,
) -> dict[str, Framework]:
    """One Framework per profile of ``resolved``, keyed by scheduler name, in config order.

    ``registry``: plugin name → class (upstream's Registry). ``recorder_factory`` gives each
    profile the EventRecorder for its scheduler name (upstream's RecorderFactory).
    ``framework`` builds each profile (an instrumented Framework, say: upstream's
    WithMetricsRecorder option); the Framework itself by default. ``fast_path`` reaches
    every profile's handle, so plugins follow the scheduler's switch (None: the
    environment decides).

    Runs upstream NewMap's checks first (`kubesched.config.check_profiles`: distinct scheduler
    names, one QueueSort for all), with the messages `resolve` gives; raises ConfigError.
    """
    check_profiles(resolved)
    profiles: dict[str, Framework] = {}
    for prof in resolved.profiles:
        profiles[prof.scheduler_name] = framework(
            prof,
            registry,
            cluster=cluster,
            clock=clock,
            snapshot=snapshot,
            event_recorder=recorder_factory(prof.scheduler_name),
            fast_path=fast_path,
        )
    return profiles
