"""The PodDisruptionBudget kind, its registration hook, filterPodsWithPDBViolation and the
embedded disruption controller (upstream pkg/controller/disruption getExpectedPodCount,
countHealthyPods, updatePdbStatus)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from preemption_helpers import pdb, pod
from pydantic import ValidationError

from kubesched.api import Pod
from kubesched.clock import VirtualClock
from kubesched.cluster.memory import MemoryCluster, default_kinds
from kubesched.framework import PodInfo
from kubesched.runtime import make_plugin_manager
from kubesched_builtin import hooks
from kubesched_builtin.defaultpreemption import filter_pods_with_pdb_violation
from kubesched_builtin.kinds import (
    PDB_KIND,
    DisruptionController,
    PodDisruptionBudget,
    compute_status,
)

# -- the kind ---------------------------------------------------------------------------------


def _pdb_doc(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "b", "namespace": "ns"},
        "spec": spec,
    }


def test_manifest_loads_with_camel_case_fields() -> None:
    obj = PodDisruptionBudget.model_validate(
        _pdb_doc({"minAvailable": "50%", "selector": {"matchLabels": {"app": "a"}}})
        | {"status": {"disruptionsAllowed": 2, "currentHealthy": 4, "expectedPods": 4}}
    )
    assert obj.spec.min_available == "50%"
    assert obj.spec.selector is not None and obj.spec.selector.matches({"app": "a"})
    assert (obj.status.disruptions_allowed, obj.status.current_healthy) == (2, 4)
    assert obj.to_dict()["spec"]["minAvailable"] == "50%"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"minAvailable": -1}, "must be greater than or equal to 0"),
        ({"maxUnavailable": "5"}, "a valid percent string must be a numeric string"),
        ({"maxUnavailable": "150%"}, "must not be greater than 100%"),
        (
            {"minAvailable": 1, "maxUnavailable": 1},
            "minAvailable and maxUnavailable cannot be both set",
        ),
    ],
)
def test_invalid_specs_are_rejected(spec: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        PodDisruptionBudget.model_validate(_pdb_doc(spec))


def test_hook_registers_the_kind_and_the_controller() -> None:
    pm = make_plugin_manager(load_entrypoints=False)
    pm.register(hooks)
    kinds = default_kinds(pm)
    assert kinds.get("policy/v1", "PodDisruptionBudget") == PDB_KIND
    assert PDB_KIND.namespaced and PDB_KIND.plural == "poddisruptionbudgets"
    controllers = [c for cs in pm.hook.kubesched_cluster_controllers(cluster=None) for c in cs]
    assert [type(c) for c in controllers] == [DisruptionController]


# -- filterPodsWithPDBViolation -------------------------------------------------------------


def _infos(*pods: Pod) -> list[PodInfo]:
    return [PodInfo(p) for p in pods]


def _names(infos: list[PodInfo]) -> list[str]:
    return [i.pod.metadata.name for i in infos]


@pytest.mark.parametrize(
    ("pods", "pdbs", "violating", "non_violating"),
    [
        # the budget is used up in list order
        (
            [pod("a", labels={"app": "x"}), pod("b", labels={"app": "x"})],
            [pdb({"app": "x"}, 1)],
            ["b"],
            ["a"],
        ),
        # a pod without labels matches no budget
        ([pod("a")], [pdb({"app": "x"}, 0)], [], ["a"]),
        # an empty selector selects nothing
        ([pod("a", labels={"app": "x"})], [pdb({}, 0)], [], ["a"]),
        # a budget in another namespace does not apply
        (
            [pod("a", labels={"app": "x"})],
            [
                PodDisruptionBudget.model_validate(
                    {
                        "metadata": {"name": "b", "namespace": "other"},
                        "spec": {"selector": {"matchLabels": {"app": "x"}}},
                    }
                )
            ],
            [],
            ["a"],
        ),
        # a pod already in disruptedPods is not counted again
        (
            [pod("a", labels={"app": "x"}), pod("b", labels={"app": "x"})],
            [pdb({"app": "x"}, 1, disrupted=["a"])],
            [],
            ["a", "b"],
        ),
        # any one exhausted budget makes a pod violating
        (
            [pod("a", labels={"app": "x", "tier": "t"})],
            [pdb({"app": "x"}, 5, name="big"), pdb({"tier": "t"}, 0, name="none")],
            ["a"],
            [],
        ),
    ],
)
def test_filter_pods_with_pdb_violation(
    pods: list[Pod],
    pdbs: list[PodDisruptionBudget],
    violating: list[str],
    non_violating: list[str],
) -> None:
    got_violating, got_non_violating = filter_pods_with_pdb_violation(_infos(*pods), pdbs)
    assert (_names(got_violating), _names(got_non_violating)) == (violating, non_violating)


# -- the disruption controller ------------------------------------------------------------------


def _budget(expected_pods: int = 0, **spec: Any) -> PodDisruptionBudget:
    return PodDisruptionBudget.model_validate(
        {
            "metadata": {"name": "b", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "x"}}, **spec},
            "status": {"expectedPods": expected_pods},
        }
    )


BOUND = [pod(f"p{i}", node="n1", labels={"app": "x"}) for i in range(4)]


@pytest.mark.parametrize(
    ("spec", "pods", "want"),
    [
        # (disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods)
        ({"minAvailable": 2}, BOUND, (2, 4, 2, 4)),
        ({"minAvailable": "50%"}, BOUND, (2, 4, 2, 4)),
        ({"minAvailable": "60%"}, BOUND, (1, 4, 3, 4)),  # desired rounds up
        ({"maxUnavailable": 1}, BOUND, (1, 4, 3, 4)),
        ({"maxUnavailable": "25%"}, BOUND, (1, 4, 3, 4)),
        ({"minAvailable": 5}, BOUND, (0, 4, 5, 4)),  # never negative
        ({"minAvailable": 0}, [], (0, 0, 0, 0)),  # no pods, nothing allowed
        # a percentage budget remembers how many pods it expects (its high-water mark)
        ({"minAvailable": "50%", "expected_pods": 6}, BOUND, (1, 4, 3, 6)),
        # pending (unbound) and terminating pods are not healthy
        (
            {"minAvailable": 1},
            [
                pod("a", node="n1", labels={"app": "x"}),
                pod("b", labels={"app": "x"}),
                pod("c", node="n1", labels={"app": "x"}, terminating=True),
            ],
            (0, 1, 1, 3),
        ),
        # pods of other apps do not count
        ({"minAvailable": 1}, [*BOUND[:2], pod("o", node="n1", labels={"app": "y"})], (1, 2, 1, 2)),
    ],
)
def test_compute_status(
    spec: dict[str, Any], pods: list[Pod], want: tuple[int, int, int, int]
) -> None:
    status = compute_status(_budget(**spec), pods)
    got = (
        status.disruptions_allowed,
        status.current_healthy,
        status.desired_healthy,
        status.expected_pods,
    )
    assert got == want


def test_controller_keeps_the_status_up_to_date() -> None:
    async def scenario() -> list[int]:
        pm = make_plugin_manager(load_entrypoints=False)
        pm.register(hooks)
        cluster = MemoryCluster(default_kinds(pm), VirtualClock())
        controller = DisruptionController()
        cluster.add_controller(controller)
        cluster.create_many([*BOUND[:3], _budget(maxUnavailable=1)])
        cluster.start_controllers()

        async def settle() -> int:
            while cluster.busy():
                cluster.flush()
                await asyncio.sleep(0)
            got = cluster.get("PodDisruptionBudget", "b", "default")
            assert isinstance(got, PodDisruptionBudget)
            return got.status.disruptions_allowed

        seen = [await settle()]
        await cluster.delete("Pod", "p0", "default")
        seen.append(await settle())
        await cluster.create(BOUND[3])
        seen.append(await settle())
        return seen

    # 3 expected, 1 may go; one deleted leaves 2 healthy = desired (3 - 1): none may go
    # (3 stays expected, as the replica count would); back to 3 healthy
    assert asyncio.run(scenario()) == [1, 0, 1]
