"""What a workload is: its sizes, its objects, the profile it runs with, what it needs.

upstream: test/integration/scheduler_perf/ (a workload there is a list of ops; the last
createPods op has `collectMetrics: true` and is the measured phase). Here a workload is the
objects those ops would create, split into the phases the runner needs, plus what the
runner checks at the end (gangs bound whole, claims bound).
"""

from __future__ import annotations

import importlib.metadata
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kubesched.api import K8sModel, Node, Pod
from kubesched_bench.errors import MissingPackageError

__all__ = [
    "Gang",
    "Requirement",
    "Size",
    "Workload",
    "WorkloadFactory",
    "WorkloadSpec",
    "index_width",
    "node_names",
]


@dataclass(frozen=True)
class Size:
    """Node and pod counts of one workload instance (upstream's params); `gang_size` is
    the pods per gang of a gang workload (0 for the others)."""

    nodes: int
    init_pods: int
    pods: int
    gang_size: int = 0

    def label(self) -> str:
        """Upstream's sub-test name, e.g. `500Nodes/500InitPods/1000Pods` (gang workloads
        add `/10PodsPerGang`)."""
        label = f"{self.nodes}Nodes/{self.init_pods}InitPods/{self.pods}Pods"
        return f"{label}/{self.gang_size}PodsPerGang" if self.gang_size else label


@dataclass(frozen=True)
class Gang:
    """A PodGroup of the measured phase: its `namespace/name`, its `minMember` and the
    `namespace/name` of every member, in creation order."""

    key: str
    min_member: int
    members: tuple[str, ...]


@dataclass
class Workload:
    """The objects of one workload instance, in creation order per phase.

    `setup` holds objects created before the nodes (namespaces, priority classes, storage
    classes, the init pods' volumes ...); `init_pods` are created and scheduled before
    measuring starts; `measured_setup` objects are created when measuring starts, just
    before `pods` (the measured pods' claims and volumes, as upstream's createPods op
    creates them with each pod), so their creation is measured too.

    `config` is a `KubeSchedulerConfiguration` document (None: the default profile) and
    `profile` says in a few words what it is. The runner fails the run unless every gang
    of `gangs` and every claim of `claims` (`namespace/name`) ends bound.
    """

    name: str
    size: Size
    nodes: list[Node]
    init_pods: list[Pod]
    pods: list[Pod]
    setup: list[K8sModel] = field(default_factory=list)
    measured_setup: list[K8sModel] = field(default_factory=list)
    config: Mapping[str, Any] | None = None
    profile: str = "default"
    gangs: list[Gang] = field(default_factory=list)
    claims: list[str] = field(default_factory=list)


WorkloadFactory = Callable[[Size, random.Random], Workload]
"""factory(size, rng) -> Workload; `rng` is the only source of randomness a factory may use."""


@dataclass(frozen=True)
class Requirement:
    """A distribution a workload needs (its kinds, plugins or controllers)."""

    distribution: str
    """The name pip knows it by, e.g. `kubesched-coscheduling`."""
    source: str
    """Its folder in this repository, e.g. `./plugins-coscheduling`."""
    provides: str
    """What the workload uses from it, for the error message."""

    def installed(self) -> bool:
        try:
            importlib.metadata.distribution(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return False
        return True


@dataclass(frozen=True)
class WorkloadSpec:
    """A named workload: its factory, the sizes upstream runs it at, what it needs."""

    name: str
    upstream: str
    description: str
    factory: WorkloadFactory
    sizes: tuple[Size, ...]
    requires: tuple[Requirement, ...] = ()

    @property
    def default_size(self) -> Size:
        return self.sizes[0]

    @property
    def has_gangs(self) -> bool:
        return self.default_size.gang_size > 0

    def check_requirements(self) -> None:
        """Raise MissingPackageError naming every required distribution not installed
        and the command that installs it."""
        missing = [r for r in self.requires if not r.installed()]
        if not missing:
            return
        needs = "; ".join(f"{r.distribution} ({r.provides})" for r in missing)
        command = "pip install " + " ".join(f"-e {r.source}" for r in missing)
        raise MissingPackageError(
            f"workload {self.name} needs {needs}, which is not installed; install it from "
            f"the repository root: {command}"
        )

    def build(self, size: Size | None = None, seed: int = 0) -> Workload:
        """The workload's objects at `size` (default: the first upstream size); raises
        MissingPackageError before building when a required package is missing."""
        self.check_requirements()
        return self.factory(size or self.default_size, random.Random(seed))


def index_width(size: Size) -> int:
    """Digits of the zero-padded indices in names, so names sort in creation order."""
    return max(len(str(max(size.nodes, size.init_pods, size.pods, 1))), 5)


def node_names(size: Size) -> list[str]:
    """`scheduler-perf-00000` ..., one per node of `size`."""
    width = index_width(size)
    return [f"scheduler-perf-{i:0{width}d}" for i in range(size.nodes)]
