"""Fixtures shared by the memory-cluster tests."""

from __future__ import annotations

import pytest

from kubesched.clock import VirtualClock
from kubesched.cluster.memory import MemoryCluster, default_kinds


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()


@pytest.fixture
def cluster(clock: VirtualClock) -> MemoryCluster:
    return MemoryCluster(default_kinds(), clock, uid_seed=7)
