"""Checks of a configuration that need no installed plugins (kube-scheduler's config
validation); what needs them is checked when the configuration is resolved.

Upstream: pkg/scheduler/apis/config/validation/validation.go
(ValidateKubeSchedulerConfiguration) and k8s.io/component-base/config/validation
(leader election, client connection). Texts are upstream's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from kubesched.config._field_errors import duplicate, format_value, invalid, required
from kubesched.config._merge import merge_plugin_set, point_path
from kubesched.config._models import (
    API_VERSION,
    POINT_FIELDS,
    KubeSchedulerConfiguration,
    LeaderElection,
    PluginSet,
    Profile,
    parse_duration,
)

__all__ = ["REMOVED_PLUGINS", "duplicate_scheduler_names", "validate_config"]

REMOVED_PLUGINS: Final[frozenset[str]] = frozenset(
    {"AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits"}
)
"""upstream invalidPluginsByVersion for v1: plugins that may not be named any more."""

_REMOVED_DETAIL: Final = (
    f'was invalid in version "{API_VERSION}"'
    f' (KubeSchedulerConfiguration is version "{API_VERSION}")'
)

Problem = tuple[str, str]


def _percentage(path: str, value: int | None) -> list[Problem]:
    if value is not None and not 0 <= value <= 100:
        return [(path, invalid(value, "not in valid range [0-100]"))]
    return []


def _leader_election(config: LeaderElection) -> list[Problem]:
    # upstream: component-base/config/validation ValidateLeaderElectionConfiguration
    if not config.leader_elect:
        return []
    path = "leaderElection"
    problems: list[Problem] = []
    durations = {
        "leaseDuration": config.lease_duration,
        "renewDeadline": config.renew_deadline,
        "retryPeriod": config.retry_period,
    }
    for name, text in durations.items():
        if parse_duration(text) <= 0:
            problems.append((f"{path}.{name}", invalid(text, "must be greater than zero")))
    if parse_duration(config.lease_duration) <= parse_duration(config.renew_deadline):
        problems.append(
            (
                f"{path}.leaseDuration",
                invalid(config.renew_deadline, "LeaseDuration must be greater than RenewDeadline"),
            )
        )
    for name, value in (
        ("resourceNamespace", config.resource_namespace),
        ("resourceName", config.resource_name),
    ):
        if not value:
            problems.append((f"{path}.{name}", invalid(value, f"{name} is required")))
    # kube-scheduler only supports Lease objects
    if config.resource_lock != "leases":
        problems.append(
            (
                f"{path}.resourceLock",
                invalid(config.resource_lock, 'resourceLock value must be "leases"'),
            )
        )
    return problems


def _removed_plugins(prefix: str, profile: Profile) -> list[Problem]:
    # upstream skips multiPoint here; a removed plugin there is just as dead, so it is checked too
    problems: list[Problem] = []
    for point in POINT_FIELDS:
        for index, plugin in enumerate(profile.plugins.at(point).enabled):
            if plugin.name in REMOVED_PLUGINS:
                path = f"{prefix}.{point_path(point, index)}"
                problems.append((path, invalid(plugin.name, _REMOVED_DETAIL)))
    return problems


def _plugin_config(prefix: str, profile: Profile) -> list[Problem]:
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(profile.plugin_config):
        path = f"{prefix}.pluginConfig[{index}]"
        if entry.name in seen:
            detail = f"already configured by {prefix}.pluginConfig[{seen[entry.name]}]"
            problems.append((path, duplicate(entry.name, detail)))
        else:
            seen[entry.name] = index
        if entry.name in REMOVED_PLUGINS:
            problems.append((path, invalid(entry.name, _REMOVED_DETAIL)))
    return problems


def _profile(index: int, profile: Profile) -> list[Problem]:
    prefix = f"profiles[{index}]"
    problems: list[Problem] = []
    if not profile.scheduler_name:
        problems.append((f"{prefix}.schedulerName", required()))
    problems += _percentage(
        f"{prefix}.percentageOfNodesToScore", profile.percentage_of_nodes_to_score
    )
    problems += _removed_plugins(prefix, profile)
    problems += _plugin_config(prefix, profile)
    return problems


def _queue_sort_key(
    plugins: PluginSet,
) -> tuple[tuple[tuple[str, int | None], ...], tuple[str, ...]]:
    merged = merge_plugin_set(PluginSet(), plugins)
    return tuple((p.name, p.weight) for p in merged.enabled), merged.disabled


def _common_queue_sort(profiles: list[Profile]) -> list[Problem]:
    # upstream validateCommonQueueSort: the explicit queueSort sets must agree, and so must the
    # args of profile 0's queue sort plugin. The expanded result is checked again on resolve.
    problems: list[Problem] = []
    first = profiles[0].plugins.queue_sort
    if len(first.enabled) > 1:
        problems.append(
            (
                "profiles[0].plugins.queueSort.Enabled",
                invalid(len(first.enabled), "only one queue sort plugin can be enabled"),
            )
        )
    name = first.enabled[0].name if first.enabled else None
    args = next((c.args for c in profiles[0].plugin_config if c.name == name), None)
    canon = _queue_sort_key(first)
    for index, profile in enumerate(profiles[1:], start=1):
        current = profile.plugins.queue_sort
        if _queue_sort_key(current) != canon:
            names = [p.name for p in current.enabled]
            problems.append(
                (
                    f"profiles[{index}].plugins.queueSort",
                    invalid(names, "must be the same for all profiles"),
                )
            )
        for j, entry in enumerate(profile.plugin_config):
            if name is not None and entry.name == name and entry.args != args:
                problems.append(
                    (
                        f"profiles[{index}].pluginConfig[{j}].args",
                        invalid(entry.args, "queueSort must be the same for all profiles"),
                    )
                )
    return problems


def duplicate_scheduler_names(names: Iterable[str]) -> list[Problem]:
    """``profiles[i].schedulerName`` for each name an earlier profile already uses (upstream
    validation.go, and profile.go cfgValidator: every profile is its own scheduler name)."""
    problems: list[Problem] = []
    first: dict[str, int] = {}
    for index, name in enumerate(names):
        if name and name in first:
            detail = f"already used by profiles[{first[name]}].schedulerName"
            problems.append((f"profiles[{index}].schedulerName", duplicate(name, detail)))
        first.setdefault(name, index)
    return problems


def validate_config(config: KubeSchedulerConfiguration) -> list[Problem]:
    """Every problem of ``config`` that kube-scheduler's config validation reports, as
    (field path, ``<Type>: <value>: <detail>``) pairs; empty when it is valid."""
    problems: list[Problem] = []
    if config.client_connection.burst < 0:
        problems.append(
            (
                "clientConnection.burst",
                invalid(config.client_connection.burst, "must be non-negative"),
            )
        )
    problems += _leader_election(config.leader_election)
    if config.parallelism <= 0:
        problems.append(
            (
                "parallelism",
                invalid(config.parallelism, "should be an integer value greater than zero"),
            )
        )
    if not config.profiles:
        problems.append(("profiles", required()))
    else:
        duplicates = dict(duplicate_scheduler_names(p.scheduler_name for p in config.profiles))
        for index, profile in enumerate(config.profiles):
            problems += _profile(index, profile)
            path = f"profiles[{index}].schedulerName"
            if path in duplicates:
                problems.append((path, duplicates[path]))
        problems += _common_queue_sort(config.profiles)
    problems += _percentage("percentageOfNodesToScore", config.percentage_of_nodes_to_score)
    if config.pod_initial_backoff_seconds <= 0:
        problems.append(
            (
                "podInitialBackoffSeconds",
                invalid(config.pod_initial_backoff_seconds, "must be greater than 0"),
            )
        )
    if config.pod_max_backoff_seconds < config.pod_initial_backoff_seconds:
        problems.append(
            (
                "podMaxBackoffSeconds",
                invalid(
                    config.pod_max_backoff_seconds,
                    "must be greater than or equal to PodInitialBackoffSeconds",
                ),
            )
        )
    for index, extender in enumerate(config.extenders):
        # kubesched has no HTTP extender client; a plugin does what an extender would
        detail = "scheduler extenders are not supported by kubesched; write a plugin instead"
        value = format_value(extender.get("urlPrefix", ""))
        problems.append((f"extenders[{index}]", f"Unsupported value: {value}: {detail}"))
    return problems
