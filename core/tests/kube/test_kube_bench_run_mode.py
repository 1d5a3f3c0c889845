"""Smoke test of `benchmarks/run.py --mode run` (kubesched_bench.run_mode) at a tiny size:
`kubesched run` drains the backlog through the fake API server in its own process, every
pod ends bound, and the figures are there. Nothing about how fast."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")
pytest.importorskip("kubesched_builtin", reason="the default profile needs kubesched-builtin")

from kubesched_bench.run_mode import format_run_row, run_kubesched
from kubesched_bench.spec import Size


def test_run_mode_drains_the_backlog_and_reports_its_figures() -> None:
    result = run_kubesched("SchedulingBasic", Size(nodes=4, init_pods=3, pods=12), qps=1000)
    assert result.pods == 12
    assert result.requests["POST pods/binding"] == 12  # each pod bound once: no double bind
    assert result.requests["POST events"] == 12  # one Scheduled event each
    assert result.requests.get("PATCH pods/status", 0) == 0  # nothing failed to schedule
    assert {"GET nodes", "GET pods", "WATCH nodes", "WATCH pods"} <= set(result.requests)
    assert 0 < result.synced <= result.first_bind <= result.last_bind
    assert result.pods_per_second > 0 and result.drain_pods_per_second > 0
    assert result.cpu_ms_per_pod > 0 and result.peak_rss_mib > 0
    assert result.apiserver_cpu_ms_per_pod is not None and result.apiserver_cpu_ms_per_pod > 0
    row = format_run_row(result, "2026-01-01")
    assert row.startswith("| 2026-01-01 | SchedulingBasic | 4Nodes/3InitPods/12Pods | run (fake) |")
    assert "| 12/0/12 |" in row


@pytest.mark.skipif(
    not os.environ.get("KUBEBUILDER_ASSETS"),
    reason="needs etcd and kube-apiserver binaries: set KUBEBUILDER_ASSETS (envtest convention)",
)
def test_run_mode_against_a_real_api_server() -> None:
    result = run_kubesched(
        "SchedulingBasic", Size(nodes=3, init_pods=0, pods=6), apiserver="envtest"
    )
    assert result.requests["POST pods/binding"] == 6
    assert result.apiserver == "envtest" and result.first_bind <= result.last_bind
