"""DynamicResourcesArgs: the plugin's `pluginConfig` args (kubescheduler.config.k8s.io/v1).

upstream v1.34: pkg/scheduler/apis/config/types_pluginargs.go (DynamicResourcesArgs,
DynamicResourcesFilterTimeoutDefault), v1/defaults.go (SetDefaults_DynamicResourcesArgs:
`filterTimeout` defaults to 10s) and validation_pluginargs.go
(ValidateDynamicResourcesArgs: with the DRASchedulerFilterTimeout gate on a negative
timeout is invalid, with it off setting one is forbidden).
"""

from __future__ import annotations

from typing import Final

from kubesched.api import go_duration, parse_go_duration
from kubesched.api.field import ErrorList, Stringer, forbidden, invalid
from kubesched.features import feature_enabled
from kubesched.framework import PluginArgs

__all__ = ["FILTER_TIMEOUT_DEFAULT", "DynamicResourcesArgs"]

FILTER_TIMEOUT_DEFAULT: Final = "10s"
"""upstream DynamicResourcesFilterTimeoutDefault."""


class DynamicResourcesArgs(PluginArgs):
    """Args of DynamicResources."""

    filter_timeout: str | None = None
    """How long Filter may search for devices on one node (a Go duration; 0 turns the
    limit off). Defaults to 10s while the DRASchedulerFilterTimeout gate is on."""

    def set_defaults(self) -> None:
        if self.filter_timeout is None and feature_enabled("DRASchedulerFilterTimeout"):
            self.filter_timeout = FILTER_TIMEOUT_DEFAULT

    def validation_errors(self) -> ErrorList:
        errors: ErrorList = []
        if self.filter_timeout is None:
            return errors
        try:
            seconds = parse_go_duration(self.filter_timeout)
        except ValueError as exc:
            return [invalid("filterTimeout", self.filter_timeout, str(exc))]
        if not feature_enabled("DRASchedulerFilterTimeout"):
            errors.append(
                forbidden("filterTimeout", "DRASchedulingFilterTimeout feature gate is disabled")
            )
        elif seconds < 0:
            # metav1.Duration prints through its String method: unquoted
            errors.append(
                invalid("filterTimeout", Stringer(go_duration(seconds)), "must be zero or positive")
            )
        return errors

    @property
    def filter_timeout_seconds(self) -> float:
        """The timeout in seconds; 0 when there is none."""
        return parse_go_duration(self.filter_timeout) if self.filter_timeout else 0.0
