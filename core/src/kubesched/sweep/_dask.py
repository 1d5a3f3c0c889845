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

from collections.abc import Iterator, Mapping
from importlib.metadata import distributions

from kubesched._errors import KubeschedError
from kubesched.sweep._task import Bundle, Task, TaskResult, run_task

__all__ = ["DaskError", "package_differences", "packages", "run_on_dask"]

_CONNECT_TIMEOUT = "30s"


class DaskError(KubeschedError):
    """`--scheduler` without dask.distributed installed, or a scheduler not reached."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail

    def __str__(self) -> str:
        return self.detail


def run_on_dask(tasks: list[Task], files: Bundle, address: str) -> Iterator[TaskResult]:
    """Each task on the workers of the Dask scheduler at `address`, with the input files'
    contents (sent to every worker once), results as they come."""
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
        differences = package_differences(packages(), client.run(packages))
        if differences:
            raise DaskError(
                f"Dask scheduler {address!r}: the workers' kubesched packages differ from "
                "this machine's, and a run's result depends on them: " + "; ".join(differences)
            )
        shared = client.scatter(files, broadcast=True)
        # pure=False: a task is not shared with an equal one another client submitted
        futures = client.map(run_task, tasks, files=shared, pure=False)
        try:
            for future in as_completed(futures, loop=client.loop):
                yield future.result()
        finally:
            client.cancel(futures)


def packages() -> dict[str, str]:
    """kubesched and every installed distribution that plugs into it (an entry point in a
    `kubesched` group: plugins, kinds, report sections) → its version."""
    found = {}
    for dist in distributions():
        name = dist.metadata["Name"]
        if name == "kubesched" or any(ep.group.startswith("kubesched") for ep in dist.entry_points):
            found[name.lower().replace("_", "-")] = dist.version
    return dict(sorted(found.items()))


def package_differences(
    here: Mapping[str, str], workers: Mapping[str, Mapping[str, str]]
) -> list[str]:
    """Per worker, each package whose version is not this machine's (or is missing on one
    side): `tcp://10.0.0.5:4321: kubesched-builtin 0.2.0 there, 0.1.0 here`."""
    found = []
    for worker, there in sorted(workers.items()):
        for name in sorted(here.keys() | there.keys()):
            if here.get(name) != there.get(name):
                found.append(
                    f"{worker}: {name} {there.get(name, 'missing')} there, "
                    f"{here.get(name, 'missing')} here"
                )
    return found
