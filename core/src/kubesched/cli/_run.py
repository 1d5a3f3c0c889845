"""`kubesched run`: schedule pods of a real cluster (needs `pip install 'kubesched[kube]'`)."""

from __future__ import annotations

import logging
import sys

import click

from kubesched._install import extra_hint
from kubesched.cli._feature_gates import feature_gates_option
from kubesched.config import parse_duration

__all__ = ["run_command"]

EXIT_MISSING_EXTRA = 2
_EXTRA_MODULES = {"kubernetes_asyncio", "prometheus_client", "aiohttp"}


def _duration(value: str, param: str) -> float:
    try:
        return parse_duration(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint=param) from exc


@click.command("run")
@click.option(
    "--config",
    "config",
    type=click.Path(exists=True, dir_okay=False),
    help="A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) file: profiles and "
    "their plugins, leaderElection, clientConnection. Default: upstream's defaults (one "
    "profile, default-scheduler, Lease kube-system/kube-scheduler).",
)
@click.option(
    "--kubeconfig",
    type=click.Path(dir_okay=False),
    help="The kubeconfig to connect with. Default: clientConnection.kubeconfig of the "
    "configuration, else the pod's service account when running in a pod (and $KUBECONFIG "
    "is unset), else $KUBECONFIG or ~/.kube/config.",
)
@click.option(
    "--in-cluster",
    is_flag=True,
    help="Connect with the pod's service account (token, CA, KUBERNETES_SERVICE_HOST) even "
    "if $KUBECONFIG or ~/.kube/config exists (not together with --kubeconfig).",
)
@click.option(
    "--context", metavar="NAME", help="The kubeconfig context to use. Default: its current context."
)
@click.option(
    "--bind-address",
    metavar="ADDRESS",
    default="127.0.0.1",
    show_default=True,
    help="Address /metrics, /healthz, /livez and /readyz listen on (plain HTTP). Use 0.0.0.0 "
    "for the kubelet's probes and Prometheus to reach them from outside the pod.",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=10251,
    show_default=True,
    help="Port of those endpoints; 0 turns them off.",
)
@click.option(
    "--leader-elect/--no-leader-elect",
    default=None,
    help="Elect a leader among replicas through a coordination.k8s.io/v1 Lease before "
    "scheduling. Default: leaderElection.leaderElect of the configuration (true).",
)
@click.option(
    "--leader-elect-resource-name",
    metavar="NAME",
    help="The Lease's name. Default: leaderElection.resourceName (kube-scheduler).",
)
@click.option(
    "--leader-elect-resource-namespace",
    metavar="NAMESPACE",
    help="The Lease's namespace. Default: leaderElection.resourceNamespace (kube-system).",
)
@click.option(
    "--identity",
    metavar="ID",
    help="This replica's holder identity in the Lease. Default: <hostname>_<random uuid>.",
)
@click.option(
    "--shutdown-grace-period",
    default="30s",
    show_default=True,
    metavar="DURATION",
    help="On SIGTERM or SIGINT, how long in-flight binding cycles and status writes may take "
    "to finish before they are cancelled.",
)
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="info",
    show_default=True,
    help="Lowest level of the log lines written to stderr.",
)
@click.option(
    "--no-fast-path",
    "no_fast_path",
    is_flag=True,
    help="Filter and Score node by node (the per-node path) instead of on the snapshot's "
    "node columns: the same decisions, slower; for comparison and debugging "
    "(also KUBESCHED_FAST_PATH=0).",
)
@feature_gates_option
def run_command(
    config: str | None,
    kubeconfig: str | None,
    in_cluster: bool,
    context: str | None,
    bind_address: str,
    port: int,
    leader_elect: bool | None,
    leader_elect_resource_name: str | None,
    leader_elect_resource_namespace: str | None,
    identity: str | None,
    shutdown_grace_period: str,
    log_level: str,
    no_fast_path: bool,
) -> None:
    """Schedule the pods of a real cluster whose spec.schedulerName matches a profile, as
    kube-scheduler does: bind them, record PodScheduled conditions and events, elect a
    leader among replicas, serve metrics. Exits 0 on SIGTERM, 1 when the Lease is lost."""
    grace = _duration(shutdown_grace_period, "--shutdown-grace-period")
    try:
        from kubesched.run import RunOptions, run_main
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in _EXTRA_MODULES:
            click.echo(
                f"error: kubesched run needs the kube extra ({exc.name} is not installed): "
                + extra_hint("kube"),
                err=True,
            )
            sys.exit(EXIT_MISSING_EXTRA)
        raise
    logging.basicConfig(
        level=log_level.upper(),
        format="%(asctime)s %(levelname).1s %(name)s] %(message)s",
    )
    options = RunOptions(
        config=config,
        kubeconfig=kubeconfig,
        in_cluster=in_cluster,
        context=context,
        bind_address=bind_address,
        port=port or None,
        leader_elect=leader_elect,
        resource_name=leader_elect_resource_name,
        resource_namespace=leader_elect_resource_namespace,
        identity=identity,
        shutdown_grace_period=grace,
        fast_path=False if no_fast_path else None,
    )
    code = run_main(options)
    if code:
        # SystemExit, not click's Exit: `kubesched.cli.main` runs click with
        # standalone_mode=False, which turns Exit into a return value it drops
        sys.exit(code)
