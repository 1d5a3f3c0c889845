"""DefaultBinder, from upstream defaultbinder/default_binder_test.go."""

from __future__ import annotations

import asyncio

from builtin_helpers import make_pod
from fakes import FakeCluster, fake_handle

from kubesched.framework import Code, CycleState, NoArgs
from kubesched_builtin.defaultbinder import DefaultBinder


def test_bind_calls_the_cluster_and_returns_success() -> None:
    cluster = FakeCluster()
    plugin = DefaultBinder(NoArgs(), fake_handle(cluster))
    status = asyncio.run(plugin.bind(CycleState(), make_pod("foo").obj(), "foohost"))
    assert status is None
    assert cluster.bound == [("default/foo", "foohost")]


class BindRejected(Exception):
    """What a cluster backend raises when it refuses the binding (e.g. a conflict)."""


def test_bind_error_becomes_an_error_status() -> None:
    error = BindRejected('Operation cannot be fulfilled on pods/binding "foo"')
    plugin = DefaultBinder(NoArgs(), fake_handle(FakeCluster(error=error)))
    status = asyncio.run(plugin.bind(CycleState(), make_pod("foo").obj(), "foohost"))
    assert status is not None
    assert status.code is Code.Error
    assert status.error is error
    assert status.message() == str(error)
