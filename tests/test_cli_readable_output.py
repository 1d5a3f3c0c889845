"""What `kubesched simulate`, `plugins` and `conformance` print reads whole at 80 columns
and in a pipe or CI log (no COLUMNS, not a terminal): names are never cut (they are copied
into configs and commands), messages are complete once their wrapped lines are joined, and
no line is wider than the console."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from table_text import TextTable, normalized, read_tables

from kubesched.cli._conformance import render_report
from kubesched.cli._console import PIPE_WIDTH
from kubesched.cli._main import main
from kubesched.runtime import PluginRegistry
from kubesched.testing._runner import CheckResult, ConformanceReport

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = [ROOT / "examples" / name for name in ("basic", "preemption", "taints")]
WIDTHS = [pytest.param("80", 80, id="COLUMNS=80"), pytest.param(None, PIPE_WIDTH, id="pipe")]


def run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    columns: str | None,
    *args: str,
) -> str:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    code = main(list(args))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def check_lines(out: str, width: int) -> None:
    assert "…" not in out
    too_wide = [line for line in out.splitlines() if len(line) > width]
    assert not too_wide, too_wide


def table(out: str, title: str) -> TextTable:
    (found,) = [t for t in read_tables(out) if t.title.startswith(title)]
    return found


def messages(out: str, keys: list[str]) -> dict[str, str]:
    """Each pod's message as printed: the Message column, or (on a narrow console) the
    `ns/name: message` paragraphs under `Messages`."""
    pods = table(out, "Pods")
    if "Message" in pods.header:
        shown = zip(pods.column("Pod"), pods.column("Message"), strict=True)
        return {key: message for key, message in shown if message}
    lines = out.splitlines()
    start = lines.index("Messages") + 1
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in lines[start:]:
        key = next((k for k in keys if line.startswith(f"{k}: ")), None)
        if key is not None:
            current = found.setdefault(key, [line.removeprefix(f"{key}: ")])
        elif line.startswith(("Nodes", "┏")) or current is None:
            break
        else:
            current.append(line)
    return {k: normalized(" ".join(v)) for k, v in found.items()}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
@pytest.mark.parametrize(("columns", "width"), WIDTHS)
def test_simulate_table_keeps_names_whole_and_messages_complete(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    example: Path,
    columns: str | None,
    width: int,
) -> None:
    data = json.loads(run(capsys, monkeypatch, None, "simulate", str(example), "-o", "json"))
    out = run(capsys, monkeypatch, columns, "simulate", str(example), "--no-progress")

    check_lines(out, width)
    pods = table(out, "Pods")
    want = {f"{p['namespace']}/{p['name']}": p for p in data["pods"]}
    assert pods.column("Pod") == list(want)
    for key, pod in want.items():
        row = pods.row(key)
        assert (row["Node"], row["Status"]) == (pod["node"] or "-", pod["status"])
    shown = messages(out, list(want))
    assert shown == {k: normalized(p["message"]) for k, p in want.items() if p["message"]}
    nodes = table(out, "Nodes")
    assert nodes.column("Node") == [n["name"] for n in data["nodes"]]


@pytest.mark.parametrize(("columns", "width"), WIDTHS)
def test_explain_names_every_plugin_whole(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    columns: str | None,
    width: int,
) -> None:
    basic = str(ROOT / "examples" / "basic")
    args = ["simulate", basic, "--explain", "web-2", "--explain", "batch-big"]
    data = json.loads(run(capsys, monkeypatch, None, *args, "-o", "json"))
    out = run(capsys, monkeypatch, columns, *args, "--no-progress")

    check_lines(out, width)
    scored = data["explanations"]["default/web-2"]["nodes"]
    scorers = {name for n in scored for name in n.get("rawScores") or {}}
    assert "NodeResourcesBalancedAllocation" in scorers
    words = set(out.replace(",", " ").replace(":", " ").split())
    assert scorers <= words
    rejected = next(t for t in read_tables(out) if t.title == "Filter")  # web-2's
    assert (
        "NodeUnschedulable: UnschedulableAndUnresolvable: node(s) were unschedulable"
        in (rejected.row("node-c")["Rejected by (plugin: code: reason)"])
    )


@pytest.mark.parametrize(("columns", "width"), WIDTHS)
def test_plugins_table_names_every_plugin_and_distribution_whole(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    columns: str | None,
    width: int,
) -> None:
    out = run(capsys, monkeypatch, columns, "plugins")

    check_lines(out, width)
    entries = PluginRegistry.discover().entries.values()
    tables = [t for t in read_tables(out) if t.title.startswith("Installed plugins")]
    rows = {row[0]: row for t in tables for row in t.rows}
    assert set(rows) == {e.name for e in entries}
    for e in entries:
        points = ", ".join(e.extension_points)
        assert points in rows[e.name], e.name  # wrapped at its spaces, joined back
        assert any(e.distribution in t.title or e.distribution in rows[e.name] for t in tables)


def test_conformance_report_details_read_whole_at_80_columns() -> None:
    detail = (
        'kubesched.cluster.memory.AdmissionError: Pod "incoming" is invalid: '
        "spec.containers[0].resources.limits: Required value: Limit must be set"
    )
    report = ConformanceReport(
        "NodeResourcesBalancedAllocation",
        [
            CheckResult("PreFilterExtensions", "add_pod then remove_pod", "t1", "passed"),
            CheckResult("Filter", "Filter never mutates the snapshot", "t2", "failed", detail),
        ],
    )
    console = Console(file=io.StringIO(), width=80, record=True, color_system=None)
    render_report(report, console, details=False)
    out = console.export_text()

    check_lines(out, 80)
    (checks,) = read_tables(out)
    assert checks.title == "Conformance of NodeResourcesBalancedAllocation"
    assert checks.column("Point") == ["PreFilterExtensions", "Filter"]
    # a word longer than its column folds; nothing is dropped
    assert checks.rows[1][3].replace(" ", "") == detail.replace(" ", "")


def test_summary_only_prints_the_summary_and_reasons(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    basic = str(ROOT / "examples" / "basic")
    out = run(capsys, monkeypatch, "80", "simulate", basic, "--no-progress", "--summary")

    check_lines(out, 80)
    assert [t.title for t in read_tables(out)] == ["Why pods are not bound"]
    assert normalized(out).startswith(
        "7 pods: 5 bound, 1 unschedulable, 0 waiting, 1 pending on 3 nodes "
        "(5 attempts, 0.0s virtual time, seed 0)"
    )
    reasons = table(out, "Why pods are not bound")
    assert reasons.header == ["Pods", "Status", "Message"]
    assert reasons.rows == [
        [
            "1",
            "Unschedulable",
            "0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu. "
            "no new claims to deallocate, "
            "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
        ],
        [
            "1",
            "Pending",
            'no profile for schedulerName "my-other-scheduler": pod left to another scheduler',
        ],
    ]

    data = json.loads(run(capsys, monkeypatch, None, "simulate", basic, "-o", "json", "--summary"))
    assert set(data) == {"version", "summary", "reasons", "skipped"}
    assert data["summary"]["pods"] == 7
    assert [(r["status"], r["count"]) for r in data["reasons"]] == [
        ("Unschedulable", 1),
        ("Pending", 1),
    ]


def test_only_lists_the_pods_of_those_statuses(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    basic = str(ROOT / "examples" / "basic")
    args = ["simulate", basic, "--no-progress", "--only", "unschedulable", "--only", "Pending"]
    out = run(capsys, monkeypatch, None, *args)

    pods = table(out, "Pods")
    assert pods.title == "Pods (Unschedulable, Pending: 2 of 7)"
    assert pods.column("Pod") == ["default/batch-big", "default/other-scheduler"]
    assert "7 pods: 5 bound" in out  # the summary counts every pod

    data: dict[str, Any] = json.loads(run(capsys, monkeypatch, None, *args, "-o", "json"))
    assert [p["name"] for p in data["pods"]] == ["batch-big", "other-scheduler"]
    assert data["summary"]["pods"] == 7


def test_only_rejects_an_unknown_status(capsys: pytest.CaptureFixture[str]) -> None:
    basic = str(ROOT / "examples" / "basic")
    assert main(["simulate", basic, "--only", "Lost"]) == 2
    err = capsys.readouterr().err
    assert "Invalid value for '--only': 'Lost' is not one of 'bound', 'unschedulable'" in err


# -- what the input and the config leave out -----------------------------------------------


def dump(tmp_path: Path) -> Path:
    """A cluster dump: nodes and pods among 120 ConfigMaps, 3 Secrets and a CronJob."""
    docs = [
        f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{i}, namespace: default}}\n"
        for i in range(120)
    ]
    docs[5:5] = [f"apiVersion: v1\nkind: Secret\nmetadata: {{name: s-{i}}}\n" for i in range(3)]
    docs.append("apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\n")
    path = tmp_path / "dump.yaml"
    path.write_text("---\n".join(docs), encoding="utf-8")
    return path


def test_skipped_objects_are_counted_per_kind(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = dump(tmp_path)
    basic = str(ROOT / "examples" / "basic")
    out = run(capsys, monkeypatch, None, "simulate", basic, str(path), "--no-progress")

    skipped = [line for line in out.splitlines() if line.startswith("skipped")]
    assert skipped == [
        f"skipped 120 objects (first {path} document 1): "
        'kind "ConfigMap" (v1) is not registered by any installed package',
        f"skipped 3 objects (first {path} document 6): "
        'kind "Secret" (v1) is not registered by any installed package',
        f"skipped {path} document 124: "
        'kind "CronJob" (batch/v1) is not registered by any installed package',
    ]

    data = json.loads(run(capsys, monkeypatch, None, "simulate", basic, str(path), "-o", "json"))
    assert [(s["kind"], s["count"], s["document"]) for s in data["skipped"]] == [
        ("ConfigMap", 120, 1),
        ("Secret", 3, 6),
        ("CronJob", 1, 124),
    ]
    assert data["summary"]["pods"] == 7


@pytest.mark.parametrize("output", ["table", "json"])
def test_empty_input_warns_on_stderr_and_exits_0(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, output: str
) -> None:
    (tmp_path / "empty.yaml").write_text("# nothing yet\n", encoding="utf-8")
    assert main(["simulate", str(tmp_path), "--no-progress", "-o", output]) == 0
    captured = capsys.readouterr()

    assert captured.err == (
        f"warning: no objects to simulate in {tmp_path} (1 manifest file read)\n"
    )
    if output == "json":
        assert json.loads(captured.out)["summary"]["pods"] == 0


def test_only_skipped_objects_is_empty_input_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = dump(tmp_path)
    assert main(["simulate", str(path), "--no-progress", "-o", "json"]) == 0
    err = capsys.readouterr().err
    assert err == (
        f"warning: no objects to simulate in {path} (1 manifest file read, 124 objects skipped)\n"
    )


def test_json_keeps_notices_on_stderr(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    discover = PluginRegistry.discover

    def without_image_locality() -> PluginRegistry:  # as if its package did not have it
        registry = discover()
        registry.entries.pop("ImageLocality", None)
        return registry

    monkeypatch.setattr(PluginRegistry, "discover", staticmethod(without_image_locality))
    basic = str(ROOT / "examples" / "basic")
    assert main(["simulate", basic, "--no-progress", "-o", "json"]) == 0
    captured = capsys.readouterr()

    data = json.loads(captured.out)  # stdout is JSON and nothing else
    assert data["summary"]["pods"] == 7
    assert "default plugins left out" in captured.err
    assert "ImageLocality" in captured.err
    assert "left out" not in captured.out
