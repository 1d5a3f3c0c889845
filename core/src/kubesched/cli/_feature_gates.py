"""`--feature-gates`: the option `kubesched simulate` and `kubesched run` share."""

from __future__ import annotations

import click

from kubesched.features import set_feature_gates

__all__ = ["feature_gates_option"]


def _apply(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    # Called with None too, so a wrong KUBESCHED_FEATURE_GATES is reported before any work;
    # a FeatureGateError is a KubeschedError: one line and exit 2 from `main`.
    set_feature_gates(value or "")


feature_gates_option = click.option(
    "--feature-gates",
    metavar="NAME=BOOL,...",
    default=None,
    expose_value=False,
    callback=_apply,
    help="Feature gates, as kube-scheduler's --feature-gates sets them (e.g. "
    "SchedulerPopFromBackoffQ=false); they win over $KUBESCHED_FEATURE_GATES gate by gate. "
    "Defaults are v1.34's; docs/fidelity.md lists the gates.",
)
"""The `--feature-gates` option; it sets kubesched.features' table as it is parsed."""
