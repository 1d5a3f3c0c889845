"""Property: whatever the gangs and the cluster, no gang ends partially bound.

Small random clusters (1-3 nodes), gangs (1-3, minMember 1-4, up to two extra members,
some members of another scheduler, some arriving late) and plain pods; the simulation
runs to quiescence (with the gang profile or every default plugin), then the invariants
hold: no node over-committed, every PodGroup has
no member bound or at least minMember bound, nothing left waiting at Permit.
"""

from __future__ import annotations

from typing import Any

from cosched_helpers import Script, check_invariants, gang_pod, pod_group, run, run_defaults
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.testing import make_node

gang = st.fixed_dictionaries(
    {
        "min": st.integers(1, 4),
        "extra": st.integers(0, 2),
        "cpu": st.sampled_from(["500m", "1", "2"]),
        "foreign": st.booleans(),
        "late": st.booleans(),
        "timeout": st.sampled_from([None, 5, 20]),
    }
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    nodes=st.lists(st.sampled_from(["1", "2", "4"]), min_size=1, max_size=3),
    gangs=st.lists(gang, min_size=1, max_size=3),
    plain=st.lists(st.sampled_from(["500m", "1", "3"]), max_size=2),
    limit=st.sampled_from([0, 1, 2]),
    defaults=st.booleans(),
)
def test_random_gangs_never_end_partially_bound(
    nodes: list[str], gangs: list[dict[str, Any]], plain: list[str], limit: int, defaults: bool
) -> None:
    objects: list[Any] = [
        make_node(f"n{i}").alloc(cpu=cpu, memory="8Gi", pods=10).obj()
        for i, cpu in enumerate(nodes)
    ]
    late: list[Any] = []
    for g, spec in enumerate(gangs):
        name = f"g{g}"
        objects.append(pod_group(name, spec["min"], timeout=spec["timeout"]))
        for m in range(spec["min"] + spec["extra"]):
            foreign = spec["foreign"] and m == 0
            pod = gang_pod(
                f"{name}-{m}", name, cpu=spec["cpu"], scheduler="elsewhere" if foreign else None
            )
            (late if spec["late"] and m == spec["min"] - 1 else objects).append(pod)
    objects += [gang_pod(f"plain-{i}", None, cpu=cpu) for i, cpu in enumerate(plain)]

    async def arrive(cluster: Any) -> None:
        for pod in late:
            await cluster.create(pod)

    simulate = run_defaults if defaults else run
    _, sim = simulate(
        objects, args={"maxWaitingPodGroups": limit}, controllers=[Script((15.0, arrive))]
    )
    check_invariants(sim)
