"""Program hooks: how a package extends kubesched itself, beside its scheduling plugins.

kubesched uses pluggy, as pytest does. A package lists a module (or object) of hook
implementations under the ``kubesched`` entry point group::

    [project.entry-points.kubesched]
    mypackage = "mypackage.hooks"

and marks each implementation with `hookimpl`, naming its function after the spec here
(pluggy checks the name and the argument names when the module is registered; an
implementation may take fewer arguments than the spec)::

    from kubesched.hookspecs import hookimpl

    @hookimpl
    def kubesched_register_kinds(registry: KindRegistry) -> None:
        registry.register(MY_KIND_INFO)

These hooks extend the program, not a scheduling cycle: API kinds for the manifest loader
and the stores, controllers for the embedded cluster, observers of scheduling outcomes,
sections of the simulation report. Extension points (Filter, Score ...) are not hooks:
their order and weights come from the profile, and the framework calls them directly.

Every hook is called with keyword arguments only. A hook returning a value is called on
every implementation and its caller gets the list of their results (`None`s left out);
the order between implementations is not part of the contract.

This module sits beside `kubesched.framework` in the layers: it imports only
`kubesched.api` and, for typing, `kubesched.cluster`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

import pluggy

if TYPE_CHECKING:
    from kubesched.api import KindRegistry, Pod
    from kubesched.cluster import Cluster, Controller

__all__ = [
    "PROJECT",
    "PodResultView",
    "ReportSection",
    "SimulationResultView",
    "hookimpl",
    "hookspec",
    "kubesched_attempt_failed",
    "kubesched_cluster_controllers",
    "kubesched_pod_scheduled",
    "kubesched_register_kinds",
    "kubesched_report_sections",
]

PROJECT: Final = "kubesched"
"""The pluggy project name, which is also the entry point group hook modules are listed in."""

hookspec: Final = pluggy.HookspecMarker(PROJECT)
"""Marks the specifications below (for kubesched itself)."""

hookimpl: Final = pluggy.HookimplMarker(PROJECT)
"""Marks a hook implementation in a package's hook module."""


# -- the types the hooks pass and return ----------------------------------------------------


class PodResultView(Protocol):
    """What the simulation says about one pod (`kubesched.simulate.PodResult` is one)."""

    @property
    def namespace(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def node(self) -> str | None:
        """The node it is bound to, None when unplaced."""
        ...

    @property
    def status(self) -> str:
        """Bound, Unschedulable, Error, Waiting, Pending, Preempted, Terminating, or
        Succeeded / Failed for a pod that ran and finished (the pod lifecycle)."""
        ...

    @property
    def message(self) -> str:
        """Why the pod is not bound ("" when bound)."""
        ...


class SimulationResultView(Protocol):
    """A finished simulation as the report hook sees it (`kubesched.simulate.SimulationResult`
    is one)."""

    @property
    def pods(self) -> Sequence[PodResultView]:
        """One result per pod the simulation scheduled or found unplaced."""
        ...


@dataclass(frozen=True)
class ReportSection:
    """One section of a simulation report: a table for people, a payload for programs.

    `key` names the section in JSON (`"sections": {key: payload}`), so it must be unique
    in a report and should be a lowerCamelCase word (`podGroups`). `title` heads the table;
    `columns` name its columns and every row has exactly one cell per column. Cells are
    plain text (never rich markup); the last column wraps, the others do not, so put long
    text such as a message last. `caption`, when given, is printed under the table.
    `payload` is any JSON-serializable value (usually a list of objects with the same
    facts as the rows, with numbers as numbers)."""

    key: str
    title: str
    columns: Sequence[str]
    rows: Sequence[Sequence[str]]
    payload: Any = None
    caption: str = ""

    def __post_init__(self) -> None:
        if not self.key:
            raise ValueError(f"report section {self.title!r}: key must not be empty")
        columns = tuple(self.columns)
        rows = tuple(tuple(row) for row in self.rows)
        for i, row in enumerate(rows):
            if len(row) != len(columns):
                raise ValueError(
                    f"report section {self.key!r}: row {i} has {len(row)} cells, "
                    f"expected {len(columns)} (one per column)"
                )
            for cell in row:
                if not isinstance(cell, str):
                    raise TypeError(
                        f"report section {self.key!r}: row {i} has a cell of type "
                        f"{type(cell).__name__}, expected str"
                    )
        try:
            json.dumps(self.payload)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"report section {self.key!r}: payload is not JSON-serializable: {exc}"
            ) from None
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "rows", rows)


# -- kinds and the embedded cluster -----------------------------------------------------------


@hookspec(historic=True)
def kubesched_register_kinds(registry: KindRegistry) -> None:
    """Register API kinds (their models, plural, scope and short names) a package brings.

    Used by packages whose plugins read objects the core does not know (PodGroup, the
    storage kinds, PodDisruptionBudget), so manifests of that kind load, the embedded
    cluster stores and watches them, and cluster events about them reach the queue under
    the kind's name.

    Called when a kind registry is built for a plugin manager (an embedded cluster, the
    manifest loader, `kubesched run`'s informers), before any object is read.

    This hook is **historic**: an implementation registered after the call (a hook object
    registered by a test, say) is called at once with the same registry.

    :param registry: The registry to add `KindInfo`s to with `registry.register(...)`. A
        kind registered twice with different information is an error.
    :return: Nothing.
    """


@hookspec
def kubesched_cluster_controllers(cluster: Cluster) -> list[Controller]:
    """Controllers to run beside the embedded (`memory`) cluster.

    Used by packages whose kinds are kept up to date by a controller on a real cluster
    (the PV binder and provisioner, the PodGroup status controller), so a simulation
    behaves as the real cluster would.

    Called once per embedded cluster, when a simulation or benchmark starts, before the
    scheduler is built; each controller returned is added with `cluster.add_controller`
    and then sees every watch event. Not called by `kubesched run`: a real cluster runs
    its own controllers.

    :param cluster: The embedded cluster the controllers will run in.
    :return: A list of controllers, empty when the package has none for this cluster.
    """
    raise NotImplementedError


# -- scheduling outcomes --------------------------------------------------------------------


@hookspec
def kubesched_pod_scheduled(pod: Pod, node_name: str, profile: str) -> None:
    """A pod was bound to a node.

    Used to observe placements (metrics, progress, exporters) without a plugin in every
    profile.

    Called at the end of a successful binding cycle, after Bind succeeded, the `Scheduled`
    event was recorded and the PostBind plugins ran, on the scheduler's event loop. Keep it
    quick and do not raise: the binding cycle waits for it.

    :param pod: The pod as it was assumed (its `spec.nodeName` set).
    :param node_name: The node it was bound to.
    :param profile: The `schedulerName` of the profile that scheduled it.
    :return: Nothing.
    """


@hookspec
def kubesched_attempt_failed(pod: Pod, profile: str, code: str, message: str) -> None:
    """A scheduling attempt ended without binding the pod.

    Used to observe failed attempts (metrics, progress, exporters): rejections as well as
    errors.

    Called once per failed attempt, in the scheduling cycle (no node fits, a Reserve or
    Permit rejection) or at the end of a failed binding cycle, after the pod went back to
    the queue and its `FailedScheduling` event was recorded, on the scheduler's event loop.
    Keep it quick and do not raise.

    :param pod: The pod of the attempt.
    :param profile: The `schedulerName` of the profile that tried it.
    :param code: The failing status's code name (`Unschedulable`,
        `UnschedulableAndUnresolvable`, `Pending` or `Error`).
    :param message: The PodScheduled condition's message, as the pod's status shows it.
    :return: Nothing.
    """


# -- the simulation report ------------------------------------------------------------------


@hookspec
def kubesched_report_sections(
    cluster: Cluster, result: SimulationResultView
) -> list[ReportSection]:
    """Sections to add to a simulation's report, beside the pods and nodes.

    Used by packages that know things about a run the core does not (gangs, volumes,
    quotas).

    Called once, when a simulation ends (before waiting pods are released), with the
    embedded cluster as it is then. The table output prints each section as its own table
    after the pods, the JSON output puts each payload under `"sections"` by the section's
    key, keys sorted. Keys must be unique across hook modules. Not called by
    `kubesched run`.

    :param cluster: The embedded cluster at the end of the simulation.
    :param result: The pods' outcomes (`kubesched.simulate.SimulationResult`).
    :return: A list of `ReportSection`s, empty when there is nothing to report (so the
        report stays as it was).
    """
    raise NotImplementedError
