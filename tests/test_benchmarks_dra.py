"""The SchedulingWithResourceClaimTemplate benchmark workload at tiny sizes: upstream's
objects (slices of `maxClaimsPerNode` devices, the class, a template per namespace, pods
claiming from it) and a run where every pod gets its own device. No assertion depends on
how fast the machine is. Needs kubesched-dra (the `integration` tox environment has it)."""

from __future__ import annotations

from kubesched_bench import Size, get_workload, run_workload
from kubesched_bench.dra import DEVICE_CLASS, DRIVER, TEMPLATE, max_claims_per_node

from kubesched_dra.api import DeviceClass, ResourceClaimTemplate, ResourceSlice

WORKLOAD = "SchedulingWithResourceClaimTemplate"


def test_devices_per_node_are_upstreams_at_upstreams_sizes() -> None:
    # dra/performance-config.yaml: 5000pods_500nodes 10, 2000pods_100nodes 20,
    # 2000pods_200nodes 10
    assert max_claims_per_node(Size(500, 2500, 2500)) == 10
    assert max_claims_per_node(Size(100, 1000, 1000)) == 20
    assert max_claims_per_node(Size(200, 1000, 1000)) == 10


def test_workload_objects() -> None:
    w = get_workload(WORKLOAD).build(Size(4, 4, 6))
    slices = [o for o in w.setup if isinstance(o, ResourceSlice)]
    assert [s.spec.node_name for s in slices] == [n.metadata.name for n in w.nodes]
    assert all(s.metadata.name == s.spec.node_name == s.spec.pool.name for s in slices)
    assert {s.spec.driver for s in slices} == {DRIVER}
    assert [d.name for d in slices[0].spec.devices] == ["instance-0", "instance-1", "instance-2"]
    (cls,) = [o for o in w.setup if isinstance(o, DeviceClass)]
    assert cls.metadata.name == DEVICE_CLASS
    templates = [o for o in [*w.setup, *w.measured_setup] if isinstance(o, ResourceClaimTemplate)]
    assert sorted(t.metadata.namespace or "" for t in templates) == ["sched-init", "sched-measured"]
    for pod in [*w.init_pods, *w.pods]:
        (entry,) = pod.spec.resource_claims
        assert entry.resource_claim_template_name == TEMPLATE
        assert not pod.spec.containers[0].resources.requests


def test_every_pod_gets_a_device_until_the_cluster_is_full() -> None:
    result = run_workload(get_workload(WORKLOAD).build(Size(3, 3, 6)))
    assert result.bound == 6
    assert result.attempts.get("error", 0) == 0
    assert "DynamicResources" in result.plugins["Filter"]
