"""Write kubesched/api/_field_schema.json: the fields each Kubernetes kind kubesched loads
can have, so `kubesched simulate` finds a misspelt field as `kubectl apply` does.

kubesched's models read only what the scheduler needs and ignore the rest, so they cannot
tell a field Kubernetes has (``terminationMessagePath``) from a typo (``resource:``). The
models kubernetes_asyncio generates from the API's OpenAPI document can: each has
``openapi_types`` (attribute -> type) and ``attribute_map`` (attribute -> JSON name).

Run it with an environment that has kubernetes_asyncio (kubesched's ``kube`` extra), from
the repository root::

    python core/tools/generate_field_schema.py           # rewrite the file
    python core/tools/generate_field_schema.py --check   # exit 1 when it is out of date

The file maps ``"<apiVersion>/<kind>"`` to a type, and each type's JSON field names to what
a field holds: ``""`` anything (a scalar, a map or list of scalars, an arbitrary object),
``"T"`` an object of type T, ``"[]T"`` a list of them, ``"{}T"`` a map to them. ``List``
is the wrapper `kubectl get -o yaml` writes (``kind: List`` or ``PodList`` ...), whose
items are checked as objects of their own kinds.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

SCHEMA_PATH: Final = Path(__file__).parent.parent / "src/kubesched/api/_field_schema.json"

KINDS: Final = {
    "v1/Pod": "V1Pod",
    "v1/Node": "V1Node",
    "v1/Namespace": "V1Namespace",
    "v1/PersistentVolume": "V1PersistentVolume",
    "v1/PersistentVolumeClaim": "V1PersistentVolumeClaim",
    "scheduling.k8s.io/v1/PriorityClass": "V1PriorityClass",
    "storage.k8s.io/v1/StorageClass": "V1StorageClass",
    "storage.k8s.io/v1/CSINode": "V1CSINode",
    "storage.k8s.io/v1/CSIDriver": "V1CSIDriver",
    "storage.k8s.io/v1/CSIStorageCapacity": "V1CSIStorageCapacity",
    "storage.k8s.io/v1/VolumeAttachment": "V1VolumeAttachment",
    "policy/v1/PodDisruptionBudget": "V1PodDisruptionBudget",
    "apps/v1/Deployment": "V1Deployment",
    "apps/v1/ReplicaSet": "V1ReplicaSet",
    "apps/v1/StatefulSet": "V1StatefulSet",
    "apps/v1/DaemonSet": "V1DaemonSet",
    "batch/v1/Job": "V1Job",
    "resource.k8s.io/v1/DeviceClass": "V1DeviceClass",
    "resource.k8s.io/v1/ResourceClaim": "ResourceV1ResourceClaim",
    "resource.k8s.io/v1/ResourceClaimTemplate": "V1ResourceClaimTemplate",
    "resource.k8s.io/v1/ResourceSlice": "V1ResourceSlice",
}
LIST: Final = "List"
_LIST_FIELDS: Final = {"apiVersion": "", "kind": "", "items": "", "metadata": "V1ListMeta"}

_LIST_OF: Final = re.compile(r"list\[(.+)\]")
_MAP_OF: Final = re.compile(r"dict\(str, (.+)\)")


def _reference(openapi_type: str, models: Any) -> tuple[str, str | None]:
    """(prefix, model name) of a field's type: ("", None) for anything that is not a
    model, a list of models or a map of models."""
    for prefix, pattern in (("[]", _LIST_OF), ("{}", _MAP_OF)):
        match = pattern.fullmatch(openapi_type)
        if match is not None:
            inner = match[1]
            return (prefix, inner) if hasattr(models, inner) else ("", None)
    return ("", openapi_type) if hasattr(models, openapi_type) else ("", None)


def _types(models: Any) -> Iterator[tuple[str, dict[str, str]]]:
    """Each model reachable from KINDS (and ListMeta) with its fields, once."""
    pending = [*KINDS.values(), "V1ListMeta"]
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        model = getattr(models, name)
        fields: dict[str, str] = {}
        for attribute, openapi_type in model.openapi_types.items():
            prefix, inner = _reference(openapi_type, models)
            fields[model.attribute_map[attribute]] = f"{prefix}{inner}" if inner else ""
            if inner is not None:
                pending.append(inner)
        yield name, fields


def generate() -> dict[str, Any]:
    import kubernetes_asyncio
    from kubernetes_asyncio.client import models

    types = dict(sorted(_types(models)))
    types[LIST] = dict(_LIST_FIELDS)
    return {
        "source": f"kubernetes_asyncio {kubernetes_asyncio.__version__} (generated models)",
        "generator": "core/tools/generate_field_schema.py",
        "kinds": dict(KINDS),
        "list": LIST,
        "types": types,
    }


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=1, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare with the file")
    args = parser.parse_args(argv)
    text = render(generate())
    if args.check:
        current = SCHEMA_PATH.read_text(encoding="utf-8") if SCHEMA_PATH.exists() else ""
        if current != text:
            print(f"{SCHEMA_PATH} is out of date: run {__file__}", file=sys.stderr)
            return 1
        return 0
    SCHEMA_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {SCHEMA_PATH} ({len(text):,} bytes, {len(json.loads(text)['types'])} types)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
