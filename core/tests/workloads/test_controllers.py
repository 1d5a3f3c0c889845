"""The workload controllers on the embedded cluster: the pods each makes, their names,
labels and owner references, ordering, scaling and completion (upstream pkg/controller)."""

from __future__ import annotations

import asyncio

import pytest
from workload_harness import bind_all, names, pods_of, run, settle

from kubesched.api import Pod
from kubesched.cluster.memory import MemoryCluster
from kubesched.workloads import POD_TEMPLATE_HASH, compute_hash

NODES = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {zone: a}}
status: {allocatable: {cpu: "8", pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {zone: b}}
spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}
status: {allocatable: {cpu: "8", pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n3, labels: {zone: b}}
spec: {unschedulable: true, taints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]}
status: {allocatable: {cpu: "8", pods: "110"}}
"""

DEPLOYMENT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      priorityClassName: high
      containers: [{name: web, image: nginx}]
---
apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
"""


def test_a_deployment_makes_a_replicaset_named_by_its_template_hash_and_its_pods() -> None:
    async def check(cluster: MemoryCluster) -> tuple[list[str], list[Pod], str]:
        return names(cluster, "ReplicaSet"), pods_of(cluster, "web-"), ""

    rs_names, pods, _ = run(DEPLOYMENT, check)

    [deployment_rs] = rs_names
    template_hash = deployment_rs.removeprefix("web-")
    assert len(pods) == 3
    for pod in pods:
        # <rs>-<5 characters of the safe alphabet>
        prefix, _, suffix = pod.metadata.name.rpartition("-")
        assert prefix == deployment_rs
        assert len(suffix) == 5 and set(suffix) <= set("bcdfghjklmnpqrstvwxz2456789")
        assert pod.metadata.namespace == "shop"
        assert pod.metadata.labels == {"app": "web", POD_TEMPLATE_HASH: template_hash}
        [ref] = pod.metadata.owner_references
        assert (ref.kind, ref.name, ref.controller) == ("ReplicaSet", deployment_rs, True)
        assert pod.spec.priority == 1000  # the priorityClassName admission, as for any pod


def test_the_replicaset_and_its_template_carry_the_hash() -> None:
    async def check(cluster: MemoryCluster) -> tuple[object, object]:
        [rs] = cluster.list("ReplicaSet")
        [deployment] = cluster.list("Deployment")
        return rs, deployment

    rs, deployment = run(DEPLOYMENT, check)
    template_hash = compute_hash(deployment.spec.template)  # type: ignore[attr-defined]
    assert rs.metadata.name == f"web-{template_hash}"  # type: ignore[attr-defined]
    assert rs.spec.selector.match_labels == {"app": "web", POD_TEMPLATE_HASH: template_hash}  # type: ignore[attr-defined]
    assert rs.spec.template.metadata.labels[POD_TEMPLATE_HASH] == template_hash  # type: ignore[attr-defined]
    [ref] = rs.metadata.owner_references  # type: ignore[attr-defined]
    assert (ref.kind, ref.name, ref.uid) == ("Deployment", "web", deployment.metadata.uid)  # type: ignore[attr-defined]
    assert rs.status.replicas == 3  # type: ignore[attr-defined]


def test_the_same_seed_gives_the_same_names_and_another_seed_other_ones() -> None:
    async def pod_names(cluster: MemoryCluster) -> list[str]:
        return names(cluster)

    first = run(DEPLOYMENT, pod_names, seed=3)
    assert run(DEPLOYMENT, pod_names, seed=3) == first
    assert run(DEPLOYMENT, pod_names, seed=4) != first


def test_scaling_a_replicaset_down_deletes_unbound_pods_first() -> None:
    async def scale(cluster: MemoryCluster) -> tuple[list[str], list[str]]:
        pods = pods_of(cluster, "web-")
        await cluster.bind(pods[0], "n1")
        [deployment] = cluster.list("Deployment")
        spec = deployment.spec.model_copy(update={"replicas": 1})
        await cluster.update(deployment.model_copy(update={"spec": spec}))
        await settle(cluster)
        return [pods[0].metadata.name], names(cluster)

    bound, left = run(DEPLOYMENT, scale)
    assert left == bound


STATEFULSET = """
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 3
  podManagementPolicy: %s
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres}]
"""


def test_an_ordered_statefulset_creates_the_next_ordinal_once_the_previous_is_bound() -> None:
    async def step(cluster: MemoryCluster) -> list[list[str]]:
        seen = [names(cluster)]
        for _ in range(3):
            await bind_all(cluster, ["n1"])
            await settle(cluster)
            seen.append(names(cluster))
        return seen

    seen = run(STATEFULSET % "OrderedReady", step)
    assert seen == [
        ["db-0"],
        ["db-0", "db-1"],
        ["db-0", "db-1", "db-2"],
        ["db-0", "db-1", "db-2"],
    ]


def test_a_parallel_statefulset_creates_every_ordinal_at_once_with_identity_labels() -> None:
    async def check(cluster: MemoryCluster) -> list[Pod]:
        return pods_of(cluster, "db-")

    pods = run(STATEFULSET % "Parallel", check)
    assert [p.metadata.name for p in pods] == ["db-0", "db-1", "db-2"]
    assert pods[2].metadata.labels == {
        "app": "db",
        "statefulset.kubernetes.io/pod-name": "db-2",
        "apps.kubernetes.io/pod-index": "2",
    }
    assert pods[2].metadata.owner_references[0].kind == "StatefulSet"


DAEMONSET = """
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      %s
      containers: [{name: a, image: agent}]
"""


@pytest.mark.parametrize(
    ("extra", "nodes"),
    [
        # n2's dedicated=gpu taint is not tolerated; n3 is cordoned, which daemons tolerate
        ("nodeSelector: {}", ["n1", "n3"]),
        ("tolerations: [{operator: Exists}]", ["n1", "n2", "n3"]),
        ("nodeSelector: {zone: b}", ["n3"]),
    ],
)
def test_a_daemonset_pins_one_pod_to_each_eligible_node(extra: str, nodes: list[str]) -> None:
    async def check(cluster: MemoryCluster) -> list[Pod]:
        return pods_of(cluster, "agent-")

    pods = run(NODES + "---" + DAEMONSET % extra, check)
    pinned = []
    for pod in pods:
        required = (
            pod.spec.affinity.node_affinity.required_during_scheduling_ignored_during_execution
        )  # type: ignore[union-attr]
        [term] = required.node_selector_terms  # type: ignore[union-attr]
        assert term.match_expressions == []
        [field] = term.match_fields
        assert (field.key, field.operator) == ("metadata.name", "In")
        pinned += field.values
        tolerated = {(t.key, t.effect) for t in pod.spec.tolerations}
        assert ("node.kubernetes.io/not-ready", "NoExecute") in tolerated
        assert ("node.kubernetes.io/unschedulable", "NoSchedule") in tolerated
        assert ("node.kubernetes.io/network-unavailable", "NoSchedule") not in tolerated
    assert sorted(pinned) == nodes


def test_a_daemonset_follows_nodes_that_come_and_go() -> None:
    async def change(cluster: MemoryCluster) -> list[str]:
        await cluster.delete("Node", "n1")
        await settle(cluster)
        return sorted(
            p.spec.affinity.node_affinity.required_during_scheduling_ignored_during_execution.node_selector_terms[
                0
            ]
            .match_fields[0]
            .values[0]  # type: ignore[union-attr]
            for p in pods_of(cluster, "agent-")
        )

    assert run(NODES + "---" + DAEMONSET % "nodeSelector: {}", change) == ["n3"]


JOB = """
apiVersion: batch/v1
kind: Job
metadata: {name: crunch, annotations: {simulation.kubesched.io/duration: 30s}}
spec:
  parallelism: 2
  completions: 5
  template:
    metadata: {annotations: %s}
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
"""


def test_a_job_keeps_parallelism_pods_running_until_completions_succeed() -> None:
    async def work(cluster: MemoryCluster) -> tuple[list[int], object, float]:
        active = []
        loop = asyncio.get_running_loop()
        while True:
            running = [p for p in pods_of(cluster, "crunch-") if not p.is_terminal]
            active.append(len(running))
            if not running:
                break
            await bind_all(cluster, ["n1"])
            await settle(cluster)
        return active, cluster.get("Job", "crunch", "default"), loop.time()

    active, job, elapsed = run(JOB % "{}", work)
    assert active == [2, 2, 1, 0]  # 2 + 2 + 1 = 5 completions
    assert job.status.succeeded == 5 and job.status.failed == 0  # type: ignore[attr-defined]
    assert [c.type for c in job.status.conditions] == ["Complete"]  # type: ignore[attr-defined]
    assert elapsed >= 90  # three rounds of 30 s


def test_job_pods_carry_the_job_labels_and_owner() -> None:
    async def check(cluster: MemoryCluster) -> tuple[list[Pod], object]:
        return pods_of(cluster, "crunch-"), cluster.get("Job", "crunch", "default")

    pods, job = run(JOB % "{}", check)
    uid = job.metadata.uid  # type: ignore[attr-defined]
    for pod in pods:
        assert pod.metadata.labels == {
            "batch.kubernetes.io/controller-uid": uid,
            "batch.kubernetes.io/job-name": "crunch",
            "controller-uid": uid,
            "job-name": "crunch",
        }
        assert pod.metadata.name.startswith("crunch-") and len(pod.metadata.name) == 12
        assert pod.metadata.annotations["simulation.kubesched.io/duration"] == "30s"


def test_a_job_whose_pods_fail_backs_off_and_fails_past_its_backoff_limit() -> None:
    failing = "{simulation.kubesched.io/result: Failed}"

    async def work(cluster: MemoryCluster) -> tuple[object, int, float]:
        loop = asyncio.get_running_loop()
        for _ in range(20):
            await bind_all(cluster, ["n1"])
            await settle(cluster)
        return (
            cluster.get("Job", "crunch", "default"),
            len(pods_of(cluster, "crunch-")),
            loop.time(),
        )

    text = (JOB % failing).replace("completions: 5", "completions: 5\n  backoffLimit: 2")
    job, created, elapsed = run(text, work)
    # two rounds of two pods: 2 failures are within the limit of 2, 4 are past it
    assert job.status.failed == 4  # type: ignore[attr-defined]
    [condition] = job.status.conditions  # type: ignore[attr-defined]
    assert (condition.type, condition.reason) == ("Failed", "BackoffLimitExceeded")
    assert created == 4
    assert elapsed >= 30 + 20 + 30  # the second round waited out a backoff of 2 failures


def test_an_indexed_job_runs_each_index_once() -> None:
    async def work(cluster: MemoryCluster) -> list[str]:
        for _ in range(4):
            await bind_all(cluster, ["n1"])
            await settle(cluster)
        return sorted(
            p.metadata.annotations["batch.kubernetes.io/job-completion-index"]
            for p in pods_of(cluster, "crunch-")
        )

    text = (JOB % "{}").replace("completions: 5", "completions: 3\n  completionMode: Indexed")
    assert run(text, work) == ["0", "1", "2"]


SNAPSHOT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, uid: d-1}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-5d8f7c9b4
  uid: rs-1
  labels: {app: web, pod-template-hash: 5d8f7c9b4}
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d-1, controller: true}]
spec:
  replicas: 2
  selector: {matchLabels: {app: web, pod-template-hash: 5d8f7c9b4}}
  template:
    metadata: {labels: {app: web, pod-template-hash: 5d8f7c9b4}}
    spec: {containers: [{name: web, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-5d8f7c9b4-abcde
  labels: {app: web, pod-template-hash: 5d8f7c9b4}
  ownerReferences:
    - {apiVersion: apps/v1, kind: ReplicaSet, name: web-5d8f7c9b4, uid: rs-1, controller: true}
spec: {nodeName: n1, containers: [{name: web, image: nginx}]}
"""


def test_a_snapshot_keeps_its_replicaset_whatever_its_hash_and_tops_it_up() -> None:
    async def check(cluster: MemoryCluster) -> tuple[list[str], list[Pod]]:
        return names(cluster, "ReplicaSet"), pods_of(cluster, "web-")

    replicasets, pods = run(SNAPSHOT, check)
    # the real cluster's ReplicaSet stays current (upstream FindNewReplicaSet compares the
    # templates, not kubesched's hash) and gets the one pod it lacks
    assert replicasets == ["web-5d8f7c9b4"]
    assert len(pods) == 2
    assert "web-5d8f7c9b4-abcde" in [p.metadata.name for p in pods]


def test_deleting_a_deployment_deletes_its_replicaset_and_pods() -> None:
    async def delete(cluster: MemoryCluster) -> tuple[list[str], list[str]]:
        await bind_all(cluster, ["n1"])
        await settle(cluster)
        await cluster.delete("Deployment", "web", "shop")
        await settle(cluster)  # bound pods terminate for their 30 s grace period
        return names(cluster, "ReplicaSet"), names(cluster)

    assert run(DEPLOYMENT, delete) == ([], [])


def test_a_deleted_node_loses_its_pods_and_their_replicaset_replaces_them() -> None:
    async def outage(cluster: MemoryCluster) -> tuple[list[str], list[str], list[str]]:
        await bind_all(cluster, ["n1", "n2"])
        await settle(cluster)
        before = names(cluster)
        await cluster.delete("Node", "n2")
        await settle(cluster)
        pods = pods_of(cluster, "web-")
        unbound = [p.metadata.name for p in pods if not p.spec.node_name]
        return before, [p.metadata.name for p in pods], unbound

    text = NODES + "---" + DEPLOYMENT
    before, after, unbound = run(text, outage, pod_gc=True)
    # round robin over n1, n2: the second pod was on n2, and is replaced by a new, unbound one
    assert len(after) == 3 and before[1] not in after
    assert [before[0], before[2]] == [n for n in after if n not in unbound]
    assert len(unbound) == 1


def test_a_job_pod_deleted_before_it_finished_counts_as_failed_and_is_replaced() -> None:
    async def preempt(cluster: MemoryCluster) -> tuple[object, int]:
        [first, _] = pods_of(cluster, "crunch-")
        await cluster.delete("Pod", first.metadata.name, "default")  # unbound: gone at once
        await settle(cluster)
        return cluster.get("Job", "crunch", "default"), len(pods_of(cluster, "crunch-"))

    job, pods = run(JOB % "{}", preempt)
    assert job.status.failed == 1  # type: ignore[attr-defined]
    assert pods == 2  # replaced once the 10 s backoff passed


ROLLOUT = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 4
  strategy: {type: %s}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:1.26}]}
"""


async def _new_image(cluster: MemoryCluster) -> None:
    [deployment] = cluster.list("Deployment")
    template = deployment.spec.template
    containers = [template.spec.containers[0].model_copy(update={"image": "nginx:1.27"})]
    spec = deployment.spec.model_copy(
        update={
            "template": template.model_copy(
                update={"spec": template.spec.model_copy(update={"containers": containers})}
            )
        }
    )
    await cluster.update(deployment.model_copy(update={"spec": spec}))
    await settle(cluster, step=0.001, limit=0.01)


def _by_image(cluster: MemoryCluster) -> dict[str, tuple[int, int]]:
    """image -> (active pods, bound active pods)."""
    out: dict[str, tuple[int, int]] = {}
    for pod in cluster.list("Pod"):
        if pod.is_terminal or pod.is_terminating:
            continue
        image = pod.spec.containers[0].image
        active, bound = out.get(image, (0, 0))
        out[image] = (active + 1, bound + bool(pod.spec.node_name))
    return out


def test_a_rolling_update_keeps_within_max_surge_and_max_unavailable() -> None:
    async def roll(cluster: MemoryCluster) -> list[dict[str, tuple[int, int]]]:
        await bind_all(cluster, ["n1"])
        await settle(cluster)
        await _new_image(cluster)
        steps = [_by_image(cluster)]
        for _ in range(10):
            await bind_all(cluster, ["n1"])
            await settle(cluster, step=0.001, limit=0.01)  # not the 30 s grace periods
            steps.append(_by_image(cluster))
        return steps

    steps = run(ROLLOUT % "RollingUpdate", roll)
    for step in steps:
        active = sum(a for a, _ in step.values())
        bound = sum(b for _, b in step.values())
        assert active <= 4 + 1, step  # maxSurge 25% of 4, rounded up
        assert bound >= 4 - 1, step  # maxUnavailable 25%, rounded down
    # before any new pod is bound: one surged, one old scaled away for a second new one
    # (upstream rolling.go: 4+1 pods at most, then 3 available at least)
    assert steps[0] == {"nginx:1.26": (3, 3), "nginx:1.27": (2, 0)}
    assert steps[-1] == {"nginx:1.27": (4, 4)}


def test_a_recreate_rollout_starts_the_new_pods_once_the_old_are_gone() -> None:
    async def roll(cluster: MemoryCluster) -> list[dict[str, tuple[int, int]]]:
        await bind_all(cluster, ["n1"])
        await settle(cluster)
        await _new_image(cluster)
        before = _by_image(cluster)
        terminating = sum(1 for p in cluster.list("Pod") if p.is_terminating)
        await settle(cluster)  # the old pods' 30 s grace periods
        return [before, {"terminating": (terminating, 0)}, _by_image(cluster)]

    before, terminating, after = run(ROLLOUT % "Recreate", roll)
    assert before == {} and terminating == {"terminating": (4, 0)}
    assert after == {"nginx:1.27": (4, 0)}


def test_by_default_pods_of_a_deleted_node_stay_bound_to_it() -> None:
    async def outage(cluster: MemoryCluster) -> list[str]:
        await bind_all(cluster, ["n1", "n2"])
        await settle(cluster)
        await cluster.delete("Node", "n2")
        await settle(cluster)
        return sorted(p.spec.node_name for p in pods_of(cluster, "web-"))

    assert run(NODES + "---" + DEPLOYMENT, outage) == ["n1", "n1", "n2"]


def test_a_finished_pod_records_when_it_finished() -> None:
    async def finish(cluster: MemoryCluster) -> tuple[object, object]:
        [first, _] = pods_of(cluster, "crunch-")
        await cluster.bind(first, "n1")
        bound_at = cluster.clock.wall_time()
        await settle(cluster)
        pod = cluster.get("Pod", first.metadata.name, "default")
        assert pod is not None and pod.status.phase == "Succeeded"
        return bound_at, pod.status.condition("Ready")

    bound_at, ready = run(JOB % "{}", finish)
    assert ready.status == "False" and ready.reason == "PodCompleted"  # type: ignore[attr-defined]
    assert (ready.last_transition_time - bound_at).total_seconds() == 30  # type: ignore[attr-defined,operator]


def test_a_failed_statefulset_replica_is_made_again_under_its_name() -> None:
    async def fail(cluster: MemoryCluster) -> tuple[str, str, str]:
        await bind_all(cluster, ["n1"])
        await settle(cluster)
        pod = cluster.get("Pod", "db-1", "default")
        assert pod is not None
        status = pod.status.model_copy(update={"phase": "Failed"})
        await cluster.update(pod.model_copy(update={"status": status}))
        await settle(cluster)
        again = cluster.get("Pod", "db-1", "default")
        assert again is not None
        return pod.metadata.uid, again.metadata.uid, again.status.phase

    old, new, phase = run(STATEFULSET % "Parallel", fail)
    assert old != new and phase == "Pending"
