"""PodInfo.of: the plugins of one cycle share the PodInfo the scheduler `share`s (so its
derived values are computed once), for that very pod object only; a pod with pod-level
resources gets a new one each time (its requests follow the PodLevelResources gate)."""

from __future__ import annotations

import pytest

from kubesched.features import ENV_VAR
from kubesched.framework import PodInfo
from kubesched.testing import make_pod


def test_the_shared_pod_info_is_the_one_of_that_pod_object() -> None:
    pod = make_pod("p").req(cpu="1", memory="1Gi").obj()
    cycle = PodInfo(pod)
    cycle.share()
    assert PodInfo.of(pod) is cycle
    assert PodInfo.of(pod).scoring_request_amounts is cycle.scoring_request_amounts
    # an equal but distinct pod object (a later version) is not answered with it
    copy = pod.model_copy()
    other = PodInfo.of(copy)
    assert other is not cycle and other.pod is copy
    assert PodInfo.of(copy) is other  # made here, shared from then on
    assert PodInfo.of(pod) is not cycle


def test_shared_values_are_the_pod_requests() -> None:
    pod = make_pod("p").req(memory="1Gi").obj()
    info = PodInfo.of(pod)
    assert info.request_amounts == {"memory": 1024**3}
    assert info.scoring_request_amounts == {"cpu": 100, "memory": 1024**3}
    assert info.requests.memory == 1024**3 and info.requests.milli_cpu == 0


def test_a_pod_with_pod_level_resources_follows_the_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    pod = make_pod("p").spec(resources={"requests": {"cpu": "3"}}).obj()
    assert PodInfo.of(pod) is not PodInfo.of(pod)
    assert PodInfo.of(pod).request_amounts["cpu"] == 3000
    monkeypatch.setenv(ENV_VAR, "PodLevelResources=false")
    assert PodInfo.of(pod).request_amounts.get("cpu", 0) == 0
