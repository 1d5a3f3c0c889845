"""`kubesched run` setup mistakes: one line saying what is wrong and what to do, exit 2, no
traceback, before any request is made."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.cli._main import main

KUBECONFIG = """\
apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {{server: "https://127.0.0.1:1", {ca}}}
contexts:
- name: ctx
  context: {{cluster: c, user: u}}
{current}
users:
- name: u
  user: {{token: abc}}
"""


def kubeconfig(
    tmp_path: Path,
    *,
    ca: str = "insecure-skip-tls-verify: true",
    current: str = "current-context: ctx",
) -> str:
    path = tmp_path / "kubeconfig.yaml"
    path.write_text(KUBECONFIG.format(ca=ca, current=current), encoding="utf-8")
    return str(path)


@pytest.fixture(autouse=True)
def outside_a_pod(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"):
        monkeypatch.delenv(var, raising=False)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(["run", "--port", "0", "--no-leader-elect", *args])
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def test_no_kubeconfig_anywhere(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys) == (
        "error: no kubeconfig: ~/.kube/config does not exist and kubesched is not running in "
        "a pod; pass --kubeconfig FILE, set KUBECONFIG, or use --in-cluster inside a pod"
    )


def test_a_kubeconfig_that_does_not_exist(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "nope.yaml"
    assert f"error: kubeconfig {missing} does not exist; pass --kubeconfig FILE" in run(
        capsys, "--kubeconfig", str(missing)
    )


def test_an_unknown_context(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = kubeconfig(tmp_path)
    assert run(capsys, "--kubeconfig", path, "--context", "prod") == (
        f'error: kubeconfig {path} has no context "prod" (contexts: ctx); pass --context with '
        "one of them"
    )


def test_no_current_context(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = kubeconfig(tmp_path, current="")
    assert run(capsys, "--kubeconfig", path) == (
        f"error: kubeconfig {path} sets no current-context; pass --context NAME (contexts: ctx)"
    )


def test_a_malformed_kubeconfig(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("apiVersion: v1\nclusters: [\n", encoding="utf-8")
    assert f"error: kubeconfig {path} is not valid YAML at line 3, column 1: " in run(
        capsys, "--kubeconfig", str(path)
    )


def test_a_kubeconfig_that_is_not_a_mapping(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- a\n- b\n", encoding="utf-8")
    assert "is not a kubeconfig: expected a mapping" in run(capsys, "--kubeconfig", str(path))


def test_a_missing_ca_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    ca = tmp_path / "ca.crt"
    path = kubeconfig(tmp_path, ca=f"certificate-authority: {ca}")
    assert run(capsys, "--kubeconfig", path) == (
        f"error: kubeconfig {path} names {ca}, which does not exist (a certificate-authority, "
        "client-certificate, client-key or tokenFile); fix the path or embed the data "
        "(certificate-authority-data ...)"
    )


def test_in_cluster_outside_a_pod(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--in-cluster") == (
        "error: --in-cluster: not running in a pod (KUBERNETES_SERVICE_HOST and "
        "KUBERNETES_SERVICE_PORT unset); run kubesched in a pod, or pass --kubeconfig FILE"
    )


def test_in_cluster_without_a_service_account(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a pod (the service variables set) but with no token mounted."""
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    line = run(capsys, "--in-cluster")
    assert line.startswith("error: --in-cluster: cannot use the pod's service account: ")
    assert line.endswith(
        "run kubesched in a pod with a service account token mounted, or pass --kubeconfig FILE"
    )


def test_in_cluster_and_kubeconfig_together_are_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert run(capsys, "--in-cluster", "--kubeconfig", kubeconfig(tmp_path)) == (
        "error: --in-cluster and a kubeconfig both say how to connect; give one of them"
    )
