"""`kubesched snapshot` against the fake API server, end to end: a cluster made by a simulation
(workloads, their pods, finished Job pods, a static pod's mirror, a pod that fits nowhere) is
served by the fake API server, snapshotted into a folder by the command, and simulated again
from that folder: the same pods end on the same nodes with the same statuses, and the
workloads' controllers adopt their pods instead of making more. `--pods drop-bound` and
`unbind` and `--anonymize` are checked the same way."""

from __future__ import annotations

import asyncio
import textwrap
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")
pytest.importorskip("kubesched_builtin", reason="the default profile needs kubesched-builtin")

from click.testing import CliRunner
from kube_helpers import kubeconfig as write_kubeconfig

from kubesched.cli import cli
from kubesched.cli._main import main
from kubesched.cli._snapshot import snapshot_kinds
from kubesched.cluster.memory import default_kinds
from kubesched.config import load_config, resolve
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import SimulationResult, load_manifests, simulate
from kubesched.simulate._anonymize import Anonymizer
from kubesched.simulate._run import Simulation
from kubesched.testing.apiserver import FakeApiServer, Raw
from kubesched.workloads import register as register_workloads

SOURCE = textwrap.dedent(
    """
    apiVersion: v1
    kind: Namespace
    metadata: {name: shop, labels: {team: shop}}
    ---
    apiVersion: scheduling.k8s.io/v1
    kind: PriorityClass
    metadata: {name: batch-low}
    value: 100
    ---
    apiVersion: v1
    kind: List
    items:
    - {apiVersion: v1, kind: Node, metadata: {name: a1, labels: {kubernetes.io/hostname: a1,
        topology.kubernetes.io/zone: zone-a}}, status: {allocatable: {cpu: "4", memory: 16Gi,
        pods: "110"}}}
    - {apiVersion: v1, kind: Node, metadata: {name: a2, labels: {kubernetes.io/hostname: a2,
        topology.kubernetes.io/zone: zone-a}}, status: {allocatable: {cpu: "4", memory: 16Gi,
        pods: "110"}}}
    - {apiVersion: v1, kind: Node, metadata: {name: b1, labels: {kubernetes.io/hostname: b1,
        topology.kubernetes.io/zone: zone-b}}, status: {allocatable: {cpu: "4", memory: 16Gi,
        pods: "110"}}}
    - {apiVersion: v1, kind: Node, metadata: {name: b2, labels: {kubernetes.io/hostname: b2,
        topology.kubernetes.io/zone: zone-b}}, status: {allocatable: {cpu: "4", memory: 16Gi,
        pods: "110"}}}
    - apiVersion: v1
      kind: Node
      metadata:
        name: cp
        labels: {kubernetes.io/hostname: cp, node-role.kubernetes.io/control-plane: ""}
      spec: {taints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]}
      status: {allocatable: {cpu: "2", memory: 8Gi, pods: "110"}}
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web, namespace: shop}
    spec:
      replicas: 4
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          containers: [{name: web, image: nginx, resources: {requests: {cpu: "1"}}}]
          topologySpreadConstraints:
          - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone,
             whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}
    ---
    apiVersion: apps/v1
    kind: StatefulSet
    metadata: {name: db, namespace: shop}
    spec:
      serviceName: db
      replicas: 2
      selector: {matchLabels: {app: db}}
      template:
        metadata: {labels: {app: db}}
        spec:
          affinity:
            podAntiAffinity:
              requiredDuringSchedulingIgnoredDuringExecution:
              - {labelSelector: {matchLabels: {app: db}}, topologyKey: kubernetes.io/hostname}
          containers: [{name: db, image: postgres, resources: {requests: {cpu: "1"}}}]
    ---
    apiVersion: apps/v1
    kind: DaemonSet
    metadata: {name: agent}
    spec:
      selector: {matchLabels: {app: agent}}
      template:
        metadata: {labels: {app: agent}}
        spec:
          containers: [{name: agent, image: agent, resources: {requests: {cpu: 100m}}}]
    ---
    apiVersion: batch/v1
    kind: Job
    metadata: {name: report, annotations: {simulation.kubesched.io/duration: 5m}}
    spec:
      parallelism: 2
      completions: 3
      template:
        spec:
          restartPolicy: Never
          priorityClassName: batch-low
          containers: [{name: r, image: busybox, resources: {requests: {cpu: 1500m}}}]
    ---
    apiVersion: v1
    kind: Pod
    metadata:
      name: etcd-cp
      namespace: kube-system
      annotations: {kubernetes.io/config.mirror: abc, kubernetes.io/config.source: file}
    spec:
      nodeName: cp
      containers: [{name: etcd, image: etcd, resources: {requests: {cpu: 100m}}}]
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: huge}
    spec:
      containers: [{name: c, image: busybox, resources: {requests: {cpu: "64"}}}]
    ---
    apiVersion: v1
    kind: Pod
    metadata: {name: solo}
    spec:
      containers: [{name: c, image: busybox, resources: {requests: {cpu: 500m}}}]
    """
)

# pods pending in the live cluster (added to the server only), each with one node it may go
# to: by the hostname label, and by a node name in matchFields
PENDING: list[Raw] = [
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "late-a1", "namespace": "shop", "labels": {"app": "late"}},
        "spec": {
            "nodeSelector": {"kubernetes.io/hostname": "a1"},
            "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "100m"}}}],
        },
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "late-b2", "namespace": "shop", "labels": {"app": "late"}},
        "spec": {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchFields": [
                                    {"key": "metadata.name", "operator": "In", "values": ["b2"]}
                                ]
                            }
                        ]
                    }
                }
            },
            "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "100m"}}}],
        },
    },
]


def source_cluster(tmp_path: Path) -> tuple[Simulation, SimulationResult]:
    """The live cluster: SOURCE after a simulation ran it to quiescence (Job done)."""
    manifests = tmp_path / "source.yaml"
    manifests.write_text(SOURCE, encoding="utf-8")
    pm = make_plugin_manager()
    register_workloads(pm)
    registry = PluginRegistry.discover()
    loaded = load_manifests([manifests], default_kinds(pm))
    sim = Simulation(
        loaded.objects,
        resolve(load_config(None), registry, None),
        registry,
        hooks=pm,
        origins=loaded.origins,
    )
    return sim, sim.run()


def serve(sim: Simulation, extra: list[Raw]) -> Iterator[FakeApiServer]:
    """A fake API server holding every object of `sim`'s cluster as it ended (uids and
    owners as they are), and `extra` created through it, in a thread of its own."""
    ready = threading.Event()
    stop = threading.Event()
    box: dict[str, FakeApiServer] = {}

    def run() -> None:
        async def main() -> None:
            server = FakeApiServer()
            await server.start()
            for info in snapshot_kinds():
                for obj in sim.cluster.list(info.kind):
                    raw = obj.to_dict()
                    meta = raw["metadata"]
                    meta.pop("resourceVersion", None)
                    server.rv += 1
                    meta["resourceVersion"] = str(server.rv)
                    resource = f"{info.api_version}/{info.plural}"
                    key = server.key(
                        meta.get("namespace") if info.namespaced else None, meta["name"]
                    )
                    server.objects.setdefault(resource, {})[key] = raw
            for raw in extra:
                server.add("v1/pods", raw)
            box["server"] = server
            ready.set()
            while not stop.is_set():
                await asyncio.sleep(0.02)
            await server.stop()

        asyncio.run(main())

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(30)
    try:
        yield box["server"]
    finally:
        stop.set()
        thread.join(10)


@dataclass(frozen=True)
class Live:
    """The source run's result, the fake server serving its cluster, a kubeconfig for it."""

    result: SimulationResult
    server: FakeApiServer
    kubeconfig: Path


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    tmp = tmp_path_factory.mktemp("live")
    sim, result = source_cluster(tmp)
    for server in serve(sim, PENDING):
        path = Path(write_kubeconfig(tmp / "kubeconfig", server.url))
        yield Live(result, server, path)


def snapshot(kubeconfig: Path, folder: Path, *args: str) -> str:
    result = CliRunner().invoke(
        cli, ["snapshot", "--kubeconfig", str(kubeconfig), str(folder), *args]
    )
    assert result.exit_code == 0, result.output
    return result.output


def outcome(result: SimulationResult) -> dict[str, tuple[str | None, str]]:
    return {f"{p.namespace}/{p.name}": (p.node, p.status) for p in result.pods}


def test_the_source_cluster_is_what_the_tests_expect(
    live: Live,
) -> None:
    result = live.result
    statuses = [p.status for p in result.pods]
    assert statuses.count("Succeeded") == 3  # the Job's pods
    assert result.pod("huge").status == "Unschedulable"
    assert result.pod("etcd-cp", "kube-system").node == "cp"
    assert result.pod("db-1", "shop").status == "Bound"


def test_a_kept_snapshot_simulates_to_the_same_placements(live: Live, tmp_path: Path) -> None:
    source, kubeconfig = live.result, live.kubeconfig
    out = snapshot(kubeconfig, tmp_path)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == [
        "daemonsets.apps.yaml",
        "deployments.apps.yaml",
        "jobs.batch.yaml",
        "namespaces.yaml",
        "nodes.yaml",
        "pods.yaml",
        "priorityclasses.scheduling.k8s.io.yaml",
        "replicasets.apps.yaml",
        "statefulsets.apps.yaml",
    ]
    assert "wrote 5 nodes, " in out and " deployments.apps, " in out
    doc = yaml.safe_load((tmp_path / "pods.yaml").read_text())
    assert (doc["apiVersion"], doc["kind"]) == ("v1", "List")
    for item in doc["items"]:
        assert "resourceVersion" not in item["metadata"]
        assert "managedFields" not in item["metadata"]

    again = simulate([tmp_path])
    expected = outcome(source)
    # the pods pending in the live cluster find the one node each may go to
    expected["shop/late-a1"] = ("a1", "Bound")
    expected["shop/late-b2"] = ("b2", "Bound")
    assert outcome(again) == expected
    assert again.pod("huge").message == source.pod("huge").message
    workloads = {(w["kind"], w["name"]): w for w in again.section("workloads").payload}
    assert workloads["Deployment", "web"]["pods"] == 4
    assert workloads["StatefulSet", "db"]["bound"] == 2
    assert workloads["Job", "report"]["message"].startswith("Complete")


def test_drop_bound_leaves_the_workloads_to_make_their_pods_again(
    live: Live, tmp_path: Path
) -> None:
    source, kubeconfig = live.result, live.kubeconfig
    out = snapshot(kubeconfig, tmp_path, "--pods", "drop-bound")
    assert "bound pod" in out
    items = yaml.safe_load((tmp_path / "pods.yaml").read_text())["items"]
    kept = sorted(f"{i['metadata']['namespace']}/{i['metadata']['name']}" for i in items)
    # the mirror pod, the finished Job pods and the pods that were pending
    finished = sorted(f"{p.namespace}/{p.name}" for p in source.pods if p.status == "Succeeded")
    assert kept == sorted(
        ["kube-system/etcd-cp", "default/huge", "shop/late-a1", "shop/late-b2", *finished]
    )

    again = simulate([tmp_path])
    by_name = outcome(again)
    assert "default/solo" not in by_name  # a bare pod has nobody to make it again
    # the StatefulSet makes the same names again, the Deployment new ones
    assert by_name["shop/db-0"][1] == by_name["shop/db-1"][1] == "Bound"
    workloads = {(w["kind"], w["name"]): w for w in again.section("workloads").payload}
    assert workloads["Deployment", "web"]["bound"] == 4
    assert workloads["DaemonSet", "agent"]["bound"] == workloads["DaemonSet", "agent"]["desired"]
    assert workloads["Job", "report"]["message"].startswith("Complete")


def test_unbind_places_every_pod_again(live: Live, tmp_path: Path) -> None:
    source, kubeconfig = live.result, live.kubeconfig
    out = snapshot(kubeconfig, tmp_path, "--pods", "unbind")
    assert "bound pods made pending" in out
    items = yaml.safe_load((tmp_path / "pods.yaml").read_text())["items"]
    running = [i for i in items if i["status"].get("phase") not in ("Succeeded", "Failed")]
    bound = [i["metadata"]["name"] for i in running if i["spec"].get("nodeName")]
    assert bound == ["etcd-cp"]  # only the mirror pod keeps its node

    again = simulate([tmp_path])
    before, after = outcome(source), outcome(again)
    assert set(after) == set(before) | {"shop/late-a1", "shop/late-b2"}
    for key, (_, status) in before.items():
        assert after[key][1] == status, key
    assert after["shop/late-a1"] == ("a1", "Bound")


def test_an_anonymized_snapshot_keeps_every_placement_under_new_names(
    live: Live, tmp_path: Path
) -> None:
    kubeconfig = live.kubeconfig
    plain, renamed = tmp_path / "plain", tmp_path / "renamed"
    snapshot(kubeconfig, plain)
    snapshot(kubeconfig, renamed, "--anonymize", "--salt", "s3cret")
    text = "".join(p.read_text() for p in renamed.iterdir())
    for name in ("shop", "web", "a1", "b2", "report", "solo", "zone-a", "late"):
        assert f" {name}\n" not in text and f": {name}," not in text, name
    assert "kube-system" in text and "batch-low" not in text

    # the renaming of the plain snapshot's objects, as the command made it
    objects = [i for p in sorted(plain.iterdir()) for i in yaml.safe_load(p.read_text())["items"]]
    renamer = Anonymizer(objects, salt="s3cret")

    def key(k: str) -> str:
        namespace, name = k.split("/")
        return f"{renamer.value(namespace)}/{renamer.value(name)}"

    expected = {
        key(k): (None if node is None else renamer.value(node), status)
        for k, (node, status) in outcome(simulate([plain])).items()
    }
    assert outcome(simulate([renamed])) == expected

    # the same cluster and salt give the same files
    snapshot(kubeconfig, tmp_path / "again", "--anonymize", "--salt", "s3cret")
    for path in renamed.iterdir():
        assert (tmp_path / "again" / path.name).read_text() == path.read_text()


def test_a_kind_the_server_does_not_serve_is_named_and_left_out(live: Live, tmp_path: Path) -> None:
    live.server.not_served.add("apps/v1/daemonsets")  # as a cluster without that API
    try:
        out = snapshot(live.kubeconfig, tmp_path)
    finally:
        live.server.not_served.discard("apps/v1/daemonsets")
    assert "not served by the API server (left out): daemonsets.apps" in out
    assert not (tmp_path / "daemonsets.apps.yaml").exists()
    assert (tmp_path / "deployments.apps.yaml").exists()


def test_a_folder_in_use_is_refused_unless_overwritten(
    live: Live, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "daemonsets.apps.yaml").write_text("an earlier snapshot's")
    code = main(["snapshot", "--kubeconfig", str(live.kubeconfig), str(tmp_path)])
    assert code == 2
    assert f"{tmp_path} is not empty" in capsys.readouterr().err
    assert not (tmp_path / "pods.yaml").exists()

    live.server.not_served.add("apps/v1/daemonsets")
    try:
        snapshot(live.kubeconfig, tmp_path, "--overwrite")
    finally:
        live.server.not_served.discard("apps/v1/daemonsets")
    # the earlier snapshot's file of a kind the cluster no longer has is gone, others stay
    assert not (tmp_path / "daemonsets.apps.yaml").exists()
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert (tmp_path / "pods.yaml").exists()


def test_a_refused_list_and_a_missing_kubeconfig_exit_2_saying_why(
    live: Live, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    live.server.fail("GET", "/api/v1/nodes", 403, "Forbidden", 'nodes is forbidden: User "u"')
    code = main(["snapshot", "--kubeconfig", str(live.kubeconfig), str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert 'error: GET /api/v1/nodes: 403 Forbidden: nodes is forbidden: User "u"' in err
    assert not (tmp_path / "out").exists()  # nothing half written

    missing = tmp_path / "nowhere"
    assert main(["snapshot", "--kubeconfig", str(missing), str(tmp_path / "out")]) == 2
    assert f"kubeconfig {missing} does not exist" in capsys.readouterr().err
