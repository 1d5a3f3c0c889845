"""The kit's end-to-end run counts a pod that preemption evicted as accounted for, not lost:
it is reported `Preempted`, with the preemptor in its message."""

from __future__ import annotations

import importlib.util

import pytest
from kit_samples import LabelFilter

from kubesched.testing import ClusterScenario, make_node, make_pod, run_end_to_end

HAS_BUILTIN = importlib.util.find_spec("kubesched_builtin") is not None


@pytest.mark.skipif(not HAS_BUILTIN, reason="the default profile needs kubesched-builtin")
def test_a_preempted_pod_is_not_lost() -> None:
    cluster = ClusterScenario(
        [make_node("a").alloc(cpu="1", memory="4Gi", pods=10).label(tier="gold").obj()],
        [make_pod("low").req(cpu="1").priority(0).node("a").obj()],
        [make_pod("high").req(cpu="1").priority(100).obj()],
    )
    report = run_end_to_end(LabelFilter, {}, cluster)

    assert report.ok, report.describe()
    low = report.result.pod("low")
    assert (low.status, low.message) == ("Preempted", "preempted by default/high on node a at 0s")
    assert report.result.pod("high").node == "a"
