"""`kubesched plugins`: every plugin the installed distributions declare, JSON and table."""

from __future__ import annotations

import importlib.metadata
import json
from typing import Any

import pytest

from kubesched.cli._main import main

# The first builtin plugins and their extension points (upstream: the plugins' Go types in
# pkg/scheduler/framework/plugins/*; EnqueueExtensions is not an extension point here).
BUILTIN = {
    "PrioritySort": ["QueueSort"],
    "SchedulingGates": ["PreEnqueue"],
    "NodeUnschedulable": ["Filter"],
    "NodeName": ["Filter"],
    "NodeResourcesFit": ["PreFilter", "Filter", "PreScore", "Score"],
    "DefaultBinder": ["Bind"],
}
ROW_KEYS = {"name", "distribution", "version", "extensionPoints", "value", "status", "error"}


def _rows(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    code = main(["plugins", "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    rows: list[dict[str, Any]] = json.loads(captured.out)
    return rows


def test_json_lists_the_builtin_plugins(capsys: pytest.CaptureFixture[str]) -> None:
    rows = {r["name"]: r for r in _rows(capsys)}
    version = importlib.metadata.version("kubesched-builtin")

    for name, points in BUILTIN.items():
        row = rows[name]
        assert row["distribution"] == "kubesched-builtin", name
        assert row["version"] == version
        assert row["status"] == "ok"
        assert row["error"] is None
        assert row["extensionPoints"] == points, name
        assert row["value"].startswith("kubesched_builtin."), row["value"]
        assert row["value"].endswith(f":{name}"), row["value"]


def test_json_rows_are_complete_and_sorted(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _rows(capsys)

    assert rows
    for row in rows:
        assert set(row) == ROW_KEYS
        assert row["status"] in ("ok", "broken")
        assert (row["error"] is None) == (row["status"] == "ok")
    keys = [(r["distribution"] or "", r["name"]) for r in rows]
    assert keys == sorted(keys)
    names = [r["name"] for r in rows]
    assert len(names) == len(set(names))


def test_table_shows_each_builtin_plugin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # one row per plugin, nothing wrapped
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out

    assert "Installed plugins" in out
    lines = out.splitlines()
    for name, points in BUILTIN.items():
        (line,) = [ln for ln in lines if f" {name} " in ln]
        assert "kubesched-builtin" in line
        assert ", ".join(points) in line
        assert " ok " in line
