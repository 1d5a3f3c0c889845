"""Pods for the resource tests, written as manifests are: containers with requests and
limits, sidecars, pod-level resources (upstream's getPodLevelResourcesPod)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubesched.api import Pod
from kubesched.testing import make_pod as make_pod_builder

__all__ = ["container", "make_pod"]


def container(
    requests: dict[str, str] | None = None,
    limits: dict[str, str] | None = None,
    *,
    sidecar: bool = False,
) -> dict[str, Any]:
    """A container; `sidecar` makes it a restartable init container."""
    c: dict[str, Any] = {"resources": {"requests": requests or {}, "limits": limits or {}}}
    if sidecar:
        c["restartPolicy"] = "Always"
    return c


def make_pod(
    pod_resources: dict[str, dict[str, str]] | None = None,
    containers: Sequence[dict[str, Any]] = (),
    inits: Sequence[dict[str, Any]] = (),
    overhead: dict[str, str] | None = None,
) -> Pod:
    """Pod "p" with these containers (kubesched.testing's builder: none are added for it)."""
    pod = make_pod_builder("p").no_containers().spec(initContainers=list(inits))
    for c in containers:
        pod.container(**c)
    if pod_resources is not None:
        pod.spec(resources=pod_resources)
    if overhead is not None:
        pod.overhead(overhead)
    return pod.obj()
