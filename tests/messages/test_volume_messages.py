"""Message table: what the volume plugins of kubesched-volumebinding say, as a user reads
it on the pod (PodScheduled condition, FailedScheduling event) with the default profile.

The strings are copied from kube-scheduler v1.34 (kubernetes/kubernetes
pkg/scheduler/framework/plugins/):

- volumebinding/volume_binding.go (podHasPVCs, PreFilter) and binder.go (ErrReason*,
  FindPodVolumes appends NodeConflict, BindConflict, NotEnoughSpace, PVNotExist in that
  order); ErrReasonNodeConflict is v1.33+'s text (kubernetes#129887);
- volumezone/volume_zone.go (ErrReasonConflict, getPVbyPod's texts, the listers' NotFound);
- volumerestrictions/volume_restrictions.go (ErrReasonDiskConflict, v1.33+'s
  ErrReasonReadWriteOncePodConflict, kubernetes#129145);
- nodevolumelimits/csi.go (ErrReasonMaxVolumeCountExceeded, `looking up PVC %s/%s: %w`).

A missing object's text is client-go's NotFound (`persistentvolumeclaim "data" not found`,
`storageclass.storage.k8s.io "gold" not found`). The default profile ends a Filter
rejection's message with DynamicResources' PostFilter text for a pod without claims
(`no new claims to deallocate, `) and DefaultPreemption's
(pkg/scheduler/framework/preemption/preemption.go: `preemption: ` and the candidates'
FitError, `Preemption is not helpful for scheduling` for nodes rejected as
UnschedulableAndUnresolvable, DefaultPreemption's `No preemption victims found for incoming
pod` for the others); a PreFilter rejection's with ` not found` (NOT_FOUND below).
"""

from __future__ import annotations

from typing import Any

import pytest
from _scenarios import Run, objects_from_yaml, run_scenario

CLUSTER = """\
apiVersion: v1
kind: Node
metadata:
  name: node-a
  labels: {kubernetes.io/hostname: node-a, topology.kubernetes.io/zone: z1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata:
  name: node-b
  labels: {kubernetes.io/hostname: node-b, topology.kubernetes.io/zone: z2}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: manual}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: Immediate
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: csi.example.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: csi.example.com}
spec: {storageCapacity: true}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: fast-everywhere, namespace: kube-system}
storageClassName: fast
nodeTopology: {}
capacity: 1Gi
"""


def _claim(name: str, cls: str | None = "local", size: str = "1Gi", **extra: Any) -> str:
    """A PersistentVolumeClaim; `extra` goes under spec (volumeName) or is raw YAML
    (`meta`, `status`)."""
    meta = extra.pop("meta", "")
    status = extra.pop("status", "")
    modes = extra.pop("modes", "[ReadWriteOnce]")
    spec = "".join(f"  {k}: {v}\n" for k, v in extra.items())
    cls_line = f"  storageClassName: {cls}\n" if cls is not None else ""
    return (
        f"---\napiVersion: v1\nkind: PersistentVolumeClaim\n"
        f"metadata: {{name: {name}, namespace: default{meta}}}\n"
        f"spec:\n  accessModes: {modes}\n{cls_line}{spec}"
        f"  resources: {{requests: {{storage: {size}}}}}\n{status}"
    )


def _volume(name: str, cls: str, handle: str = "", **extra: str) -> str:
    """A PersistentVolume (CSI source `handle` when given, else a local path)."""
    source = (
        f"  csi: {{driver: csi.example.com, volumeHandle: {handle}}}\n"
        if handle
        else "  local: {path: /mnt/disk}\n"
    )
    labels = extra.pop("labels", "")
    spec = "".join(f"  {k}: {v}\n" for k, v in extra.items())
    return (
        f"---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: {name}{labels}}}\n"
        f"spec:\n  capacity: {{storage: 5Gi}}\n  accessModes: [ReadWriteOnce, ReadWriteOncePod]\n"
        f"  storageClassName: {cls}\n{source}{spec}"
    )


def _pod(name: str = "p", *volumes: str, node: str = "") -> str:
    """A pod with these volume entries (YAML flow mappings without the name)."""
    vols = "".join(f"  - {{name: v{i}, {v}}}\n" for i, v in enumerate(volumes))
    node_line = f"  nodeName: {node}\n" if node else ""
    return (
        f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\n"
        f"spec:\n{node_line}  containers: [{{name: c, image: app}}]\n  volumes:\n{vols}"
    )


def _claimed(claim: str) -> str:
    return f"persistentVolumeClaim: {{claimName: {claim}}}"


BOUND = ', annotations: {pv.kubernetes.io/bind-completed: "yes"}'
ON_C = (
    "{required: {nodeSelectorTerms: [{matchExpressions: "
    "[{key: kubernetes.io/hostname, operator: In, values: [node-c]}]}]}}"
)

# DynamicResources' PostFilter (a pod without claims), then DefaultPreemption's
NOT_HELPFUL = (
    " no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not"
    " helpful for scheduling."
)
NO_VICTIMS = (
    " no new claims to deallocate, preemption: 0/2 nodes are available: 2 No preemption"
    " victims found for incoming pod."
)
# A PreFilter rejection stops PreFilter before DynamicResources' runs, so its PostFilter
# finds no state: the Error "not found" ends PostFilter (DefaultPreemption does not run),
# as v1.34 prints it (dynamicresources.go getStateData; CycleState.Read's ErrNotFound).
NOT_FOUND = " not found"


def _config(*volume_plugins: str) -> dict[str, Any]:
    """The default profile with only these of the four volume plugins, so that each row
    shows its plugin's words (several would reject the same pod)."""
    others = {"VolumeBinding", "VolumeZone", "VolumeRestrictions", "NodeVolumeLimits"}
    others -= set(volume_plugins)
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {"multiPoint": {"disabled": [{"name": n} for n in sorted(others)]}},
            }
        ],
    }


def _run(manifests: str, cfg: dict[str, Any]) -> Run:
    """The cluster plus `manifests`, for 30 virtual seconds: each message here comes at
    once and the retries repeat it (a bounded run also ends the 5-minute retries of the
    unschedulable pool)."""
    return run_scenario(objects_from_yaml(CLUSTER + manifests), cfg=cfg, installed=True, until=30)


ROWS: dict[str, tuple[str, str, str]] = {
    # volume_binding.go podHasPVCs: the lister's NotFound, as PreFilter's whole message
    "VolumeBinding: claim missing": (
        "VolumeBinding",
        _pod("p", _claimed("data")),
        '0/2 nodes are available: persistentvolumeclaim "data" not found.' + NOT_FOUND,
    ),
    "VolumeBinding: ephemeral claim not created yet": (
        "VolumeBinding",
        _pod(
            "p",
            "ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], "
            "storageClassName: local, resources: {requests: {storage: 1Gi}}}}}",
        ),
        "0/2 nodes are available: waiting for ephemeral volume controller to create the "
        'persistentvolumeclaim "p-v0".' + NOT_FOUND,
    ),
    # component-helpers storage/ephemeral VolumeIsForPod
    "VolumeBinding: ephemeral claim of another owner": (
        "VolumeBinding",
        _claim("p-v0", "local")
        + _pod(
            "p",
            "ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], "
            "storageClassName: local, resources: {requests: {storage: 1Gi}}}}}",
        ),
        "0/2 nodes are available: PVC default/p-v0 was not created for pod default/p (pod is "
        "not owner)." + NOT_FOUND,
    ),
    "VolumeBinding: claim lost": (
        "VolumeBinding",
        _claim("data", meta=BOUND, volumeName="gone", status="status: {phase: Lost}\n")
        + _pod("p", _claimed("data")),
        '0/2 nodes are available: persistentvolumeclaim "data" bound to non-existent '
        'persistentvolume "gone".' + NOT_FOUND,
    ),
    "VolumeBinding: unbound immediate claim": (
        "VolumeBinding",
        _claim("data", "manual") + _pod("p", _claimed("data")),
        "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims." + NOT_FOUND,
    ),
    # binder.go ErrReasonNodeConflict (v1.33+ text)
    "VolumeBinding: bound PV elsewhere": (
        "VolumeBinding",
        _volume("pv-c", "local", claimRef="{namespace: default, name: data}", nodeAffinity=ON_C)
        + _claim("data", meta=BOUND, volumeName="pv-c")
        + _pod("p", _claimed("data")),
        "0/2 nodes are available: 2 node(s) didn't match PersistentVolume's node affinity."
        + NOT_HELPFUL,
    ),
    "VolumeBinding: no PV to bind": (
        "VolumeBinding",
        _claim("data", "local") + _pod("p", _claimed("data")),
        "0/2 nodes are available: 2 node(s) didn't find available persistent volumes to "
        "bind." + NOT_HELPFUL,
    ),
    "VolumeBinding: not enough free storage": (
        "VolumeBinding",
        _claim("data", "fast", size="10Gi") + _pod("p", _claimed("data")),
        "0/2 nodes are available: 2 node(s) did not have enough free storage." + NOT_HELPFUL,
    ),
    # volume_zone.go
    "VolumeZone: PV in another zone": (
        "VolumeZone",
        _volume(
            "pv-z1",
            "local",
            labels=", labels: {topology.kubernetes.io/zone: z3}",
            claimRef="{namespace: default, name: data}",
        )
        + _claim("data", meta=BOUND, volumeName="pv-z1")
        + _pod("p", _claimed("data")),
        "0/2 nodes are available: 2 node(s) had no available volume zone." + NOT_HELPFUL,
    ),
    "VolumeZone: claim missing": (
        "VolumeZone",
        _pod("p", _claimed("data")),
        '0/2 nodes are available: persistentvolumeclaim "data" not found.' + NOT_FOUND,
    ),
    "VolumeZone: class missing": (
        "VolumeZone",
        _claim("data", "gold") + _pod("p", _claimed("data")),
        '0/2 nodes are available: storageclass.storage.k8s.io "gold" not found.' + NOT_FOUND,
    ),
    "VolumeZone: no PV and no class": (
        "VolumeZone",
        _claim("data", '""') + _pod("p", _claimed("data")),
        "0/2 nodes are available: PersistentVolumeClaim had no pv name and storageClass "
        "name." + NOT_FOUND,
    ),
    "VolumeZone: immediate claim without a PV": (
        "VolumeZone",
        _claim("data", "manual") + _pod("p", _claimed("data")),
        "0/2 nodes are available: PersistentVolume had no name." + NOT_FOUND,
    ),
    "VolumeZone: bound PV missing": (
        "VolumeZone",
        _claim("data", meta=BOUND, volumeName="gone") + _pod("p", _claimed("data")),
        '0/2 nodes are available: persistentvolume "gone" not found.' + NOT_FOUND,
    ),
    # volume_restrictions.go
    "VolumeRestrictions: claim missing": (
        "VolumeRestrictions",
        _pod("p", _claimed("data")),
        '0/2 nodes are available: persistentvolumeclaim "data" not found.' + NOT_FOUND,
    ),
    "VolumeRestrictions: disk in use": (
        "VolumeRestrictions",
        _pod("a", "gcePersistentDisk: {pdName: disk-1}", node="node-a")
        + _pod("b", "gcePersistentDisk: {pdName: disk-1}", node="node-b")
        + _pod("p", "gcePersistentDisk: {pdName: disk-1}"),
        "0/2 nodes are available: 2 node(s) had no available disk." + NO_VICTIMS,
    ),
    "VolumeRestrictions: ReadWriteOncePod claim in use": (
        "VolumeRestrictions",
        _claim("data", "local", modes="[ReadWriteOncePod]")
        + _pod("a", _claimed("data"), node="node-a")
        + _pod("p", _claimed("data")),
        "0/2 nodes are available: 2 node(s) unavailable due to PersistentVolumeClaim with "
        "ReadWriteOncePod access mode already in-use by another pod." + NO_VICTIMS,
    ),
    # csi.go
    "NodeVolumeLimits: claim missing": (
        "NodeVolumeLimits",
        _pod("p", _claimed("data")),
        "0/2 nodes are available: 2 looking up PVC default/data: persistentvolumeclaim "
        '"data" not found.' + NOT_HELPFUL,
    ),
}


@pytest.mark.parametrize(
    ("plugin", "manifests", "message"), [pytest.param(*row, id=name) for name, row in ROWS.items()]
)
def test_volume_plugin_message(plugin: str, manifests: str, message: str) -> None:
    run = _run(manifests, _config(plugin))
    assert run.condition("p") == ("False", "Unschedulable", message)
    assert set(run.events("p")) == {message}


LIMITS = """\
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-a}
spec: {drivers: [{name: csi.example.com, nodeID: node-a, allocatable: {count: 1}}]}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-b}
spec: {drivers: [{name: csi.example.com, nodeID: node-b, allocatable: {count: 1}}]}
"""


def test_node_volume_limits_exceeded() -> None:
    """csi.go ErrReasonMaxVolumeCountExceeded: each node already has its one volume of the
    driver attached (Unschedulable, and the pods using them have the same priority)."""
    manifests = LIMITS
    for i, node in enumerate(("node-a", "node-b")):
        manifests += _volume(
            f"pv-{i}", "fast", handle=f"h{i}", claimRef=f"{{namespace: default, name: c{i}}}"
        )
        manifests += _claim(f"c{i}", "fast", meta=BOUND, volumeName=f"pv-{i}")
        manifests += _pod(f"user-{i}", _claimed(f"c{i}"), node=node)
    manifests += _volume("pv-new", "fast", handle="new", claimRef="{namespace: default, name: new}")
    manifests += _claim("new", "fast", meta=BOUND, volumeName="pv-new")
    manifests += _pod("p", _claimed("new"))
    run = _run(manifests, _config("NodeVolumeLimits"))
    message = "0/2 nodes are available: 2 node(s) exceed max volume count." + NO_VICTIMS
    assert run.condition("p") == ("False", "Unschedulable", message)


def test_claim_bound_to_a_volume_that_does_not_exist() -> None:
    """binder.go ErrReasonPVNotExist: the claim says Bound, its PV is in no cache. The PV
    controller then marks the claim Lost (pv_controller.go syncBoundClaim), and the next
    attempt says so at PreFilter: both, in that order, as upstream."""
    manifests = _claim("data", meta=BOUND, volumeName="gone") + _pod("p", _claimed("data"))
    run = _run(manifests, _config("VolumeBinding"))
    assert run.events("p")[:2] == [
        "0/2 nodes are available: 2 node(s) unavailable due to one or more pvc(s) bound to "
        "non-existent pv(s)." + NOT_HELPFUL,
        '0/2 nodes are available: persistentvolumeclaim "data" bound to non-existent '
        'persistentvolume "gone".' + NOT_FOUND,
    ]


SLOW = """\
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: slow
  annotations: {provisioner.kubesched.io/delay-seconds: "100"}
provisioner: slow.example.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: failing
  annotations: {provisioner.kubesched.io/fail-nodes: "node-a,node-b"}
provisioner: failing.example.com
volumeBindingMode: WaitForFirstConsumer
"""


def _with_bind_timeout(seconds: int) -> dict[str, Any]:
    cfg = _config("VolumeBinding")
    cfg["profiles"][0]["pluginConfig"] = [
        {"name": "VolumeBinding", "args": {"bindTimeoutSeconds": seconds}}
    ]
    return cfg


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        pytest.param(
            "slow",
            # binder.go BindPodVolumes `binding volumes: %w` of wait's "timed out waiting for
            # the condition"; the unbound claims are named (plugins-volumebinding README,
            # BinderOptions.name_unbound_claims_on_timeout)
            'running PreBind plugin "VolumeBinding": binding volumes: timed out waiting for '
            "the condition (claims still unbound after 5s: default/data)",
            id="PreBind timeout",
        ),
        pytest.param(
            "failing",
            # binder.go checkBindings: the provisioner gave the claim back by removing
            # selected-node (the PV controller's storage-provisioner annotations stay)
            'running PreBind plugin "VolumeBinding": binding volumes: provisioning failed '
            'for PVC "data"',
            id="provisioning failed",
        ),
    ],
)
def test_volume_binding_prebind_error(cls: str, message: str) -> None:
    manifests = SLOW + _claim("data", cls) + _pod("p", _claimed("data"))
    run = _run(manifests, _with_bind_timeout(5))
    assert run.events("p")[0] == message
