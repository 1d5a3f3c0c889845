"""Program-level hooks of kubesched-builtin (pluggy, entry point group `kubesched`).

Registers the PodDisruptionBudget kind, so PDB manifests load and the cluster stores them
(DefaultPreemption reads them), and contributes the embedded cluster's disruption
controller, which keeps their `status.disruptionsAllowed` up to date.
"""

from __future__ import annotations

from kubesched.api import KindRegistry
from kubesched.cluster import Cluster, Controller
from kubesched.hookspecs import hookimpl
from kubesched_builtin.kinds import PDB_KIND, DisruptionController

__all__ = ["kubesched_cluster_controllers", "kubesched_register_kinds"]


@hookimpl
def kubesched_register_kinds(registry: KindRegistry) -> None:
    registry.register(PDB_KIND)


@hookimpl
def kubesched_cluster_controllers(cluster: Cluster) -> list[Controller]:
    return [DisruptionController()]
