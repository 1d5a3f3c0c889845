"""`kubesched simulate`: its JSON format, its table, virtual time, profiles, seeds, and how
bad input is reported (exit code 2 and one line naming the file and the field)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kubesched.cli._main import EXIT_BAD_INPUT, main
from kubesched.config import DEFAULT_PLUGINS
from kubesched.runtime import PluginRegistry

ROOT = Path(__file__).resolve().parents[1]
BASIC = ROOT / "examples" / "basic"
DATA = Path(__file__).parent / "data"

STATUSES = {"Bound", "Unschedulable", "Error", "Waiting", "Pending", "Preempted", "Terminating"}
POD_KEYS = {
    "namespace",
    "name",
    "schedulerName",
    "node",
    "status",
    "message",
    "attempts",
    "nominatedNode",
    "preemptedBy",
    "preemptedAt",
    "error",
    "createdAt",
    "boundAt",
    "finishedAt",
    "latencySeconds",
}
NODE_KEYS = {"name", "allocatable", "requested", "pods"}
SUMMARY_KEYS = {
    "pods",
    "bound",
    "unschedulable",
    "error",
    "waiting",
    "pending",
    "preempted",
    "terminating",
    "nodes",
    "virtualSeconds",
    "seed",
    "attempts",
}
SKIPPED_KEYS = {"apiVersion", "kind", "count", "file", "document", "reason"}


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> Run:
    code = main(list(args))
    captured = capsys.readouterr()
    return Run(code, captured.out, captured.err)


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    run = _run(capsys, "simulate", *args, "--output", "json")
    assert run.code == 0, run.err
    data: dict[str, Any] = json.loads(run.out)
    return data


# -- output formats ------------------------------------------------------------------------


def test_json_follows_the_documented_schema(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, str(BASIC))

    assert set(data) == {"version", "pods", "nodes", "summary", "skipped", "timeline"}
    assert data["version"] == 1
    assert data["pods"], "the example has pods"
    for pod in data["pods"]:
        assert set(pod) == POD_KEYS
        assert pod["status"] in STATUSES
        if pod["status"] == "Bound":
            assert isinstance(pod["node"], str)
            assert pod["message"] == ""
        else:
            assert pod["node"] is None
            assert pod["message"], f"{pod['name']} is not bound and needs a reason"
    for node in data["nodes"]:
        assert set(node) == NODE_KEYS
        assert {"cpu", "memory", "pods"} <= set(node["allocatable"])
        assert set(node["requested"]) == set(node["allocatable"])
    assert set(data["summary"]) == SUMMARY_KEYS
    summary = data["summary"]
    assert summary["pods"] == len(data["pods"])
    assert summary["nodes"] == len(data["nodes"])
    for status in STATUSES:
        assert summary[status.lower()] == sum(p["status"] == status for p in data["pods"])
    # pods come sorted by namespace and name, so output diffs well
    keys = [(p["namespace"], p["name"]) for p in data["pods"]]
    assert keys == sorted(keys)


def test_table_lists_every_pod_and_the_summary(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "250")  # keep rich from wrapping the summary line
    run = _run(capsys, "simulate", str(BASIC))

    assert run.code == 0, run.err
    for name in ("existing", "critical", "web-1", "web-2", "web-3", "batch-big"):
        assert f"default/{name}" in run.out
    assert "default/other-scheduler" in run.out
    assert (
        "7 pods: 5 bound, 1 unschedulable, 0 waiting, 1 pending on 3 nodes "
        "(5 attempts, 0.0s virtual time, seed 0)"
    ) in run.out
    assert "0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu." in run.out
    for node in ("node-a", "node-b", "node-c"):
        assert node in run.out


# -- virtual time --------------------------------------------------------------------------


def test_until_runs_that_much_virtual_time(capsys: pytest.CaptureFixture[str]) -> None:
    quiescent = _json(capsys, str(BASIC))
    ten_minutes = _json(capsys, str(BASIC), "--until", "10m")

    assert quiescent["summary"]["virtualSeconds"] == 0
    assert ten_minutes["summary"]["virtualSeconds"] == 600
    # after podMaxInUnschedulablePodsDuration (5 min) the unschedulable pod is tried again,
    # and still does not fit; the bound pods are not moved
    # upstream: pkg/scheduler/backend/queue/scheduling_queue.go (flushUnschedulablePodsLeftover)
    big = next(p for p in ten_minutes["pods"] if p["name"] == "batch-big")
    assert big["status"] == "Unschedulable"
    assert big["attempts"] >= 2
    placed = {p["name"]: p["node"] for p in quiescent["pods"]}
    assert {p["name"]: p["node"] for p in ten_minutes["pods"]} == placed


def test_bad_until_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    run = _run(capsys, "simulate", str(BASIC), "--until", "ten minutes")

    assert run.code == EXIT_BAD_INPUT
    assert "--until" in run.err
    assert run.out == ""


# -- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        pytest.param(
            ["bad-cpu.yaml"],
            [
                "bad-cpu.yaml",
                "document 2",
                "spec.containers[0].resources.requests.cpu",
                '"1.5.3Gi"',
            ],
            id="bad-quantity",
        ),
        pytest.param(
            ["malformed.yaml"],
            ["malformed.yaml", "invalid YAML", "line 6"],
            id="malformed-yaml",
        ),
        pytest.param(
            ["identical-nodes.yaml", "--config", "config-bad-weight.yaml"],
            [
                "config-bad-weight.yaml",
                "profiles[0].plugins.score.enabled[0].weight",
                '"heavy"',
                "integer",
            ],
            id="bad-weight-type",
        ),
        pytest.param(
            ["identical-nodes.yaml", "--config", "config-unknown-field.yaml"],
            ["config-unknown-field.yaml", "nodeSelectionMode", "unknown field"],
            id="unknown-config-field",
        ),
    ],
)
def test_bad_input_exits_2_naming_file_and_field(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    fragments: list[str],
) -> None:
    monkeypatch.chdir(DATA)
    run = _run(capsys, "simulate", *args, "--output", "json")

    assert run.code == EXIT_BAD_INPUT
    assert run.out == ""  # no partial result
    lines = run.err.strip().splitlines()
    assert len(lines) == 1, run.err
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0]


def test_unknown_plugin_lists_the_installed_plugins(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(DATA)
    run = _run(capsys, "simulate", "identical-nodes.yaml", "--config", "config-unknown-plugin.yaml")

    assert run.code == EXIT_BAD_INPUT
    assert run.out == ""
    assert "config-unknown-plugin.yaml" in run.err
    assert "profiles[0].plugins.filter.enabled[0]" in run.err
    assert '"NoSuchPlugin" does not exist' in run.err
    installed = sorted(PluginRegistry.discover().plugins)
    assert f"installed plugins: {', '.join(installed)}" in run.err


def test_missing_default_plugin_names_its_package(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A default plugin named explicitly but not installed: the error says what to install."""
    plugin = next(p for p in DEFAULT_PLUGINS if p.name == "ImageLocality")
    discover = PluginRegistry.discover

    def without_it() -> PluginRegistry:  # as if its package were not installed
        registry = discover()
        registry.entries.pop(plugin.name, None)
        return registry

    monkeypatch.setattr(PluginRegistry, "discover", staticmethod(without_it))
    config = tmp_path / "config.yaml"
    config.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "profiles:\n"
        "  - schedulerName: default-scheduler\n"
        "    plugins:\n"
        "      multiPoint:\n"
        f"        enabled: [{{name: {plugin.name}}}]\n",
        encoding="utf-8",
    )

    run = _run(capsys, "simulate", str(DATA / "identical-nodes.yaml"), "--config", str(config))

    assert run.code == EXIT_BAD_INPUT
    assert str(config) in run.err
    assert "profiles[0].plugins.multiPoint.enabled[0]" in run.err
    assert f'"{plugin.name}"' in run.err
    assert f"provided by {plugin.distribution}" in run.err


def test_missing_manifest_path_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run = _run(capsys, "simulate", str(tmp_path / "nowhere.yaml"))

    assert run.code == EXIT_BAD_INPUT
    assert "nowhere.yaml" in run.err


# -- what the run covers -------------------------------------------------------------------


def test_two_profiles_route_pods_by_scheduler_name(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(
        capsys,
        str(DATA / "two-profiles"),
        "--config",
        str(DATA / "config-two-profiles.yaml"),
    )
    pods = {p["name"]: p for p in data["pods"]}

    # LeastAllocated spreads to the empty node; the bin-packer's MostAllocated fills node-1
    assert (pods["spread"]["node"], pods["spread"]["schedulerName"]) == (
        "node-2",
        "default-scheduler",
    )
    assert (pods["pack"]["node"], pods["pack"]["schedulerName"]) == ("node-1", "bin-packer")
    assert pods["stray"]["status"] == "Pending"
    assert 'no profile for schedulerName "nobody"' in pods["stray"]["message"]


def test_without_the_second_profile_its_pods_stay_pending(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = _json(capsys, str(DATA / "two-profiles"))
    pack = next(p for p in data["pods"] if p["name"] == "pack")

    assert (pack["node"], pack["status"]) == (None, "Pending")
    assert '"bin-packer"' in pack["message"]


def test_unregistered_kind_is_skipped_not_fatal(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, str(BASIC), str(DATA / "cronjob.yaml"))

    assert data["skipped"] == [
        {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "count": 1,
            "file": str(DATA / "cronjob.yaml"),
            "document": 1,
            "reason": 'kind "CronJob" (batch/v1) is not registered by any installed package',
        }
    ]
    for entry in data["skipped"]:
        assert set(entry) == SKIPPED_KEYS
    # the rest of the run is unaffected
    assert data["summary"]["bound"] == 5


def test_unregistered_kind_is_reported_in_the_table(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    run = _run(capsys, "simulate", str(BASIC), str(DATA / "cronjob.yaml"))

    assert run.code == 0, run.err
    assert f"skipped {DATA / 'cronjob.yaml'} document 1" in run.out
    assert 'kind "CronJob"' in run.out


def test_seed_changes_tie_breaking_not_what_is_bound(capsys: pytest.CaptureFixture[str]) -> None:
    placements: dict[int, dict[str, str | None]] = {}
    bound: dict[int, int] = {}
    for seed in range(6):
        data = _json(capsys, str(DATA / "identical-nodes.yaml"), "--seed", str(seed))
        placements[seed] = {p["name"]: p["node"] for p in data["pods"]}
        bound[seed] = data["summary"]["bound"]
        assert data["summary"]["seed"] == seed

    # the three small pods are bound and huge is not, whatever the seed
    assert set(bound.values()) == {3}
    for placed in placements.values():
        assert placed["huge"] is None
        small = [placed[f"pod-{x}"] for x in "abc"]
        assert None not in small
        assert len(set(small)) == 3  # LeastAllocated: each to its own empty node
    distinct = {tuple(sorted(p.items(), key=lambda kv: kv[0])) for p in placements.values()}
    assert len(distinct) > 1, "some seeds should break the ties differently"
