"""Invariants of the allocator on random small clusters, against brute-force oracles:
a solution exists exactly when the allocator finds one, no device is given twice or
while in use, every request gets its count, matchAttribute constraints hold, and a
firstAvailable request gets the first subrequest that fits."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass

from allocator_builders import (
    NODE1,
    REGION1,
    claim,
    device,
    device_class,
    node,
    prioritized,
    request,
    sub_request,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched_dra.api import ResourceSlice
from kubesched_dra.cel import CELCache
from kubesched_dra.structured import Allocator, AllocatorFeatures, DeviceID

DRIVERS = ("driver-a", "driver-b")
CLASSES = {"class-a": "driver-a", "class-b": "driver-b"}
NUMA = "numa"


@dataclass(frozen=True)
class Want:
    claim: int
    request: str
    class_name: str
    count: int


@st.composite
def clusters(draw: st.DrawFn) -> tuple[list[ResourceSlice], dict[DeviceID, int], set[DeviceID]]:
    slices: list[ResourceSlice] = []
    numa: dict[DeviceID, int] = {}
    for pool_index in range(draw(st.integers(1, 3))):
        driver = draw(st.sampled_from(DRIVERS))
        pool = f"pool-{pool_index}"
        devices = []
        for d in range(draw(st.integers(0, 3))):
            value = draw(st.integers(0, 1))
            devices.append(device(f"device-{d}", None, {NUMA: {"int": value}}))
            numa[DeviceID(driver, pool, f"device-{d}")] = value
        slices.append(
            ResourceSlice.model_validate(
                {
                    "metadata": {"name": f"slice-{pool_index}"},
                    "spec": {
                        "driver": driver,
                        "nodeName": NODE1,
                        "pool": {"name": pool, "resourceSliceCount": 1, "generation": 1},
                        "devices": devices,
                    },
                }
            )
        )
    allocated = set(draw(st.lists(st.sampled_from(sorted(numa)), max_size=2))) if numa else set()
    return slices, numa, allocated


@st.composite
def demands(draw: st.DrawFn) -> tuple[list[Want], list[bool]]:
    wants: list[Want] = []
    constrained: list[bool] = []
    for c in range(draw(st.integers(1, 2))):
        for r in range(draw(st.integers(1, 2))):
            wants.append(
                Want(c, f"req-{r}", draw(st.sampled_from(sorted(CLASSES))), draw(st.integers(1, 2)))
            )
        constrained.append(draw(st.booleans()))
    return wants, constrained


def _claims(wants: list[Want], constrained: list[bool]) -> list:
    claims = []
    for c, has_constraint in enumerate(constrained):
        requests = [request(w.request, w.class_name, w.count) for w in wants if w.claim == c]
        constraints = [{"matchAttribute": f"{DRIVERS[0]}/{NUMA}"}] if has_constraint else []
        claims.append(claim(f"claim-{c}", *requests, constraints=constraints))
    return claims


def _oracle(
    wants: list[Want], constrained: list[bool], numa: dict[DeviceID, int], allocated: set[DeviceID]
) -> bool:
    """Whether some assignment of distinct free devices satisfies every request."""
    free = [d for d in numa if d not in allocated]
    slots = [w for w in wants for _ in range(w.count)]
    for chosen in itertools.permutations(free, len(slots)):
        if any(CLASSES[w.class_name] != d.driver for w, d in zip(slots, chosen, strict=True)):
            continue
        ok = True
        for c, has_constraint in enumerate(constrained):
            if not has_constraint:
                continue
            # The constraint names driver-a's numa: a driver-b device has no such attribute.
            mine = [d for w, d in zip(slots, chosen, strict=True) if w.claim == c]
            if any(d.driver != DRIVERS[0] for d in mine) or len({numa[d] for d in mine}) > 1:
                ok = False
                break
        if ok:
            return True
    return False


@settings(max_examples=150, deadline=None)
@given(clusters(), demands())
def test_allocation_matches_brute_force_and_keeps_invariants(
    cluster: tuple[list[ResourceSlice], dict[DeviceID, int], set[DeviceID]],
    demand: tuple[list[Want], list[bool]],
) -> None:
    slices, numa, allocated = cluster
    wants, constrained = demand
    classes = {name: device_class(name, driver) for name, driver in CLASSES.items()}
    allocator = Allocator(AllocatorFeatures(), allocated, classes, slices, CELCache())
    results = allocator.allocate(node(NODE1, REGION1), _claims(wants, constrained))
    assert (results is not None) == _oracle(wants, constrained, numa, allocated)
    if results is None:
        return
    given_out = [
        DeviceID(r.driver, r.pool, r.device) for result in results for r in result.devices.results
    ]
    assert len(given_out) == len(set(given_out)), "a device given twice"
    assert not set(given_out) & allocated, "a device in use given"
    for c, result in enumerate(results):
        counts = Counter(r.request for r in result.devices.results)
        assert counts == Counter({w.request: w.count for w in wants if w.claim == c})
        for r in result.devices.results:
            want = next(w for w in wants if w.claim == c and w.request == r.request)
            assert CLASSES[want.class_name] == r.driver
        if constrained[c]:
            assert (
                len({numa[DeviceID(r.driver, r.pool, r.device)] for r in result.devices.results})
                == 1
            )


@settings(max_examples=100, deadline=None)
@given(
    clusters(),
    st.lists(
        st.tuples(st.sampled_from(sorted(CLASSES)), st.integers(1, 3)), min_size=1, max_size=3
    ),
)
def test_first_available_picks_the_first_subrequest_that_fits(
    cluster: tuple[list[ResourceSlice], dict[DeviceID, int], set[DeviceID]],
    alternatives: list[tuple[str, int]],
) -> None:
    slices, numa, allocated = cluster
    subs = [sub_request(f"sub-{i}", name, count) for i, (name, count) in enumerate(alternatives)]
    claims = [claim("claim-0", prioritized("req", *subs))]
    classes = {name: device_class(name, driver) for name, driver in CLASSES.items()}
    allocator = Allocator(AllocatorFeatures(), allocated, classes, slices, CELCache())
    results = allocator.allocate(node(NODE1, REGION1), claims)
    free = Counter(d.driver for d in numa if d not in allocated)
    fitting = [i for i, (name, count) in enumerate(alternatives) if free[CLASSES[name]] >= count]
    if not fitting:
        assert results is None
        return
    assert results is not None
    chosen = {r.request for r in results[0].devices.results}
    assert chosen == {f"req/sub-{fitting[0]}"}
    assert len(results[0].devices.results) == alternatives[fitting[0]][1]
