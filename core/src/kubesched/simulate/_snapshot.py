"""A live cluster's objects as manifests that `kubesched simulate` reads unchanged
(`kubesched snapshot`): what to keep of each object, which pods, and the files.

One file per kind, `<plural>.yaml` (`<plural>.<group>.yaml` outside the core group), in
`kubectl get -o yaml`'s shape (`apiVersion: v1, kind: List, items: [...]`), the items sorted
by namespace and name, so the same cluster gives the same files. Each object is as the API
server sent it but for the fields only a server sets and a create refuses or ignores
(`resourceVersion`, `managedFields`, `selfLink`, `generation`) and the
`kubectl.kubernetes.io/last-applied-configuration` annotation (a second copy of the object).
uids and creationTimestamps are kept: ownerReferences name their owner by uid, and
controllers order pods by age. An object being deleted (deletionTimestamp set) is left out:
it is leaving the cluster.

Pods (`PodsMode`):

- `keep`: every pod as it is; bound pods stay on their nodes, pending ones are scheduled.
- `drop-bound`: pods bound to a node are left out; the workload controllers of `simulate`
  make their own pods again, and the scheduler places everything that is pending.
- `unbind`: every pod, made pending again (nodeName, nominatedNodeName and the status
  cleared): the scheduler places the whole cluster, which answers "what would this
  configuration do with our cluster".

In every mode the mirror pods of static pods (`kubernetes.io/config.mirror`: a kubelet runs
them on its node, no scheduler does) and finished pods (Succeeded, Failed: they hold nothing,
and a Job counts them) are kept as they are.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, get_args

import yaml

from kubesched.api import KindInfo
from kubesched.simulate._anonymize import Anonymizer

__all__ = [
    "POD_MODES",
    "PodsMode",
    "Snapshot",
    "clean_object",
    "make_snapshot",
    "snapshot_file_name",
]

PodsMode = Literal["keep", "drop-bound", "unbind"]
POD_MODES: tuple[PodsMode, ...] = get_args(PodsMode)

_SERVER_FIELDS: Final = ("resourceVersion", "managedFields", "selfLink", "generation")
_LAST_APPLIED: Final = "kubectl.kubernetes.io/last-applied-configuration"
# upstream: pkg/kubelet/types/pod_update.go (ConfigMirrorAnnotationKey)
_MIRROR: Final = "kubernetes.io/config.mirror"


@dataclass
class Snapshot:
    """The files of a snapshot (name → YAML text) and what went into them."""

    files: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    """Resource (`nodes`, `deployments.apps`) → objects written."""
    dropped: dict[str, int] = field(default_factory=dict)
    """Why objects were left out (`being deleted`, `bound pod`) → how many."""
    unbound: int = 0
    """Pods made pending again (`unbind`)."""

    def write(
        self, directory: str | os.PathLike[str], replacing: Iterable[KindInfo] = ()
    ) -> list[Path]:
        """Write the files into `directory` (made when missing); the paths written. The
        files a snapshot of the kinds `replacing` would have written are removed first, so
        a kind the cluster no longer has leaves no file of an earlier snapshot behind."""
        folder = Path(directory)
        folder.mkdir(parents=True, exist_ok=True)
        for info in replacing:
            (folder / snapshot_file_name(info)).unlink(missing_ok=True)
        paths = []
        for name, text in self.files.items():
            path = folder / name
            path.write_text(text, encoding="utf-8")
            paths.append(path)
        return paths


def snapshot_file_name(info: KindInfo) -> str:
    """`pods.yaml`, `deployments.apps.yaml`, `podgroups.scheduling.x-k8s.io.yaml`."""
    return f"{info.plural}.{info.group}.yaml" if info.group else f"{info.plural}.yaml"


def clean_object(raw: Mapping[str, Any]) -> dict[str, Any] | None:
    """The object without the fields only a server sets (see the module); None when it is
    being deleted."""
    obj = dict(raw)
    meta = dict(obj.get("metadata") or {})
    if meta.get("deletionTimestamp"):
        return None
    for name in _SERVER_FIELDS:
        meta.pop(name, None)
    annotations = meta.get("annotations")
    if isinstance(annotations, dict) and _LAST_APPLIED in annotations:
        annotations = {k: v for k, v in annotations.items() if k != _LAST_APPLIED}
        if annotations:
            meta["annotations"] = annotations
        else:
            del meta["annotations"]
    obj["metadata"] = meta
    return obj


def _pod_for_mode(pod: dict[str, Any], mode: PodsMode) -> tuple[dict[str, Any] | None, bool]:
    """The pod as `mode` keeps it (None: left out), and whether it was unbound."""
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    if (
        mode == "keep"
        or not spec.get("nodeName")
        or _MIRROR in annotations
        or status.get("phase") in ("Succeeded", "Failed")
    ):
        return pod, False
    if mode == "drop-bound":
        return None, False
    spec = {k: v for k, v in spec.items() if k != "nodeName"}
    return {**pod, "spec": spec, "status": {"phase": "Pending"}}, True


def _order(obj: Mapping[str, Any]) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def make_snapshot(
    listed: Iterable[tuple[KindInfo, list[dict[str, Any]]]],
    *,
    pods: PodsMode = "keep",
    anonymize: bool = False,
    salt: str = "",
) -> Snapshot:
    """The files of a snapshot from every kind's listed objects (raw JSON, as
    `kubesched.cluster.kube.list_raw` gives them); kinds without objects get no file.
    `anonymize` renames them (`kubesched.simulate._anonymize`), with `salt`."""
    snapshot = Snapshot()
    kept: list[tuple[KindInfo, list[dict[str, Any]]]] = []
    for info, objects in listed:
        chosen = []
        for raw in objects:
            obj = clean_object(raw)
            if obj is None:
                snapshot.dropped["being deleted"] = snapshot.dropped.get("being deleted", 0) + 1
                continue
            if info.kind == "Pod" and info.group == "":
                obj, unbound = _pod_for_mode(obj, pods)
                if obj is None:
                    snapshot.dropped["bound pod"] = snapshot.dropped.get("bound pod", 0) + 1
                    continue
                snapshot.unbound += unbound
            chosen.append(obj)
        kept.append((info, chosen))
    renamer = Anonymizer((o for _, objs in kept for o in objs), salt=salt) if anonymize else None
    for info, objects in kept:
        if not objects:
            continue
        items = sorted(objects, key=_order)
        if renamer is not None:
            items = sorted((renamer.apply(o) for o in items), key=_order)
        document: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "List",
            "metadata": {"resourceVersion": ""},
            "items": items,
        }
        snapshot.files[snapshot_file_name(info)] = yaml.safe_dump(
            document, sort_keys=False, default_flow_style=False, allow_unicode=True
        )
        snapshot.counts[snapshot_file_name(info).removesuffix(".yaml")] = len(items)
    return snapshot
