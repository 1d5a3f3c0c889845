"""Connection setup mistakes as one line: what is wrong and what to do.

kubernetes_asyncio reports a missing kubeconfig, an unknown context, a malformed file or a
missing certificate as a ConfigException, a YAML error or even a TypeError, with texts
like "Expected key current-context in kube-config". `kubesched run` reads the kubeconfig
itself first for the mistakes it can name, and turns what the library raises into
`ConnectionSetupError`, which the command prints as one line (exit 2).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from kubesched._errors import KubeschedError

__all__ = [
    "ConnectionSetupError",
    "check_in_cluster",
    "check_kubeconfig",
    "default_kubeconfig",
    "explain_config_error",
]

_DEFAULT = "~/.kube/config"
_FIX = "pass --kubeconfig FILE, set KUBECONFIG, or use --in-cluster inside a pod"


class ConnectionSetupError(KubeschedError):
    """kubesched cannot connect as configured (no API request was made)."""


def default_kubeconfig() -> str:
    """The kubeconfig client-go reads when none is given: the first of $KUBECONFIG, else
    ~/.kube/config."""
    listed = [p for p in os.environ.get("KUBECONFIG", "").split(os.pathsep) if p]
    return listed[0] if listed else _DEFAULT


def check_kubeconfig(path: str | None, context: str | None) -> dict[str, Any]:
    """The kubeconfig at `path` (None: the default one) read as a mapping, after checking
    that it exists, parses, and has the context asked for (or a current one)."""
    shown = path or default_kubeconfig()
    file = Path(shown).expanduser()
    if not file.is_file():
        if path is None:
            raise ConnectionSetupError(
                f"no kubeconfig: {shown} does not exist and kubesched is not running in a pod; "
                + _FIX
            )
        raise ConnectionSetupError(f"kubeconfig {shown} does not exist; " + _FIX)
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConnectionSetupError(
            f"kubeconfig {shown} is not valid YAML{where}: {problem}"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConnectionSetupError(f"kubeconfig {shown} cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise ConnectionSetupError(
            f"kubeconfig {shown} is not a kubeconfig: expected a mapping with clusters, "
            f"contexts, users and current-context, found {type(data).__name__}"
        )
    contexts = [
        c.get("name") for c in data.get("contexts") or [] if isinstance(c, dict) and c.get("name")
    ]
    names = ", ".join(map(str, contexts)) or "none"
    if context is not None and context not in contexts:
        raise ConnectionSetupError(
            f'kubeconfig {shown} has no context "{context}" (contexts: {names}); '
            "pass --context with one of them"
        )
    if context is None and not data.get("current-context"):
        raise ConnectionSetupError(
            f"kubeconfig {shown} sets no current-context; pass --context NAME (contexts: {names})"
        )
    return data


def check_in_cluster() -> None:
    """Running in a pod: the service host and port the kubelet sets are there."""
    missing = [
        v for v in ("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT") if not os.environ.get(v)
    ]
    if missing:
        raise ConnectionSetupError(
            f"--in-cluster: not running in a pod ({' and '.join(missing)} unset); run "
            "kubesched in a pod, or pass --kubeconfig FILE"
        )


def explain_config_error(exc: BaseException, source: str) -> ConnectionSetupError:
    """What kubernetes_asyncio raised while loading `source` (a kubeconfig path or
    "in-cluster"), as one line."""
    text = " ".join(str(exc).split())
    if text.startswith("File does not exists: "):  # sic, kubernetes_asyncio's text
        missing = text.removeprefix("File does not exists: ")
        return ConnectionSetupError(
            f"kubeconfig {source} names {missing}, which does not exist (a certificate-"
            "authority, client-certificate, client-key or tokenFile); fix the path or "
            "embed the data (certificate-authority-data ...)"
        )
    if source == "in-cluster":
        return ConnectionSetupError(
            f"--in-cluster: cannot use the pod's service account: {text}; run kubesched in "
            "a pod with a service account token mounted, or pass --kubeconfig FILE"
        )
    return ConnectionSetupError(f"kubeconfig {source}: {text}")
