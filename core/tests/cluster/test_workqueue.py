"""kubesched.cluster.WorkQueue: the work queue of controllers beside the embedded cluster."""

from __future__ import annotations

import asyncio
import logging

import pytest

from kubesched import ConflictError
from kubesched.cluster import MAX_RETRIES, WorkQueue


class _Synced:
    """A sync that records its keys and raises `errors` (key -> how many times to raise)."""

    def __init__(
        self, errors: dict[str, int] | None = None, error: Exception | None = None
    ) -> None:
        self.keys: list[str] = []
        self.errors = dict(errors or {})
        self.error = error or ValueError("boom")

    async def __call__(self, key: str) -> None:
        self.keys.append(key)
        if self.errors.get(key, 0) > 0:
            self.errors[key] -= 1
            raise self.error


async def _drain(queue: WorkQueue) -> None:
    while queue.busy():
        await asyncio.sleep(0)


def test_keys_synced_once_each_in_the_order_they_came() -> None:
    sync = _Synced()
    queue = WorkQueue("q", sync)
    for key in ["b", "a", "b", "c", "a"]:
        queue.add(key)  # outside the loop: no worker yet
    assert queue.busy()

    asyncio.run(_drain(queue))  # busy() inside the loop starts the worker
    assert sync.keys == ["b", "a", "c"]
    assert not queue.busy()


def test_a_key_added_while_it_syncs_is_synced_again() -> None:
    async def main() -> list[str]:
        seen: list[str] = []
        queue: WorkQueue

        async def sync(key: str) -> None:
            seen.append(key)
            if len(seen) == 1:
                queue.add(key)

        queue = WorkQueue("q", sync)
        queue.add("a")
        await _drain(queue)
        return seen

    assert asyncio.run(main()) == ["a", "a"]


def test_a_failing_sync_is_retried_then_given_up(caplog: pytest.LogCaptureFixture) -> None:
    sync = _Synced({"bad": 99, "flaky": 2})

    async def main() -> None:
        queue = WorkQueue("q", sync)
        queue.add("bad")
        queue.add("flaky")
        await _drain(queue)

    with caplog.at_level(logging.DEBUG, logger="kubesched.cluster"):
        asyncio.run(main())
    assert sync.keys.count("bad") == MAX_RETRIES
    assert sync.keys.count("flaky") == 3
    given_up = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert [r.getMessage() for r in given_up] == ["q: giving up on bad"]


def test_only_retry_on_is_retried() -> None:
    conflicted = _Synced({"a": 1}, ConflictError("Pod", "default/a"))

    async def retried() -> None:
        queue = WorkQueue("q", conflicted, retry_on=(ConflictError,))
        queue.add("a")
        await _drain(queue)

    asyncio.run(retried())
    assert conflicted.keys == ["a", "a"]

    failed = _Synced({"a": 1})

    async def not_retried() -> None:
        queue = WorkQueue("q", failed, retry_on=(ConflictError,))
        queue.add("a")
        await _drain(queue)

    asyncio.run(not_retried())
    assert failed.keys == ["a"]
