"""NodeAffinityArgs: the plugin's `pluginConfig` args (kubescheduler.config.k8s.io/v1).

Upstream: pkg/scheduler/apis/config/types_pluginargs.go (NodeAffinityArgs) and
validation/validation_pluginargs.go (ValidateNodeAffinityArgs). `addedAffinity` applies to
every pod of the profile: its required terms are ANDed with the pod's own in Filter, and its
preferred terms add to the pod's in Score. Both parts must parse; errors read as upstream's,
e.g. `addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
.matchExpressions[0].key: Invalid value: ...`.
"""

from __future__ import annotations

from typing import Final

from kubesched.api import NodeAffinity
from kubesched.api.field import ErrorList, new_path
from kubesched.framework import PluginArgs
from kubesched_builtin.nodeaffinity.selector import NodeSelectorMatcher, PreferredTerms

__all__ = ["NodeAffinityArgs"]

_ADDED: Final = "addedAffinity"


class NodeAffinityArgs(PluginArgs):
    """Args of NodeAffinity."""

    added_affinity: NodeAffinity | None = None
    """Node affinity the scheduler adds to every pod it schedules with this profile."""

    def validation_errors(self) -> ErrorList:
        """Every parse error of `addedAffinity`."""
        affinity = self.added_affinity
        if affinity is None:
            return []
        errs: ErrorList = []
        required = affinity.required_during_scheduling_ignored_during_execution
        if required is not None:
            path = new_path(_ADDED, "requiredDuringSchedulingIgnoredDuringExecution")
            errs += NodeSelectorMatcher.parse(required, str(path)).errors
        preferred = affinity.preferred_during_scheduling_ignored_during_execution
        if preferred:
            path = new_path(_ADDED, "preferredDuringSchedulingIgnoredDuringExecution")
            errs += PreferredTerms.parse(preferred, str(path)).errors
        return errs
