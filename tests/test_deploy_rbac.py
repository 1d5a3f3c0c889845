"""The deployment example's ClusterRole lets `kubesched run` list and watch every kind the
installed packages register: the kube backend starts one informer per watched kind, and a
kind missing from the role fails at start with 403 on a real cluster."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from kubesched.cluster.memory import default_kinds
from kubesched.runtime import make_plugin_manager

RBAC = Path(__file__).resolve().parents[1] / "examples" / "deploy" / "rbac.yaml"


def _role(kind: str = "ClusterRole") -> dict[str, Any]:
    docs = [d for d in yaml.safe_load_all(RBAC.read_text()) if d]
    [role] = [d for d in docs if d["kind"] == kind]
    return role


def _granted(role: dict[str, Any], group: str, resource: str) -> set[str]:
    verbs: set[str] = set()
    for rule in role["rules"]:
        if group in rule.get("apiGroups", []) and resource in rule.get("resources", []):
            verbs |= set(rule["verbs"])
    return verbs


def test_every_registered_kind_can_be_listed_and_watched() -> None:
    role = _role()
    kinds = list(default_kinds(make_plugin_manager()))
    # the packages installed beside core in this environment register theirs too
    assert {"PodGroup", "PersistentVolume", "VolumeAttachment", "PodDisruptionBudget"} <= {
        k.kind for k in kinds
    }
    missing = [
        f"{k.group or 'core'}/{k.plural}"
        for k in kinds
        if not {"list", "watch"} <= _granted(role, k.group, k.plural)
    ]
    assert missing == [], f"examples/deploy/rbac.yaml lacks list/watch on {missing}"


def test_the_scheduler_can_bind_and_report() -> None:
    role = _role()
    assert "create" in _granted(role, "", "pods/binding")
    assert {"patch"} <= _granted(role, "", "pods/status")
    assert "create" in _granted(role, "events.k8s.io", "events")
    # leader election: a Role in the scheduler's namespace, as kube-scheduler's
    lease_role = _role("Role")
    assert {"get", "create", "update"} <= _granted(lease_role, "coordination.k8s.io", "leases")


def test_dynamic_resources_can_write_claims() -> None:
    """DynamicResources' PreBind adds its finalizer to a claim and writes the allocation and
    reservedFor to the status subresource; PostFilter and Unreserve remove reservations
    (upstream's system:kube-scheduler grants the same under DynamicResourceAllocation)."""
    role = _role()
    assert {"get", "list", "watch", "update", "patch"} <= _granted(
        role, "resource.k8s.io", "resourceclaims"
    )
    assert {"update", "patch"} <= _granted(role, "resource.k8s.io", "resourceclaims/status")
    for read_only in ("deviceclasses", "resourceslices"):
        assert _granted(role, "resource.k8s.io", read_only) == {"get", "list", "watch"}
