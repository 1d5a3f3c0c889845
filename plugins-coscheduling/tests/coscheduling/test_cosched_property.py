"""Property: whatever the gangs and the cluster, no gang ends partially bound.

Small random clusters (1-3 nodes), gangs (1-3, minMember 1-4, up to two extra members,
some members of another scheduler, some arriving late, priority 0 or 100) and plain pods
(priority 0, 100 or 1000, some arriving once the gangs are placed, so that they preempt);
the simulation runs to quiescence (with the gang profile or every default plugin, which
brings DefaultPreemption), then the invariants hold: no node over-committed, every
PodGroup has no member bound or at least minMember bound (preemption never takes a bound
gang below its quorum), nothing left waiting at Permit.
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
        "priority": st.sampled_from([0, 100]),
    }
)
plain_pod = st.tuples(
    st.sampled_from(["500m", "1", "3"]), st.sampled_from([0, 100, 1000]), st.booleans()
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    nodes=st.lists(st.sampled_from(["1", "2", "4"]), min_size=1, max_size=3),
    gangs=st.lists(gang, min_size=1, max_size=3),
    plain=st.lists(plain_pod, max_size=3),
    limit=st.sampled_from([0, 1, 2]),
    defaults=st.booleans(),
)
def test_random_gangs_never_end_partially_bound(
    nodes: list[str],
    gangs: list[dict[str, Any]],
    plain: list[tuple[str, int, bool]],
    limit: int,
    defaults: bool,
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
                f"{name}-{m}",
                name,
                cpu=spec["cpu"],
                priority=spec["priority"],
                scheduler="elsewhere" if foreign else None,
            )
            (late if spec["late"] and m == spec["min"] - 1 else objects).append(pod)
    later: list[Any] = []
    for i, (cpu, priority, arrives_later) in enumerate(plain):
        pod = gang_pod(f"plain-{i}", None, cpu=cpu, priority=priority)
        (later if arrives_later else objects).append(pod)

    def creating(pods: list[Any]) -> Any:
        async def create(cluster: Any) -> None:
            for pod in pods:
                await cluster.create(pod)

        return create

    simulate = run_defaults if defaults else run
    script = Script((15.0, creating(late)), (60.0, creating(later)))
    _, sim = simulate(objects, args={"maxWaitingPodGroups": limit}, controllers=[script])
    check_invariants(sim)
