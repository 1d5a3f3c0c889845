"""Running a sweep's tasks on a Dask cluster (`kubesched sweep --scheduler ADDRESS`), for
sweeps that outgrow one machine: the optional `kubesched[dask]` extra.

Dask rather than Ray: dask.distributed is pure Python wheels for every platform and Python
kubesched supports, connects to a scheduler by its address alone, and its workers run
plain functions on plain data, which is all a run needs; Ray's wheels are large, binary,
and late for new Pythons, for a runtime (actors, an object store) a sweep does not use.

The workers need the same kubesched and plugin packages as this machine (a run's plugins
are loaded where it runs); the input files travel with the tasks.
"""

from __future__ import annotations

from collections.abc import Iterator

from kubesched._errors import KubeschedError
from kubesched.sweep._task import Task, TaskResult, run_task

__all__ = ["DaskError", "run_on_dask"]

_CONNECT_TIMEOUT = "30s"


class DaskError(KubeschedError):
    """`--scheduler` without dask.distributed installed, or a scheduler not reached."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail

    def __str__(self) -> str:
        return self.detail


def run_on_dask(tasks: list[Task], address: str) -> Iterator[TaskResult]:
    """Each task on the workers of the Dask scheduler at `address`, results as they come."""
    try:
        from distributed import Client, as_completed  # type: ignore[import-not-found, unused-ignore]
    except ImportError as error:
        raise DaskError(
            "--scheduler needs dask.distributed: pip install 'kubesched[dask]' "
            "(on the workers too, with the same plugins)"
        ) from error
    try:
        client = Client(address, set_as_default=False, timeout=_CONNECT_TIMEOUT)
    except (OSError, ValueError) as error:
        raise DaskError(f"Dask scheduler {address!r}: cannot connect: {error}") from error
    with client:
        # pure=False: a task is not shared with an equal one another client submitted
        futures = client.map(run_task, tasks, pure=False)
        try:
            for future in as_completed(futures, loop=client.loop):
                yield future.result()
        finally:
            client.cancel(futures)
