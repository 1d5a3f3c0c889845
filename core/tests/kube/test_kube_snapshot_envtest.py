"""`kubesched snapshot` of a real kube-apiserver (the envtest convention: KUBEBUILDER_ASSETS
names a folder holding `etcd` and `kube-apiserver`; without it these tests are skipped).

What a real API server adds that the fake one does not (managedFields, its defaulting of
pods, the bootstrap namespaces and PriorityClasses) must not stop `simulate` from reading the
snapshot: Nodes, a Deployment nothing has run yet (no controller manager), a pod already on
its node and a pending one are snapshotted, and the simulation of the folder places the
Deployment's pods and the pending pod and leaves the bound one where it is.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.skipif(
    not os.environ.get("KUBEBUILDER_ASSETS"),
    reason="needs etcd and kube-apiserver binaries: set KUBEBUILDER_ASSETS (envtest convention)",
)

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")
pytest.importorskip("kubesched_builtin", reason="the default profile needs kubesched-builtin")

from kubesched.cli._main import main  # noqa: E402
from kubesched.simulate import simulate  # noqa: E402
from kubesched.testing.apiserver import (  # noqa: E402
    ADMIN_TOKEN,
    Envtest,
    assets,
    create_node,
    pod_raw,
)

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {
                "containers": [
                    {"name": "web", "image": "nginx", "resources": {"requests": {"cpu": "1"}}}
                ]
            },
        },
    },
}


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Envtest]:
    binaries = assets()
    if binaries is None:
        pytest.fail(
            f"KUBEBUILDER_ASSETS={os.environ['KUBEBUILDER_ASSETS']} lacks etcd or kube-apiserver"
        )
    control_plane = Envtest(binaries, tmp_path_factory.mktemp("envtest-snapshot"))
    control_plane.start()
    try:
        create_node(control_plane, "n1", cpu="2")
        create_node(control_plane, "n2", cpu="2")
        control_plane.ok("POST", "/apis/apps/v1/namespaces/default/deployments", DEPLOYMENT)
        pods = "/api/v1/namespaces/default/pods"
        control_plane.ok("POST", pods, pod_raw("pinned", cpu="1", node="n1"))
        control_plane.ok("POST", pods, pod_raw("pending", cpu="1"))
        yield control_plane
    finally:
        control_plane.stop()


def test_a_real_clusters_snapshot_simulates(
    env: Envtest, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kubeconfig = env.kubeconfig(tmp_path / "kubeconfig", ADMIN_TOKEN)
    folder = tmp_path / "snapshot"
    assert main(["snapshot", "--kubeconfig", str(kubeconfig), str(folder)]) == 0
    assert "wrote " in capsys.readouterr().err
    pods = yaml.safe_load((folder / "pods.yaml").read_text())["items"]
    assert sorted(p["metadata"]["name"] for p in pods) == ["pending", "pinned"]
    assert all("managedFields" not in p["metadata"] for p in pods)

    result = simulate([folder])
    assert result.pod("pinned").node == "n1"
    assert result.pod("pending").status == "Bound"
    web = [p for p in result.pods if p.name.startswith("web-")]
    assert len(web) == 2 and all(p.status == "Bound" for p in web)
    # four pods of one cpu on two nodes of two cpus: every cpu is taken
    assert sorted(n.requested["cpu"] for n in result.nodes) == [2000, 2000]


def test_an_anonymized_snapshot_of_a_real_cluster_simulates_alike(
    env: Envtest, tmp_path: Path
) -> None:
    kubeconfig = env.kubeconfig(tmp_path / "kubeconfig", ADMIN_TOKEN)
    folder = tmp_path / "snapshot"
    assert main(["snapshot", "--kubeconfig", str(kubeconfig), "--anonymize", str(folder)]) == 0
    text = "".join(p.read_text() for p in folder.iterdir())
    assert "pinned" not in text and "name: n1" not in text
    result = simulate([folder])
    assert result.summary["bound"] == 4 and result.summary["pods"] == 4
