"""A plugin that raises: the attempt ends in an Error status (upstream framework.go wraps it
as `running "X" filter plugin: <err>`), the pod's PodScheduled condition has reason
SchedulerError with that message (schedule_one.go handleSchedulingFailure), and the report
shows the pod as Error with the plugin, the exception and the file:line it was raised at;
the traceback comes with --explain and with --log-level debug."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from test_report_sections import Binder, Sort

from kubesched.api import POD_SCHEDULED, K8sModel, Pod
from kubesched.cli._main import main
from kubesched.cli._report import render_result
from kubesched.config import parse_config, resolve
from kubesched.framework import CycleState, FilterPlugin, NodeInfo, Status
from kubesched.runtime import PluginRegistry
from kubesched.simulate import Simulation, SimulationResult
from kubesched.testing import make_node, make_pod

HERE = Path(__file__).resolve()


def _explode(pod: Pod) -> None:
    # a helper in the plugin's own file: the innermost frame of the plugin's code
    json.loads("{" if pod.metadata.name == "bad" else "{}")


class Boom(FilterPlugin):
    """Raises for the pod named `bad` (inside json, called from the plugin's code)."""

    name = "TestBoom"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        _explode(pod)
        return None


class Broken(FilterPlugin):
    """Returns an Error status without raising."""

    name = "TestBroken"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if pod.metadata.name == "bad":
            return Status.as_error("cannot read the node's labels")
        return None


RAISE_LINE = next(
    i for i, line in enumerate(HERE.read_text().splitlines(), 1) if "json.loads(" in line
)
MESSAGE = (
    'running "TestBoom" filter plugin: plugin TestBoom raised JSONDecodeError: '
    "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
)


def registry(*plugins: type[Any]) -> PluginRegistry:
    reg = PluginRegistry.of(Sort, Binder, *plugins)
    return reg


def config(*plugins: type[Any]) -> dict[str, Any]:
    enabled = [{"name": p.name} for p in (Sort, Binder, *plugins)]
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {"schedulerName": "default-scheduler", "plugins": {"multiPoint": {"enabled": enabled}}}
        ],
    }


def objects() -> list[K8sModel]:
    return [
        make_node("n1").alloc(cpu="4", memory="8Gi", pods=10).obj(),
        make_pod("bad").req(cpu="1").obj(),
        make_pod("good").req(cpu="1").obj(),
    ]


def simulate(plugin: type[Any], explain: tuple[str, ...] = ()) -> tuple[SimulationResult, Pod]:
    reg = registry(plugin)
    resolved = resolve(parse_config(config(plugin)), reg)
    sim = Simulation(objects(), resolved, reg, explain=explain)
    result = sim.run()
    bad = sim.cluster.get("Pod", "bad", "default")
    assert bad is not None
    return result, bad


def test_a_raising_plugin_makes_an_error_with_upstreams_condition() -> None:
    result, bad = simulate(Boom)

    cond = bad.status.condition(POD_SCHEDULED)
    assert cond is not None
    assert (cond.status, cond.reason, cond.message) == ("False", "SchedulerError", MESSAGE)
    pod = result.pod("bad")
    assert (pod.status, pod.node, pod.message) == ("Error", None, MESSAGE)
    assert pod.error is not None
    assert (pod.error.plugin, pod.error.exception) == ("TestBoom", "JSONDecodeError")
    # the innermost frame in the plugin's code, not json's
    assert pod.error.location.endswith(f"{HERE.name}:{RAISE_LINE}")
    assert Path(pod.error.location.rpartition(":")[0]).resolve() == HERE
    assert pod.error.traceback == ""  # only for explained pods
    assert result.pod("good").status == "Bound"
    assert result.pod("good").error is None
    assert result.summary["error"] == 1
    assert result.summary["unschedulable"] == 0


def test_an_error_status_returned_has_no_location() -> None:
    result, _ = simulate(Broken)

    pod = result.pod("bad")
    message = 'running "TestBroken" filter plugin: cannot read the node\'s labels'
    assert (pod.status, pod.message) == ("Error", message)
    assert pod.error is not None
    assert (pod.error.plugin, pod.error.exception, pod.error.location) == ("TestBroken", "", "")
    data = pod.to_json_dict()
    assert data["error"] == {
        "plugin": "TestBroken",
        "exception": "",
        "location": "",
        "traceback": "",
    }


def test_an_explained_error_keeps_its_traceback() -> None:
    result, _ = simulate(Boom, explain=("bad",))

    error = result.pod("bad").error
    assert error is not None
    assert error.traceback.startswith("Traceback (most recent call last):")
    assert f'{HERE}", line {RAISE_LINE}, in _explode' in error.traceback
    assert error.traceback.rstrip().endswith(
        "json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)"
    )
    assert result.pod("bad").to_json_dict()["error"]["traceback"] == error.traceback


def test_the_table_shows_error_in_red_with_plugin_and_place() -> None:
    result, _ = simulate(Boom)
    console = Console(
        file=io.StringIO(), width=300, record=True, force_terminal=True, color_system="truecolor"
    )
    render_result(result, console)

    text = console.export_text(clear=False)
    row = next(line for line in text.splitlines() if "default/bad" in line)
    assert " Error " in row
    assert MESSAGE in row
    error = result.pod("bad").error
    assert error is not None
    assert f"TestBoom: JSONDecodeError raised at {error.location}" in text
    assert "1 error" in text
    styled = console.export_text(styles=True)
    assert re.search(r"\x1b\[1;31mError\x1b\[0m", styled), "Error is bold red"


# -- the command ---------------------------------------------------------------------------


@pytest.fixture
def boom_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """`kubesched simulate` arguments for a cluster where TestBoom raises for pod `bad`."""
    monkeypatch.setattr(PluginRegistry, "discover", staticmethod(lambda: registry(Boom)))
    manifests = tmp_path / "cluster.yaml"
    manifests.write_text(
        "\n---\n".join(
            json.dumps(o.model_dump(by_alias=True, exclude_none=True)) for o in objects()
        ),
        encoding="utf-8",
    )
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(config(Boom)), encoding="utf-8")
    return ["simulate", str(manifests), "--config", str(cfg), "--no-progress"]


def test_cli_explain_prints_the_traceback(
    boom_cli: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*boom_cli, "--explain", "bad"]) == 0
    out = capsys.readouterr().out

    assert "Traceback of the error in TestBoom:" in out
    assert f"line {RAISE_LINE}, in _explode" in out
    assert "JSONDecodeError: Expecting property name" in out


def test_cli_debug_log_has_the_traceback_on_stderr(
    boom_cli: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*boom_cli, "--log-level", "debug", "-o", "json"]) == 0
    captured = capsys.readouterr()

    data = json.loads(captured.out)
    bad = next(p for p in data["pods"] if p["name"] == "bad")
    assert (bad["status"], bad["message"], bad["error"]["plugin"]) == ("Error", MESSAGE, "TestBoom")
    assert f'Error scheduling pod; retrying pod="default/bad" err="{MESSAGE}"' in captured.err
    assert "Traceback (most recent call last):" in captured.err
    assert f"line {RAISE_LINE}, in _explode" in captured.err


def test_cli_default_log_level_keeps_stderr_quiet(
    boom_cli: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(boom_cli) == 0
    captured = capsys.readouterr()

    assert captured.err == ""
    assert "Traceback" not in captured.out
    assert "TestBoom: JSONDecodeError raised at" in captured.out
