"""A soak of the embedded cluster with faults on: pods created and deleted for hours of
virtual time while a fault plan fires, then the invariants, and the sizes (cache, queue,
cluster, the scheduler's attempt records and latencies, memory) sampled every virtual hour
to show they stay flat. The scheduler's report keeps what `kubesched run`'s does
(`RUN_RETENTION`: a deleted pod's record goes, the latest latencies stay; issue 18).

    .tox/integration/bin/python tests/reliability/soak.py --hours 24 --pods-per-minute 70

(about 100,000 pods over a virtual day; `test_soak.py` runs a short one in tox). Prints
one line per virtual hour and a summary; exits 1 when an invariant fails.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _driver import Cluster

from kubesched.scheduler import RUN_RETENTION, Retention
from kubesched.simulate._faults import parse_fault_plan
from kubesched.testing import make_node, make_pod

PLAN = parse_fault_plan(
    {
        "apiVersion": "simulation.kubesched.io/v1alpha1",
        "kind": "FaultPlan",
        "metadata": {"name": "soak"},
        "faults": [
            {"bindError": {"reason": "Conflict"}, "probability": 0.02},
            {"bindError": {"reason": "InternalError"}, "probability": 0.02},
            {
                "pluginError": {"plugin": "NodeResourcesFit", "extensionPoint": "Filter"},
                "probability": 0.0005,
            },
            {"watch": {"kind": "Pod", "action": "Duplicate"}, "probability": 0.05},
            {
                "relist": {"kinds": ["Pod", "Node"], "extensionPoint": "Reserve"},
                "probability": 0.001,
            },
        ],
    },
    "soak plan",
)


@dataclass
class Sample:
    minute: int
    pods: int
    bound: int
    queued: int
    cached: int
    records: int
    latencies: int
    memory_mb: float


@dataclass
class Soak:
    nodes: int = 50
    hours: float = 24.0
    pods_per_minute: int = 70
    lifetime_minutes: int = 10
    """How long a bound pod lives before it is deleted."""
    sample_minutes: int = 60
    retention: Retention = RUN_RETENTION
    """What the scheduler's report keeps (`kubesched run`'s by default)."""
    samples: list[Sample] = field(default_factory=list)
    created: int = 0
    deleted: int = 0

    def run(self, report: bool = True) -> dict[str, Any]:
        started = time.perf_counter()
        c = Cluster(None, PLAN)
        c.scheduler.report.retention = self.retention
        try:
            for i in range(self.nodes):
                node = make_node(f"n{i}").alloc(cpu="16", memory="64Gi", pods=110).obj()
                c.do(c.cluster.create(node))
            born: list[tuple[float, str]] = []
            minutes = int(self.hours * 60)
            for minute in range(minutes):
                now = c.sim.clock.now()
                for _ in range(self.pods_per_minute):
                    name = f"p{self.created}"
                    self.created += 1
                    pod = make_pod(name, uid="").req(cpu="500m", memory="1Gi")
                    c.do(c.cluster.create(pod.spec(terminationGracePeriodSeconds=0).obj()))
                    born.append((now, name))
                while born and born[0][0] <= now - self.lifetime_minutes * 60:
                    _, name = born.pop(0)
                    c.do(c.cluster.delete("Pod", name, "default"))
                    self.deleted += 1
                c.settle(60.0)
                if c.sim.clock.now() < now + 60:
                    c.sim.clock.advance_to(now + 60)
                if (minute + 1) % self.sample_minutes == 0:
                    self.samples.append(self.sample(c, minute + 1))
                    if report:
                        print(self.samples[-1], flush=True)
            c.settle(600.0)
            problems = check(c)
            injector = c.sim.injector
            assert injector is not None
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
            return {
                "virtual_hours": c.sim.clock.now() / 3600,
                "wall_seconds": time.perf_counter() - started,
                "created": self.created,
                "deleted": self.deleted,
                "bound": sum(1 for p in c.cluster.list("Pod") if p.spec.node_name),
                "faults": injector.by_kind(),
                "peak_mb": peak / 2**20,
                "problems": problems,
            }
        finally:
            c.close()

    def sample(self, c: Cluster, hour: int) -> Sample:
        pods = c.cluster.list("Pod")
        queue = c.scheduler.queue
        queued = sum(len(v) for v in queue.pending_pods().values())
        cached = sum(len(info.pods) for info in c.scheduler.cache.dump().values())
        current = _rss()
        return Sample(
            hour,
            len(pods),
            sum(1 for p in pods if p.spec.node_name),
            queued,
            cached,
            len(c.scheduler.report.records),
            len(c.scheduler.report.stats.attempt_latencies),
            round(current / 2**20, 1),
        )


def _rss() -> int:
    """The process's resident memory now, in bytes (Linux /proc)."""
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def check(c: Cluster) -> list[str]:
    """The invariants at the end (an idle point): the cache is the cluster's bound pods,
    nothing is assumed, every Reserve was unreserved or bound, every pending pod is queued
    once, no node over its allocatable."""
    problems: list[str] = []
    dump = c.scheduler.cache.dump()
    bound: dict[str, set[str]] = {}
    for pod in c.cluster.list("Pod"):
        if pod.spec.node_name:
            bound.setdefault(pod.spec.node_name, set()).add(pod.metadata.uid)
    for name in set(bound) | set(dump):
        cached = {p.pod.metadata.uid for p in dump[name].pods} if name in dump else set()
        if cached != bound.get(name, set()):
            problems.append(f"node {name}: cache and cluster disagree")
        info = dump.get(name)
        if info is not None and info.node is not None:
            if info.requested.milli_cpu > info.allocatable.milli_cpu:
                problems.append(f"node {name}: cpu over allocatable")
            if any(c.scheduler.cache.is_assumed_pod(p.pod) for p in info.pods):
                problems.append(f"node {name}: a pod still assumed")
    injector = c.sim.injector
    assert injector is not None
    if injector.ledger.reserved:
        problems.append(f"Reserve without Unreserve: {sorted(injector.ledger.reserved)[:5]}")
    queue = c.scheduler.queue
    places: dict[str, int] = {}
    for infos in queue.pending_pods().values():
        for qpi in infos:
            places[qpi.uid] = places.get(qpi.uid, 0) + 1
    pending = {p.metadata.uid for p in c.cluster.list("Pod") if not p.spec.node_name}
    if any(places.get(uid, 0) != 1 for uid in pending) or set(places) - pending:
        problems.append("queue and pending pods disagree")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--pods-per-minute", type=int, default=70)
    parser.add_argument("--nodes", type=int, default=50)
    args = parser.parse_args()
    soak = Soak(nodes=args.nodes, hours=args.hours, pods_per_minute=args.pods_per_minute)
    summary = soak.run()
    for key, value in summary.items():
        print(f"{key}: {value}")
    return 1 if summary["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
