"""Victims other plugins of the profile protect (`kubesched.framework.PreemptionVictimGuard`).

Not upstream: kube-scheduler v1.34 has no such hook (KEP-5710, workload-aware preemption,
is its future). kubesched lets any plugin of the profile keep some pods out of a
preemption, whatever their priority, so that a gang plugin can keep a running group at its
quorum without DefaultPreemption knowing what a group is. The model is Volcano's gang
plugin (pkg/scheduler/plugins/gang/gang.go, `preemptableFn`): a job's tasks are victims
only while the job stays at or above `minAvailable`, counted down victim by victim.

The guards are asked once per node of the dry run, with the node's potential victims least
important first; a pod any guard protects stays on the node. Where the preemptor would fit
only by evicting protected pods, the node is no candidate and its status gives the guards'
reasons. Once the evaluator has picked the node, every guard is told the victims being
evicted there: evictions run in a task, and the next cycle (another preemptor's) may still
see them in the cluster. With no guard in the profile nothing here runs: the search is
upstream's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kubesched.api import Pod
from kubesched.framework import NodeInfo, Plugin, PodInfo, PreemptionVictimGuard

__all__ = ["announce_victims", "find_guards", "protected_victims"]


def find_guards(plugins: Mapping[str, Plugin]) -> list[PreemptionVictimGuard]:
    """The profile's plugins that guard victims, in the profile's order."""
    return [p for p in plugins.values() if isinstance(p, PreemptionVictimGuard)]


def protected_victims(
    guards: Sequence[PreemptionVictimGuard],
    preemptor: Pod,
    node_info: NodeInfo,
    victims: Sequence[PodInfo],
) -> dict[str, str]:
    """Pod UID -> reason for the victims some guard protects. Each guard is given the
    victims the guards before it left unprotected, so that each may count on all of them
    being evicted."""
    protected: dict[str, str] = {}
    remaining = list(victims)
    for guard in guards:
        if not remaining:
            break
        found = guard.protected_victims(preemptor, node_info, remaining)
        if not found:
            continue
        protected.update(found)
        remaining = [v for v in remaining if v.pod.metadata.uid not in protected]
    return protected


def announce_victims(
    guards: Sequence[PreemptionVictimGuard], preemptor: Pod, node_name: str, victims: Sequence[Pod]
) -> None:
    """Tell every guard which victims are being evicted from `node_name`."""
    if not victims:
        return
    for guard in guards:
        guard.victims_chosen(preemptor, node_name, victims)
