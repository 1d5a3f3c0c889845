"""A real control plane for integration tests and benchmarks, in the envtest convention.

`KUBEBUILDER_ASSETS` names a folder holding `etcd` and `kube-apiserver` (what
`setup-envtest use -p path` prints). `Envtest.start()` runs them on loopback ports:
etcd with a throw-away data dir, kube-apiserver with a self-signed serving certificate,
RBAC, static bearer tokens (an admin in system:masters, and the kubesched ServiceAccount's
user name, so the example's RBAC applies to it unchanged) and no ServiceAccount admission
(no controller-manager creates the `default` ServiceAccounts).

What such an API server does that matters to these tests, as any kube-apiserver:

- its other default admission plugins run. TaintNodesByCondition
  (plugin/pkg/admission/nodetaint) taints every new Node
  `node.kubernetes.io/not-ready:NoSchedule`, and nothing here would lift it: on a cluster
  the Node's kubelet posts `Ready=True` and the node lifecycle controller of
  kube-controller-manager (pkg/controller/nodelifecycle) then removes the taint, and envtest
  runs neither. So `create_node` does both itself, through the API, right after creating
  the Node (`make_node_ready`, which the fake API server's tests share).
  Priority and DefaultTolerationSeconds fill in pods' `priority` and NoExecute tolerations;
  NamespaceLifecycle refuses objects in a namespace that does not exist (the tests create
  theirs; `default`, `kube-system`, `kube-public` and `kube-node-lease` exist from the start);
- every write that changes an object gives it a new resourceVersion and every watcher one
  event: the Node's create, its status write and its taint patch are ADDED, MODIFIED,
  MODIFIED; a write that changes nothing is neither stored nor sent.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import ssl
import subprocess
import textwrap
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from kubesched.testing.apiserver._node_lifecycle import make_node_ready
from kubesched.testing.apiserver._server import node_raw

__all__ = [
    "ADMIN_TOKEN",
    "KUBESCHED_TOKEN",
    "KUBESCHED_USER",
    "Envtest",
    "apply",
    "assets",
    "create_node",
    "free_port",
]

ADMIN_TOKEN = "envtest-admin-token"
KUBESCHED_TOKEN = "envtest-kubesched-token"
KUBESCHED_USER = "system:serviceaccount:kubesched:kubesched"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def assets() -> Path | None:
    folder = os.environ.get("KUBEBUILDER_ASSETS")
    if not folder:
        return None
    path = Path(folder)
    if not (path / "etcd").exists() or not (path / "kube-apiserver").exists():
        return None
    return path


def _service_account_key(path: Path) -> None:
    """An RSA key for --service-account-(signing-)key-file, which the API server requires."""
    try:
        from cryptography.hazmat.primitives import serialization  # type: ignore[import-not-found]
        from cryptography.hazmat.primitives.asymmetric import rsa  # type: ignore[import-not-found]
    except ImportError:
        openssl = shutil.which("openssl")
        if openssl is None:
            raise RuntimeError("needs `cryptography` or the `openssl` command") from None
        subprocess.run(
            [openssl, "genrsa", "-out", str(path), "2048"], check=True, capture_output=True
        )
        return
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
    )


class Envtest:
    """etcd + kube-apiserver under `workdir`; `stop()` ends both."""

    def __init__(self, binaries: Path, workdir: Path) -> None:
        self.binaries = binaries
        self.workdir = workdir
        self.port = free_port()
        self.url = f"https://127.0.0.1:{self.port}"
        self._processes: list[tuple[str, subprocess.Popen[bytes]]] = []
        self._ssl = ssl.create_default_context()
        self._ssl.check_hostname = False
        self._ssl.verify_mode = ssl.CERT_NONE

    # -- lifecycle ----------------------------------------------------------------------
    def start(self) -> None:
        etcd_port, peer_port = free_port(), free_port()
        etcd_url, peer_url = f"http://127.0.0.1:{etcd_port}", f"http://127.0.0.1:{peer_port}"
        self._spawn(
            "etcd",
            [
                str(self.binaries / "etcd"),
                "--name=envtest",
                f"--data-dir={self.workdir / 'etcd'}",
                f"--listen-client-urls={etcd_url}",
                f"--advertise-client-urls={etcd_url}",
                f"--listen-peer-urls={peer_url}",
                f"--initial-advertise-peer-urls={peer_url}",
                f"--initial-cluster=envtest={peer_url}",
                "--unsafe-no-fsync=true",
            ],
        )
        tokens = self.workdir / "tokens.csv"
        tokens.write_text(
            f'{ADMIN_TOKEN},admin,admin,"system:masters"\n'
            f"{KUBESCHED_TOKEN},{KUBESCHED_USER},kubesched,"
            f'"system:serviceaccounts,system:serviceaccounts:kubesched"\n'
        )
        key = self.workdir / "sa.key"
        _service_account_key(key)
        self._spawn(
            "kube-apiserver",
            [
                str(self.binaries / "kube-apiserver"),
                f"--etcd-servers={etcd_url}",
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                f"--secure-port={self.port}",
                f"--cert-dir={self.workdir / 'certs'}",
                "--service-cluster-ip-range=10.0.0.0/24",
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                f"--service-account-key-file={key}",
                f"--service-account-signing-key-file={key}",
                f"--token-auth-file={tokens}",
                "--authorization-mode=RBAC",
                "--disable-admission-plugins=ServiceAccount",
                "--allow-privileged=true",
            ],
        )
        self._wait_ready(timeout=90.0)

    def _spawn(self, name: str, argv: list[str]) -> None:
        log = (self.workdir / f"{name}.log").open("wb")
        self._processes.append((name, subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)))

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            for name, proc in self._processes:
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited: see {self.workdir}/{name}.log")
            try:
                status, body = self.request("GET", "/readyz")
                if status == 200:
                    # the bootstrap namespaces and RBAC roles come with readiness
                    return
                last = body
            except OSError as exc:
                last = str(exc)
            time.sleep(0.25)
        raise RuntimeError(f"kube-apiserver not ready after {timeout} s: {last}")

    def stop(self) -> None:
        for _, proc in reversed(self._processes):
            proc.terminate()
        for _, proc in reversed(self._processes):
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    # -- requests as the admin -----------------------------------------------------------
    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        content_type: str = "application/json",
        token: str = ADMIN_TOKEN,
    ) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {token}")
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, context=self._ssl, timeout=30) as response:
                text = response.read().decode()
                status = response.status
        except urllib.error.HTTPError as exc:
            text, status = exc.read().decode(), exc.code
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def ok(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        status, answer = self.request(method, path, body, **kwargs)
        if not 200 <= status < 300:
            raise AssertionError(f"{method} {path}: {status} {answer}")
        return answer

    def kubeconfig(self, path: Path, token: str) -> Path:
        path.write_text(
            textwrap.dedent(
                f"""
                apiVersion: v1
                kind: Config
                clusters:
                  - name: envtest
                    cluster: {{server: "{self.url}", insecure-skip-tls-verify: true}}
                users:
                  - name: user
                    user: {{token: {token}}}
                contexts:
                  - name: envtest
                    context: {{cluster: envtest, user: user}}
                current-context: envtest
                """
            )
        )
        return path


def create_node(env: Envtest, name: str, cpu: str) -> list[dict[str, Any]]:
    """Create a Node, then make it ready as its kubelet and the node lifecycle controller
    would (see the module docstring). Returns the objects written, in order: the watch
    events a real API server sends for them are ADDED, MODIFIED, MODIFIED."""
    created: dict[str, Any] = env.ok("POST", "/api/v1/nodes", node_raw(name, cpu=cpu))

    def patch(path: str, body: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = env.ok(
            "PATCH", path, body, content_type="application/strategic-merge-patch+json"
        )
        return answer

    return [created, *make_node_ready(patch, name)]


_PATHS = {
    "Namespace": "/api/v1/namespaces",
    "ServiceAccount": "/api/v1/namespaces/{ns}/serviceaccounts",
    "ConfigMap": "/api/v1/namespaces/{ns}/configmaps",
    "ClusterRole": "/apis/rbac.authorization.k8s.io/v1/clusterroles",
    "ClusterRoleBinding": "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    "Role": "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles",
    "RoleBinding": "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings",
}


def apply(env: Envtest, docs: list[dict[str, Any]]) -> None:
    """Create the kinds the deploy example holds (not its Deployment: nothing runs pods)."""
    for doc in docs:
        template = _PATHS.get(doc["kind"])
        if template is None:
            continue
        path = template.format(ns=doc["metadata"].get("namespace", "default"))
        status, answer = env.request("POST", path, doc)
        if status not in (201, 409):
            raise AssertionError(f"creating {doc['kind']} {doc['metadata']['name']}: {answer}")
