"""A sweep on a Dask cluster (an in-process LocalCluster, reached by its scheduler's address
as a remote one is) gives what the same runs give in this process, and its errors and
warnings name the user's files, not the workers' copies of them."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CLUSTERS, MOST
from distributed import LocalCluster

from kubesched._errors import ManifestError
from kubesched.cli._main import main
from kubesched.sweep import DaskError, SweepSpec, cluster_inputs, sweep


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    # two workers of two threads each: the runs of one worker still go one at a time
    with LocalCluster(
        n_workers=2, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        yield str(cluster.scheduler_address)


def test_a_sweep_on_dask_equals_the_same_sweep_in_this_process(
    spec: SweepSpec, address: str
) -> None:
    on_dask = sweep(spec, scheduler=address)
    assert len(on_dask["runs"]) == 8
    assert on_dask == sweep(spec, jobs=1)


def test_a_remote_runs_error_names_the_original_file(tmp_path: Path, address: str) -> None:
    cluster = tmp_path / "cluster"
    cluster.mkdir()
    (cluster / "nodes.yaml").write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: lots}}\n"
    )
    spec = SweepSpec(cluster_inputs([str(cluster)]), ("default",))
    with pytest.raises(ManifestError) as raised:
        sweep(spec, scheduler=address)
    assert raised.value.file == str(cluster / "nodes.yaml")
    assert "kubesched-sweep-" not in str(raised.value)
    assert "lots" in str(raised.value)


def test_a_remote_runs_warnings_name_the_original_file(tmp_path: Path, address: str) -> None:
    pods = tmp_path / "in.yaml"
    pods.write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
        "status: {allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
        "spec: {containers: [{name: c, image: i, resource: {}}]}\n"
    )
    spec = SweepSpec(cluster_inputs([str(pods)]), ("default",))
    document: dict[str, Any] = sweep(spec, scheduler=address, validate="warn")
    assert document["warnings"]
    assert all(str(pods) in w for w in document["warnings"])
    assert document["runs"][0]["summary"]["bound"] == 1


def test_without_dask_the_error_says_what_to_install(
    spec: SweepSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(DaskError, match=r"pip install 'kubesched\[dask\]'"):
        sweep(spec, scheduler="tcp://127.0.0.1:1")


def test_a_scheduler_not_reached_is_an_error_naming_it(spec: SweepSpec) -> None:
    with pytest.raises(DaskError, match="inproc://nowhere"):
        sweep(spec, scheduler="inproc://nowhere")


def test_the_workers_packages_are_this_machines() -> None:
    from kubesched.sweep._dask import package_differences, packages

    here = packages()
    assert "kubesched" in here and "kubesched-builtin" in here
    assert package_differences(here, {"tcp://a:1": here}) == []
    other = {**here, "kubesched-builtin": "9.9"}
    del other["kubesched"]
    assert package_differences(here, {"tcp://b:2": other, "tcp://a:1": here}) == [
        f"tcp://b:2: kubesched missing there, {here['kubesched']} here",
        f"tcp://b:2: kubesched-builtin 9.9 there, {here['kubesched-builtin']} here",
    ]


@pytest.fixture(scope="module")
def tcp_address() -> Iterator[str]:
    # reached over TCP by another process, as a remote scheduler is
    with LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=False,
        protocol="tcp",
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        yield str(cluster.scheduler_address)


def test_the_command_runs_on_the_scheduler_it_is_given(
    tcp_address: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # the command in its own process, as a user runs it (an in-process Dask client started
    # after other in-process CLI runs under pytest's capture could not start its IO loop)
    args = ["sweep", "--cluster", CLUSTERS[1], "--config", "default", "--config", MOST]
    command = str(Path(sys.executable).parent / "kubesched")
    done = subprocess.run(
        [command, *args, "--scheduler", tcp_address, "-o", "json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    on_dask = json.loads(done.stdout)
    assert main([*args, "-j", "1", "-o", "json"]) == 0
    assert on_dask == json.loads(capsys.readouterr().out)
    assert [r["config"] for r in on_dask["runs"]] == ["default", "most-allocated.config.yaml"]
