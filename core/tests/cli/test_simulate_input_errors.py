"""`kubesched simulate` refuses what the API server (or `kubectl apply`) would refuse, in one
line naming the file and document, and exits 2 (issue 12)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kubesched.cli._main import EXIT_BAD_INPUT, main

NODE = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def pod(name: str, container: str = "{name: app, image: nginx:1.27}", extra: str = "") -> str:
    return f"""\
apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:
  containers: [{container}]{extra}
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["simulate", "--no-progress", *args])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, name: str, *documents: str) -> str:
    path = tmp_path / name
    path.write_text("---\n".join(documents), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("documents", "message"),
    [
        (
            [NODE, pod("web-1", '{name: app, image: nginx, resources: {requests: {cpu: "-1"}}}')],
            'document 2: Pod "web-1" is invalid: spec.containers[0].resources.requests[cpu]: '
            'Invalid value: "-1": must be greater than or equal to 0',
        ),
        (
            [NODE.replace('cpu: "4"', 'cpu: "-4"'), pod("web-1")],
            'document 1: Node "n1" is invalid: status.allocatable.cpu: Invalid value: "-4": must '
            "be greater than or equal to 0",
        ),
        (
            [NODE, "apiVersion: v1\nkind: Pod\nmetadata: {name: web-1}\nspec: {containers: []}\n"],
            'document 2: Pod "web-1" is invalid: spec.containers: Required value',
        ),
        (
            [NODE, pod("web-1", '{name: app, image: nginx, resource: {requests: {cpu: "1"}}}')],
            'document 2: spec.containers[0].resource: unknown field "resource" (did you mean '
            '"resources"?)',
        ),
        (
            [NODE, pod("db"), pod("web", extra="\n  priorityClassName: high")],
            'document 3: pods "web" is forbidden: no PriorityClass with name high was found',
        ),
        (
            [NODE, pod("web-1", extra="\n  tolerations: [{key: k, effect: NoScheduling}]")],
            'document 2: spec.tolerations[0].effect: Unsupported value: "NoScheduling": '
            'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
        ),
    ],
    ids=[
        "negative request",
        "negative allocatable",
        "no containers",
        "misspelt field",
        "missing PriorityClass",
        "unsupported taint effect",
    ],
)
def test_input_the_api_server_would_reject_is_one_line_naming_file_and_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], documents: list[str], message: str
) -> None:
    path = write(tmp_path, "pods.yaml", *documents)
    code, out, err = run(capsys, path)
    assert code == EXIT_BAD_INPUT
    assert err == f"error: {path}: {message}\n"
    assert out == ""


def test_validate_warn_reports_each_unknown_field_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    typo = pod("web-1", "{name: app, image: nginx, resource: {}, imagePullPolcy: Always}")
    path = write(tmp_path, "pods.yaml", NODE, typo)
    code, out, err = run(capsys, "--validate", "warn", "-o", "json", path)
    assert code == 0
    # (JSON output keeps its other notices, the plugins left out, on stderr too)
    assert [line for line in err.splitlines() if line.startswith("warning:")] == [
        f'warning: {path}: document 2: spec.containers[0].resource: unknown field "resource" '
        '(did you mean "resources"?)',
        f"warning: {path}: document 2: spec.containers[0].imagePullPolcy: unknown field "
        '"imagePullPolcy" (did you mean "imagePullPolicy"?)',
    ]
    assert '"status": "Bound"' in out


def test_validate_ignore_looks_for_no_unknown_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "pods.yaml", NODE, pod("web-1", "{name: app, image: x, resource: {}}"))
    code, out, err = run(capsys, "--validate", "ignore", "-o", "json", path)
    assert code == 0
    assert "unknown field" not in err
    assert '"status": "Bound"' in out


def test_validate_takes_only_kubectls_choices(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--validate", "true", "-")
    assert code == 2
    assert "Invalid value for '--validate': 'true' is not one of 'strict', 'warn', 'ignore'" in err


def kubesched(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from kubesched.cli._main import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_dash_reads_manifests_from_stdin() -> None:
    done = kubesched(
        "simulate", "--no-progress", "-o", "json", "-", stdin=NODE + "---\n" + pod("w")
    )
    assert done.returncode == 0, done.stderr
    assert '"name": "w"' in done.stdout
    assert '"node": "n1"' in done.stdout


def test_errors_in_stdin_name_it_stdin() -> None:
    bad = pod("web-1", "{name: app, image: nginx, resource: {}}")
    done = kubesched("simulate", "--no-progress", "-", stdin=NODE + "---\n" + bad)
    assert done.returncode == EXIT_BAD_INPUT
    assert done.stderr == (
        'error: <stdin>: document 2: spec.containers[0].resource: unknown field "resource" '
        '(did you mean "resources"?)\n'
    )


def test_json_on_stdin_is_read_as_json() -> None:
    json_pod = (
        '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "j"}, '
        '"spec": {"containers": [{"name": "app", "image": "x", "resourcez": {}}]}}'
    )
    done = kubesched("simulate", "--no-progress", "-", stdin=json_pod)
    assert done.returncode == EXIT_BAD_INPUT
    assert done.stderr == (
        'error: <stdin>: document 1: spec.containers[0].resourcez: unknown field "resourcez" '
        '(did you mean "resources"?)\n'
    )
