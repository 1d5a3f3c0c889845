"""NodeVolumeLimits' memos (nodevolumelimits/counting.py) change no answer: one plugin,
kept across cycles while claims are rebound, PVs deleted, limits changed and pods added,
answers as upstream's count straight from the listers (`_straight`, what Filter computed
before the memos) does, for random pods, volumes and limits; and its array Filter
(`filter_mask`, rows.py), kept across the same cycles, passes only nodes Filter passes."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from volumebinding_helpers import VolumeEnv, csi_node, make_pv, make_pvc, node, run, storage_class

from kubesched.api import Pod
from kubesched.framework import CycleState, NodeInfo, PodInfo, Status
from kubesched.testing import array_filter_mismatch, make_pod
from kubesched_volumebinding import NodeVolumeLimits
from kubesched_volumebinding.nodevolumelimits import (
    ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,
    volume_limits,
)
from kubesched_volumebinding.nodevolumelimits.counting import Attachable
from kubesched_volumebinding.nodevolumelimits.plugin import _NotFound

EBS, GCE = "ebs.csi.aws.com", "pd.csi.storage.gke.io"
PVS = 6


def _objects() -> list[Any]:
    objs: list[Any] = [storage_class("csi-sc", mode="Immediate", provisioner=EBS)]
    for i in range(PVS):
        driver = GCE if i == PVS - 1 else EBS
        objs.append(make_pv(f"pv-{i}").csi(driver, f"vol-{i % 4}").obj())  # handles shared
        objs.append(make_pvc(f"c-{i}").bound(f"pv-{i}").obj())
    objs.append(make_pv("pv-tree").spec(awsElasticBlockStore={"volumeID": "vol-tree"}).obj())
    objs.append(make_pvc("c-tree").bound("pv-tree").obj())
    objs.append(make_pvc("c-unbound").cls("csi-sc").obj())
    return objs


def _straight(plugin: NodeVolumeLimits, pod: Pod, node_info: NodeInfo) -> Status | None:
    """Upstream's Filter as written (csi.go): count the pod's volumes, then every pod's
    on the node, through the listers, with no memo."""
    node_ = node_info.node
    if not pod.spec.volumes or node_ is None:
        return None
    csi = plugin.listers.csi_node(node_.metadata.name)
    new: dict[str, Attachable] = {}
    try:
        plugin._attachable_volumes(pod, csi, True, new, plugin.listers)
    except _NotFound as exc:
        return Status.unresolvable(str(exc))
    except ValueError as exc:
        return Status.as_error(exc)
    if not new:
        return None
    limits = volume_limits(csi)
    if not limits:
        return None
    attached: dict[str, Attachable] = {}
    for existing in node_info.pods:
        try:
            plugin._attachable_volumes(existing.pod, csi, False, attached, plugin.listers)
        except (ValueError, _NotFound) as exc:
            return Status.as_error(exc)
    counts: dict[str, int] = {}
    for unique, volume in attached.items():
        new.pop(unique, None)
        counts[volume.driver] = counts.get(volume.driver, 0) + 1
    per_driver: dict[str, int] = {}
    for volume in new.values():
        per_driver[volume.driver] = per_driver.get(volume.driver, 0) + 1
    for driver, n in per_driver.items():
        if driver in limits and counts.get(driver, 0) + n > limits[driver]:
            return Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
    return None


_VOLUMES = st.sampled_from(
    [f"claim c-{i}" for i in range(PVS)]
    + ["claim c-tree", "claim c-unbound", "claim nope", "claim ", "ephemeral own"]
    + ["ephemeral foreign", "inline vol-1", "inline aws://zone/bad", "config"]
)


def _pod(name: str, volumes: list[str]) -> Pod:
    specs: list[dict[str, Any]] = []
    for i, v in enumerate(volumes):
        kind, _, arg = v.partition(" ")
        if kind == "claim":
            specs.append({"name": f"v{i}", "persistentVolumeClaim": {"claimName": arg}})
        elif kind == "ephemeral":
            specs.append({"name": f"{arg}{i}", "ephemeral": {"volumeClaimTemplate": {}}})
        elif kind == "inline":
            specs.append({"name": f"v{i}", "awsElasticBlockStore": {"volumeID": arg}})
        else:
            specs.append({"name": f"v{i}", "configMap": {"name": "x"}})
    return make_pod(name, uid=f"uid-{name}").spec(volumes=specs).obj()


def _ephemeral_claims(pod: Pod) -> list[Any]:
    """The claims of the pod's ephemeral volumes: owned by it, or by another pod."""
    out = []
    for vol in pod.spec.volumes:
        if vol.ephemeral is not None:
            b = make_pvc(f"{pod.metadata.name}-{vol.name}").bound("pv-0")
            owner = pod if vol.name.startswith("own") else make_pod("x", uid="uid-x").obj()
            out.append(b.owner(owner).obj())
    return out


_STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("rebind"), st.integers(0, PVS - 1), st.integers(0, PVS - 1)),
        st.tuples(st.just("delete pv"), st.integers(0, PVS - 1)),
        st.tuples(st.just("limit"), st.integers(0, 5)),
        st.tuples(st.just("migrated"), st.booleans()),
        st.tuples(st.just("add pod"), st.lists(_VOLUMES, max_size=3)),
        st.tuples(st.just("new pod"), st.lists(_VOLUMES, min_size=1, max_size=3)),
    ),
    max_size=8,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    limit=st.integers(0, 5),
    running=st.lists(st.lists(_VOLUMES, max_size=3), max_size=4),
    new=st.lists(_VOLUMES, min_size=1, max_size=3),
    steps=_STEPS,
)
def test_memos_change_no_answer(
    limit: int, running: list[list[str]], new: list[str], steps: list[tuple[Any, ...]]
) -> None:
    pods = [_pod(f"run-{i}", v) for i, v in enumerate(running)]
    pod = _pod("new", new)
    extra = [c for p in [*pods, pod] for c in _ephemeral_claims(p)]
    drivers = [{"name": EBS, "allocatable": {"count": limit}}, {"name": GCE}]
    # n2 has no CSINode (no migration, no limits: its allocatable attach limit is not
    # read); one cycle's memo serves both
    n2 = node("n2")
    n2.status.allocatable[f"attachable-volumes-csi-{EBS}"] = limit  # type: ignore[assignment]
    env = VolumeEnv([*_objects(), *extra, csi_node("n1", drivers)], [node("n1"), n2])
    plugin = env.plugin(NodeVolumeLimits)
    the_nodes = [env.node_info("n1").node, env.node_info("n2").node]
    cluster = env.cluster

    def check() -> None:
        infos = [NodeInfo(n, [PodInfo(p) for p in pods]) for n in the_nodes]
        for i, info in enumerate(infos):  # the snapshot's rows: the array Filter's too
            env.snapshot.replace(i, info)
        state = CycleState()
        _, skip = plugin.pre_filter(state, pod, infos)
        wants = [_straight(plugin, pod, info) for info in infos]
        if skip is not None:
            assert skip == Status.skip() and wants == [None, None]
            return
        for _ in range(2):  # the second time from the cycle's and the nodes' memos
            assert [plugin.filter(state, pod, info) for info in infos] == wants
            assert array_filter_mismatch(plugin, state, pod, env.snapshot, infos) is None
        assert [plugin.filter(CycleState(), pod, info) for info in infos] == wants

    check()
    for step in steps:
        if step[0] == "rebind":
            claim = cluster.get("PersistentVolumeClaim", f"c-{step[1]}", "default")
            copy = claim.model_copy(deep=True)
            copy.spec.volume_name = f"pv-{step[2]}"
            run(cluster.update(copy))
        elif step[0] == "delete pv" and cluster.get("PersistentVolume", f"pv-{step[1]}"):
            run(cluster.delete("PersistentVolume", f"pv-{step[1]}"))
        elif step[0] in ("limit", "migrated"):
            current = cluster.get("CSINode", "n1")
            copy = current.model_copy(deep=True)
            if step[0] == "limit":
                copy.spec.drivers[0].allocatable.count = step[1]
            else:
                value = "kubernetes.io/aws-ebs" if step[1] else ""
                copy.metadata.annotations["storage.alpha.kubernetes.io/migrated-plugins"] = value
            run(cluster.update(copy))
        elif step[0] == "add pod":
            pods.append(_pod(f"run-{len(pods)}", step[1]))
        elif step[0] == "new pod":
            pod = _pod(f"new-{len(pods)}", step[1])
        check()


def test_a_node_recounts_when_a_claim_it_counted_changes() -> None:
    """The memo must not hide a claim rebound to another driver's volume."""
    drivers = [{"name": EBS, "allocatable": {"count": 1}}, {"name": GCE}]
    env = VolumeEnv([*_objects(), csi_node("n1", drivers)], [node("n1")])
    plugin = env.plugin(NodeVolumeLimits)
    running = _pod("run", ["claim c-0"])
    info = NodeInfo(env.node_info("n1").node, [PodInfo(running)])
    new = _pod("new", ["claim c-1", "claim c-2"])  # two volumes: not under every limit
    exceeded = Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
    assert plugin.filter(CycleState(), new, info) == exceeded
    claim = env.cluster.get("PersistentVolumeClaim", "c-1", "default").model_copy(deep=True)
    claim.spec.volume_name = f"pv-{PVS - 1}"  # now a GCE volume: one EBS volume left
    run(env.cluster.update(claim))
    claim = env.cluster.get("PersistentVolumeClaim", "c-0", "default").model_copy(deep=True)
    claim.spec.volume_name = f"pv-{PVS - 1}"  # the running pod's volume too
    run(env.cluster.update(claim))
    assert plugin.filter(CycleState(), new, info) is None


def test_the_array_filter_passes_the_nodes_under_every_limit() -> None:
    """`filter_mask` passes a node whose pods' volumes leave room for the pod's under the
    limit, a node without limits, and a node without a CSINode; it leaves the node at the
    limit to `filter`, which rejects it; and it sees a new limit and a new pod."""
    drivers = [{"name": EBS, "allocatable": {"count": 2}}, {"name": GCE}]
    objs = [*_objects(), csi_node("full", drivers), csi_node("room", drivers)]
    objs.append(csi_node("nolimit", [{"name": GCE}]))
    names = ["full", "room", "nolimit", "nocsinode"]
    env = VolumeEnv(objs, [node(n) for n in names])
    plugin = env.plugin(NodeVolumeLimits)
    running = {"full": [_pod("r0", ["claim c-0", "claim c-1"])], "room": [_pod("r1", ["config"])]}
    pod = _pod("new", ["claim c-2"])

    def mask() -> list[bool]:
        infos = []
        for i, name in enumerate(names):
            infos.append(
                NodeInfo(env.node_info(name).node, [PodInfo(p) for p in running.get(name, [])])
            )
            env.snapshot.replace(i, infos[-1])
        state = CycleState()
        plugin.pre_filter(state, pod, infos)
        assert array_filter_mismatch(plugin, state, pod, env.snapshot, infos) is None
        rows = np.arange(len(names), dtype=np.intp)
        return plugin.filter_mask(state, pod, env.snapshot.columns, rows).tolist()

    assert mask() == [False, True, True, True]
    exceeded = Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
    assert plugin.filter(CycleState(), pod, env.node_info("full")) == exceeded
    running["room"].append(_pod("r2", ["claim c-3"]))  # room: 2 volumes now, limit 2
    assert mask() == [False, False, True, True]
    csi = env.cluster.get("CSINode", "full").model_copy(deep=True)
    csi.spec.drivers[0].allocatable.count = 3
    run(env.cluster.update(csi))
    assert mask() == [True, False, True, True]
