"""`kubesched snapshot`: a live cluster as manifests `kubesched simulate` reads (needs
`pip install 'kubesched[kube]'`)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from kubesched._install import extra_hint
from kubesched.api import KindInfo, KindRegistry
from kubesched.cli._console import output_console
from kubesched.cluster.memory import default_kinds
from kubesched.runtime import make_plugin_manager
from kubesched.simulate._snapshot import POD_MODES, PodsMode, Snapshot, make_snapshot
from kubesched.workloads import register as register_workloads

__all__ = ["snapshot_command", "snapshot_kinds"]

EXIT_MISSING_EXTRA = 2
_EXTRA_MODULES = {"kubernetes_asyncio", "aiohttp"}


def snapshot_kinds() -> KindRegistry:
    """The kinds a snapshot lists: those `simulate` reads (the core kinds, the workloads,
    and every kind an installed package registers)."""
    pm = make_plugin_manager()
    register_workloads(pm)
    return default_kinds(pm)


@click.command("snapshot")
@click.argument("directory", type=click.Path(file_okay=False, writable=True))
@click.option(
    "--kubeconfig",
    type=click.Path(dir_okay=False),
    help="The kubeconfig to connect with. Default: $KUBECONFIG, else ~/.kube/config.",
)
@click.option(
    "--context", metavar="NAME", help="The kubeconfig context to use. Default: its current context."
)
@click.option(
    "--pods",
    "pods",
    type=click.Choice(POD_MODES),
    default="keep",
    show_default=True,
    help="keep: every pod as it is (bound pods stay on their nodes); drop-bound: leave bound "
    "pods out (the workloads make theirs again in simulate); unbind: make every pod pending "
    "again, so simulate places the whole cluster. Static pods' mirrors and finished pods are "
    "kept as they are in every mode.",
)
@click.option(
    "--anonymize",
    is_flag=True,
    help="Rename nodes, namespaces, objects and label values by a stable hash (selectors, "
    "owners and references renamed alike, so placements stay the same) and drop annotations "
    "and addresses.",
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Write into a DIRECTORY that is not empty: the files of an earlier snapshot are "
    "replaced (those of kinds the cluster no longer has removed); other files are left.",
)
@click.option(
    "--salt",
    default="",
    metavar="TEXT",
    help="With --anonymize: a secret mixed into the hash, so names cannot be guessed back.",
)
def snapshot_command(
    directory: str,
    kubeconfig: str | None,
    context: str | None,
    pods: PodsMode,
    anonymize: bool,
    overwrite: bool,
    salt: str,
) -> None:
    """Write the cluster's nodes, pods, namespaces, PriorityClasses, workloads and every
    kind an installed package registers (storage, PodGroups ...) into DIRECTORY, one
    `kubectl get -o yaml` file per kind, for `kubesched simulate DIRECTORY`."""
    try:
        from kubesched.cluster.kube import ApiError, Transport, list_raw
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in _EXTRA_MODULES:
            click.echo(
                f"error: kubesched snapshot needs the kube extra ({exc.name} is not "
                "installed): " + extra_hint("kube"),
                err=True,
            )
            sys.exit(EXIT_MISSING_EXTRA)
        raise
    folder = Path(directory)
    if folder.is_dir() and any(folder.iterdir()) and not overwrite:
        raise click.BadParameter(
            f"{directory} is not empty: give a new or empty folder, or --overwrite to replace "
            "an earlier snapshot there",
            param_hint="DIRECTORY",
        )
    kinds = list(snapshot_kinds())
    err = output_console(stderr=True)

    async def listing() -> tuple[list[tuple[KindInfo, list[dict[str, Any]]]], list[str]]:
        transport = await Transport.connect(kubeconfig, context=context)
        listed: list[tuple[KindInfo, list[dict[str, Any]]]] = []
        not_served: list[str] = []
        try:
            for info in kinds:
                try:
                    listed.append((info, await list_raw(transport, info)))
                except ApiError as error:
                    if error.code != 404:
                        raise
                    not_served.append(f"{info.plural}.{info.group}" if info.group else info.plural)
        finally:
            await transport.close()
        return listed, not_served

    listed, not_served = asyncio.run(listing())
    snapshot = make_snapshot(listed, pods=pods, anonymize=anonymize, salt=salt)
    snapshot.write(directory, replacing=kinds)
    _report(snapshot, directory, not_served, err)


def _report(snapshot: Snapshot, directory: str, not_served: list[str], err: Any) -> None:
    """One line of what was written, one of what was left out, one of the kinds the API
    server does not serve (on stderr)."""
    written = ", ".join(f"{n:,} {kind}" for kind, n in snapshot.counts.items()) or "no objects"
    err.print(
        f"wrote {escape(written)} to {escape(directory)} "
        f"({len(snapshot.files)} file{'s' if len(snapshot.files) != 1 else ''})",
        highlight=False,
    )
    left = [f"{n:,} {why}" for why, n in snapshot.dropped.items()]
    if snapshot.unbound:
        left.append(f"{snapshot.unbound:,} bound pods made pending")
    if left:
        err.print(f"[dim]{escape('; '.join(left))}[/]", highlight=False)
    if not_served:
        err.print(
            f"[dim]not served by the API server (left out): {escape(', '.join(not_served))}[/]",
            highlight=False,
        )
