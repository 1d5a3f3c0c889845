"""pod_requests and node_non_zero_requests add integer nano-units; they must equal the exact
Fraction computation (the reference) on any pod: containers, sidecars, init containers,
overhead and pod-level requests, quantities exact to 1n or finer (which fall back to it)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kubesched.api import Pod, node_non_zero_requests, pod_requests
from kubesched.api._resources import _exact_node_non_zero_requests, _exact_pod_requests
from kubesched.features import feature_enabled
from kubesched.framework import PodInfo

_NAMES = ("cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "example.com/gpu", "pods")

_nano_exact = st.builds(
    Fraction,
    st.integers(min_value=0, max_value=10**15),
    st.sampled_from([1, 2, 1000, 10**6, 10**9]),
)
"""Whole numbers of nano-units, as every parsed quantity is."""
_finer = st.fractions(min_value=0, max_value=10**6, max_denominator=10**12)
"""Any fraction (a hand-built model may hold one): usually not whole nano-units."""


def _amounts(exact: bool) -> st.SearchStrategy[dict[str, Fraction]]:
    quantities = _nano_exact if exact else st.one_of(_nano_exact, _finer)
    return st.dictionaries(st.sampled_from(_NAMES), quantities, max_size=4)


@st.composite
def _containers(draw: st.DrawFn, init: bool, exact: bool) -> dict[str, Any]:
    c: dict[str, Any] = {"name": "c", "resources": {"requests": draw(_amounts(exact))}}
    if init and draw(st.booleans()):
        c["restartPolicy"] = "Always"
    return c


@st.composite
def _pods(draw: st.DrawFn) -> Pod:
    # mostly pods whose every quantity is whole nano-units (the integer path), some not
    exact = draw(st.integers(0, 3)) > 0
    spec: dict[str, Any] = {
        "containers": draw(st.lists(_containers(False, exact), max_size=3)),
        "initContainers": draw(st.lists(_containers(True, exact), max_size=3)),
        "overhead": draw(_amounts(exact)),
    }
    if draw(st.booleans()):
        spec["resources"] = {"requests": draw(_amounts(exact))}
    return Pod.model_validate({"metadata": {"name": "p"}, "spec": spec})


@given(_pods(), st.booleans(), st.booleans())
def test_pod_requests_equal_the_exact_computation(
    pod: Pod, non_zero: bool, pod_level: bool
) -> None:
    assert pod_requests(pod, non_zero=non_zero, pod_level=pod_level) == _exact_pod_requests(
        pod, non_zero=non_zero, pod_level=pod_level
    )


@given(_pods(), st.booleans())
def test_node_non_zero_requests_equal_the_exact_computation(pod: Pod, pod_level: bool) -> None:
    assert node_non_zero_requests(pod, pod_level=pod_level) == _exact_node_non_zero_requests(
        pod, pod_level=pod_level
    )


def test_a_sum_rounds_up_once_in_either_arithmetic() -> None:
    # 0.1m + 0.1m of CPU is 0.2m, one millicore; 1n + 1n of memory is 1 byte (both round up)
    tenth_milli = Fraction(1, 10**4)
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": "a",
                "resources": {"requests": {"cpu": tenth_milli, "memory": Fraction(1, 10**9)}},
            },
            {
                "name": "b",
                "resources": {"requests": {"cpu": tenth_milli, "memory": Fraction(1, 10**9)}},
            },
        ]
    }
    pod = Pod.model_validate({"metadata": {"name": "p"}, "spec": spec})
    assert pod_requests(pod) == {"cpu": 1, "memory": 1}
    third = {"containers": [{"name": "a", "resources": {"requests": {"cpu": Fraction(1, 3)}}}]}
    odd = Pod.model_validate({"metadata": {"name": "p"}, "spec": third})
    assert pod_requests(odd) == {"cpu": 334}  # not whole nano-units: the exact path


@given(_pods())
def test_pod_info_non_zero_requests_are_node_non_zero_requests(pod: Pod) -> None:
    """PodInfo takes them from its scoring requests when pod-level requests do not count:
    the same amounts as computing them on their own."""
    info = PodInfo(pod)
    info.scoring_request_amounts  # noqa: B018  (computed first, as a cycle does)
    expected = node_non_zero_requests(pod, pod_level=feature_enabled("PodLevelResources"))
    got = info.non_zero_requests
    assert (got.milli_cpu, got.memory) == (expected["cpu"], expected["memory"])
