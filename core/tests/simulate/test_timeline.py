"""The report's timeline (`kubesched.simulate._timeline`): pod counts over virtual time, each
pod's created / bound / finished times and scheduling latency, the percentiles, the
compact table, and checkpoints in the `--summary` JSON."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from rich.console import Console

from kubesched.api import POD_SCHEDULED
from kubesched.cli._main import main
from kubesched.cli._report import TIMELINE_ROWS, latency_line, render_result, timeline_section
from kubesched.cluster.memory import default_kinds
from kubesched.config import load_config, resolve
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.simulate import (
    Simulation,
    SimulationResult,
    load_manifests,
    load_scenario,
    simulate,
)
from kubesched.simulate._timeline import COUNT_KEYS, TimelinePoint, latency_summary
from kubesched.workloads import register as register_workloads

EPOCH = datetime.fromisoformat("2026-01-01T00:00:00+00:00")
"""The virtual clock's calendar start (kubesched.clock.VirtualClock)."""


def node(name: str, cpu: str = "2") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"}},
    }


def pod(name: str, cpu: str = "1", **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if "duration" in extra:
        meta["annotations"] = {"simulation.kubesched.io/duration": extra.pop("duration")}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {
            "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}],
            **extra,
        },
    }


def scenario(*steps: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "simulation.kubesched.io/v1alpha1",
        "kind": "Scenario",
        "metadata": {"name": "t"},
        "steps": list(steps),
    }


def write(tmp_path: Path, objects: list[dict[str, Any]], steps: dict[str, Any] | None) -> list[str]:
    manifests = tmp_path / "cluster.yaml"
    manifests.write_text(yaml.safe_dump_all(objects), encoding="utf-8")
    args = [str(manifests)]
    if steps is not None:
        path = tmp_path / "scenario.yaml"
        path.write_text(yaml.safe_dump(steps), encoding="utf-8")
        args += ["--scenario", str(path)]
    return args


# n1 has 2 cpus: `big` (2) waits for n2, added at 30s; `short` runs 45s; `late`, created at
# 60s, takes the cpu `short` freed; `existing` is bound in the input.
OBJECTS = [
    node("n1"),
    pod("short", duration="45s"),
    pod("big", cpu="2"),
    pod("existing", nodeName="n1", cpu="0"),
]
STEPS = scenario(
    {"at": "10s", "checkpoint": "waiting"},
    {"at": "30s", "addNode": node("n2")},
    {"at": "60s", "create": pod("late", cpu="1")},
    {"at": "90s", "checkpoint": "end"},
)


def simulation(tmp_path: Path) -> Simulation:
    """The run of OBJECTS and STEPS, before it runs (its cluster is read afterwards)."""
    manifests, _, steps_file = write(tmp_path, OBJECTS, STEPS)
    pm = make_plugin_manager()
    register_workloads(pm)
    registry = PluginRegistry.discover()
    loaded = load_manifests([manifests], default_kinds(pm))
    return Simulation(
        loaded.objects,
        resolve(load_config(None), registry, None),
        registry,
        hooks=pm,
        origins=loaded.origins,
        scenario=load_scenario(steps_file, default_kinds(pm)),
    )


def run(tmp_path: Path) -> SimulationResult:
    return simulation(tmp_path).run()


def times(result: SimulationResult) -> dict[str, tuple[Any, ...]]:
    out = {}
    for p in result.pods:
        d = p.to_json_dict()
        out[p.name] = (d["createdAt"], d["boundAt"], d["finishedAt"], d["latencySeconds"])
    return out


def test_each_pod_has_its_created_bound_and_finished_times(tmp_path: Path) -> None:
    result = run(tmp_path)
    assert times(result) == {
        "short": (0.0, 0.0, 45.0, 0.0),
        # no room on n1 (short holds 1 of 2 cpus) until n2 joins at 30s
        "big": (0.0, 30.0, None, 30.0),
        # bound in the input: never placed by the scheduler, so no latency
        "existing": (0.0, 0.0, None, None),
        "late": (60.0, 60.0, None, 0.0),
    }
    assert result.pod("short").status == "Succeeded"
    # every pod the scheduler bound, `existing` left out
    assert result.latencies == [0.0, 0.0, 30.0]
    assert result.latency == {"pods": 3, "p50": 0.0, "p90": 30.0, "p99": 30.0, "max": 30.0}


def test_the_times_are_the_instants_the_pods_own_timestamps_record(tmp_path: Path) -> None:
    """createdAt and boundAt are the run's clock at the pod's creationTimestamp and at its
    PodScheduled condition's lastTransitionTime (whole seconds there)."""
    sim = simulation(tmp_path)
    result = sim.run()
    checked = 0
    for p in sim.cluster.list("Pod"):
        recorded = result.pod(p.metadata.name).times
        assert recorded is not None
        assert p.metadata.creation_timestamp is not None
        assert recorded.created == (p.metadata.creation_timestamp - EPOCH).total_seconds()
        scheduled = p.status.condition(POD_SCHEDULED)
        if scheduled is not None and scheduled.last_transition_time is not None:
            assert scheduled.status == "True"
            assert recorded.bound == (scheduled.last_transition_time - EPOCH).total_seconds()
            checked += 1
    assert checked == 3  # short, big and late; `existing` never had a Binding


def test_the_timeline_has_a_point_per_instant_the_counts_changed(tmp_path: Path) -> None:
    result = run(tmp_path)
    points = [p.to_json_dict() for p in result.timeline]
    assert [list(p) for p in points] == [["at", *COUNT_KEYS]] * len(points)
    assert [
        (p["at"], p["pods"], p["pending"], p["bound"], p["succeeded"], p["nodes"]) for p in points
    ] == [
        (0.0, 3, 1, 2, 0, 1),
        (30.0, 3, 0, 3, 0, 2),
        (45.0, 3, 0, 2, 1, 2),
        (60.0, 4, 0, 3, 1, 2),
    ]
    data = result.to_json_dict()
    assert data["timeline"]["points"] == points
    assert data["timeline"]["latency"] == result.latency
    # the checkpoints count as the timeline does
    waiting, end = data["checkpoints"]
    assert {k: waiting[k] for k in COUNT_KEYS} == {k: points[0][k] for k in COUNT_KEYS}
    assert {k: end[k] for k in COUNT_KEYS} == {k: points[-1][k] for k in COUNT_KEYS}


def test_the_same_input_gives_the_same_timeline(tmp_path: Path) -> None:
    first, second = run(tmp_path), run(tmp_path)
    assert first.to_json_dict()["timeline"] == second.to_json_dict()["timeline"]
    assert times(first) == times(second)


def test_summary_json_has_the_checkpoints_counts_without_placements(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = write(tmp_path, OBJECTS, STEPS)
    assert main(["simulate", *args, "-o", "json", "--summary", "--no-progress"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"summary", "reasons", "skipped", "checkpoints"} <= set(data)
    assert "pods" not in data and "timeline" not in data
    assert [c["name"] for c in data["checkpoints"]] == ["waiting", "end"]
    assert data["checkpoints"][0] == {
        "name": "waiting",
        "step": 0,
        "at": 10.0,
        **dict(zip(COUNT_KEYS, (3, 2, 1, 0, 0, 0, 1), strict=True)),
    }

    plain = write(tmp_path, OBJECTS, None)
    assert main(["simulate", *plain, "-o", "json", "--summary", "--no-progress"]) == 0
    assert "checkpoints" not in json.loads(capsys.readouterr().out)


def test_the_table_shows_the_timeline_and_the_latency(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    args = write(tmp_path, OBJECTS, STEPS)
    assert main(["simulate", *args, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Timeline" in out
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in out.splitlines()]
    timeline = [r for r in rows if r and r[0] in ("0s", "30s", "45s", "60s")]
    # At, Pods, Pending, Bound, Succeeded (Terminating and Failed never happen), Nodes
    assert timeline == [
        ["0s", "3", "1", "2", "0", "1"],
        ["30s", "3", "0", "3", "0", "2"],
        ["45s", "3", "0", "2", "1", "2"],
        ["60s", "4", "0", "3", "1", "2"],
    ]
    assert (
        "Scheduling latency of 3 pods (created → bound): p50 0s, p90 30s, p99 30s, max 30s" in out
    )


def test_a_run_whose_counts_never_change_has_no_timeline_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = write(tmp_path, [node("n1"), pod("a")], None)
    assert main(["simulate", *args, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Timeline" not in out
    assert "Scheduling latency of 1 pod (created → bound): p50 0s" in out


def test_no_latency_line_when_the_scheduler_bound_nothing() -> None:
    result = SimulationResult(pods=[], nodes=[], virtual_seconds=0.0, seed=0, attempts=0)
    assert latency_line(result) == ""
    assert result.to_json_dict()["timeline"] == {
        "points": [],
        "latency": {"pods": 0, "p50": None, "p90": None, "p99": None, "max": None},
    }


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([], (None, None, None, None)),
        ([7.0], (7.0, 7.0, 7.0, 7.0)),
        # nearest rank: the smallest value with at least p% of the values at or below it
        ([float(v) for v in range(10, 0, -1)], (5.0, 9.0, 10.0, 10.0)),
        ([0.0] * 99 + [1.5], (0.0, 0.0, 0.0, 1.5)),
        ([0.0] * 98 + [1.0, 2.0], (0.0, 0.0, 1.0, 2.0)),
    ],
)
def test_latency_percentiles(values: list[float], expected: tuple[Any, ...]) -> None:
    summary = latency_summary(values)
    assert summary["pods"] == len(values)
    assert (summary["p50"], summary["p90"], summary["p99"], summary["max"]) == expected


def test_a_long_timeline_is_sampled_into_equal_spans() -> None:
    # one pod bound every 10 s for 1000 s: 101 points
    points = [TimelinePoint(10.0 * i, (100, i, 100 - i, 0, 0, 0, 1)) for i in range(101)]
    section = timeline_section(points)
    assert len(section.rows) <= TIMELINE_ROWS + 1
    assert section.rows[0][0] == "0s" and section.rows[-1][0] == "1000s"
    # each row is a real point, in time order, the first and the last included
    ats = [float(r[0].removesuffix("s")) for r in section.rows]
    assert ats == sorted(ats) and len(set(ats)) == len(ats)
    assert all(
        r[1:] == ("100", str(100 - int(a) // 10), str(int(a) // 10), "1")
        for r, a in zip(section.rows, ats, strict=True)
    )
    assert section.columns == ("At", "Pods", "Pending", "Bound", "Nodes")
    assert "101 changes" in section.caption

    few = timeline_section(points[:5])
    assert len(few.rows) == 5 and few.caption == ""


def test_the_table_fits_a_narrow_console(tmp_path: Path) -> None:
    result = run(tmp_path)
    console = Console(width=60, record=True, color_system=None)
    render_result(result, console)
    assert all(len(line) <= 60 for line in console.export_text().splitlines())


def test_a_job_a_scenario_resumes_and_its_deadline_show_in_the_timeline(tmp_path: Path) -> None:
    """A Job created suspended makes its pods when a `patch` step resumes it at 60s; they run
    30s, two at a time; its deadline (100s after the resume) ends the fourth round."""
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "batch", "namespace": "default"},
        "spec": {
            "suspend": True,
            "parallelism": 2,
            "completions": 8,
            "activeDeadlineSeconds": 100,
            "template": {
                "metadata": {"annotations": {"simulation.kubesched.io/duration": "30s"}},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {"name": "c", "image": "x", "resources": {"requests": {"cpu": "1"}}}
                    ],
                },
            },
        },
    }
    steps = scenario(
        {
            "at": "60s",
            "patch": {"kind": "Job", "name": "batch", "patch": {"spec": {"suspend": False}}},
        },
    )
    manifests, _, steps_file = write(tmp_path, [node("n1"), job], steps)
    result = simulate([manifests], scenario=steps_file)
    points = [(p.at, p.count("bound"), p.count("succeeded")) for p in result.timeline]
    # nothing until the resume; rounds of two pods every 30 s; at 160 s the deadline
    # deletes the round then running (its pods terminate for their grace period)
    assert points[:5] == [(0.0, 0, 0), (60.0, 2, 0), (90.0, 2, 2), (120.0, 2, 4), (150.0, 2, 6)]
    assert points[-1][1:] == (0, 6)
    created = sorted(p.times.created for p in result.pods if p.times is not None)
    # the fourth round was deleted: gone from the pods, still among the latencies
    assert created == [60.0, 60.0, 90.0, 90.0, 120.0, 120.0]
    assert result.latencies == [0.0] * 8
    [workload] = result.section("workloads").payload
    assert workload["message"] == "Failed: Job was active longer than specified deadline"
