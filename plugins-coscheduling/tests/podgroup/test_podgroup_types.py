"""The PodGroup kind: scheduler-plugins manifests load unchanged through the hook, and the
helpers name a pod's group and its Permit wait (pkg/util/podgroup.go)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cosched_helpers import hook_manager, pod_group

from kubesched.cluster.memory import default_kinds
from kubesched.runtime import make_plugin_manager
from kubesched.simulate import load_manifests
from kubesched.testing import make_pod
from kubesched_coscheduling import POD_GROUP_LABEL, PodGroup
from kubesched_coscheduling.podgroup import group_key, pod_group_key, pod_group_name, wait_seconds

MANIFEST = """\
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: nginx
  namespace: web
  uid: 11111111-2222-3333-4444-555555555555
spec:
  scheduleTimeoutSeconds: 10
  minMember: 3
  minResources:
    cpu: "3"
    memory: 1Gi
status:
  phase: Running
  running: 3
  occupiedBy: web/nginx
---
apiVersion: v1
kind: Pod
metadata:
  name: nginx-0
  namespace: web
  labels:
    scheduling.x-k8s.io/pod-group: nginx
spec:
  containers: [{name: nginx, image: nginx}]
"""


def test_a_scheduler_plugins_manifest_loads(tmp_path: Path) -> None:
    path = tmp_path / "pg.yaml"
    path.write_text(MANIFEST)
    loaded = load_manifests([path], default_kinds(hook_manager()))
    assert loaded.skipped == []
    pg, pod = loaded.objects
    assert isinstance(pg, PodGroup)
    assert pg.key == "web/nginx"
    assert pg.spec.min_member == 3
    assert pg.spec.schedule_timeout_seconds == 10
    assert {k: str(v) for k, v in (pg.spec.min_resources or {}).items()} == {
        "cpu": "3",
        "memory": "1073741824",
    }
    assert (pg.status.phase, pg.status.running, pg.status.occupied_by) == (
        "Running",
        3,
        "web/nginx",
    )
    assert pod_group_key(pod) == "web/nginx"  # type: ignore[arg-type]


def test_without_the_hook_the_kind_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "pg.yaml"
    path.write_text(MANIFEST)
    loaded = load_manifests([path], default_kinds(make_plugin_manager(load_entrypoints=False)))
    assert [(s.kind, s.api_version) for s in loaded.skipped] == [
        ("PodGroup", "scheduling.x-k8s.io/v1alpha1")
    ]


def test_defaults_and_round_trip() -> None:
    pg = PodGroup.model_validate({"metadata": {"name": "pg"}})
    assert pg.spec.min_member == 1
    written = pg.to_dict()
    assert (written["apiVersion"], written["kind"]) == ("scheduling.x-k8s.io/v1alpha1", "PodGroup")
    assert written["spec"] == {"minMember": 1}
    assert written["status"]["phase"] == ""
    assert PodGroup.model_validate(written) == pg


def test_min_member_below_one_is_invalid() -> None:
    with pytest.raises(ValueError, match="minMember"):
        PodGroup.model_validate({"metadata": {"name": "pg"}, "spec": {"minMember": 0}})


def test_pod_group_label_and_key() -> None:
    pod = make_pod("p", "ns").label(**{POD_GROUP_LABEL: "pg"}).obj()
    assert (pod_group_name(pod), pod_group_key(pod)) == ("pg", "ns/pg")
    plain = make_pod("q", "ns").obj()
    assert (pod_group_name(plain), pod_group_key(plain)) == ("", "")
    assert group_key("a", "b") == "a/b"


@pytest.mark.parametrize(
    ("timeout", "permit_wait", "want"),
    [(10, 60, 10.0), (None, 60, 60.0), (0, 30, 30.0), (None, 0, 60.0)],
)
def test_wait_seconds(timeout: int | None, permit_wait: int, want: float) -> None:
    assert wait_seconds(pod_group("pg", 2, timeout=timeout), permit_wait) == want
    assert wait_seconds(None, permit_wait) == (permit_wait or 60)
