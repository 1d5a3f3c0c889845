"""Message table: every Status reason the plugins of kubesched-builtin can give a pod, as
kube-scheduler v1.34 words it. Messages are part of the interface: people grep and alert on
them.

Each row names the plugin, the reason copied from the upstream Go source (the file is named
above each group), its Code, and a small scenario. The plugin, built by its factory with a
real Handle (`kubesched.testing.PluginHarness`), must give exactly that reason with exactly
that code; and where a scheduler can show it, the whole PodScheduled message of a run with
the default profile of the installed plugins (DefaultPreemption included) is asserted too,
as the real v1.34 binary prints it.

Reasons upstream cannot produce are left out: NodeResourcesFit's `Pod has a restartable init
container and the SidecarContainers feature is disabled` (SidecarContainers is locked on in
v1.34), NodeUnschedulable's unused `node(s) had unknown conditions`, and DefaultPreemption's
PreEnqueue `waiting for the preemption for this pod to be finished` (kubesched evicts the
victims before the preemptor can be tried again; see preemption/evaluator.py). PrioritySort,
ImageLocality, NodeResourcesBalancedAllocation and DefaultBinder reject nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from kubesched.api import Node, Pod
from kubesched.cli._main import main
from kubesched.framework import Code, CycleState, NoArgs, NodeToStatus, Plugin, Status
from kubesched.testing import (
    ClusterScenario,
    NodeBuilder,
    PluginHarness,
    PodBuilder,
    Scenario,
    make_node,
    make_pod,
    run_end_to_end,
)
from kubesched_builtin.defaultpreemption import DefaultPreemption
from kubesched_builtin.interpodaffinity import InterPodAffinity
from kubesched_builtin.nodeaffinity import NodeAffinity
from kubesched_builtin.nodename import NodeName
from kubesched_builtin.nodeports import NodePorts
from kubesched_builtin.noderesources import NodeResourcesFit
from kubesched_builtin.nodeunschedulable import NodeUnschedulable
from kubesched_builtin.podtopologyspread import PodTopologySpread
from kubesched_builtin.schedulinggates import SchedulingGates
from kubesched_builtin.tainttoleration import TaintToleration

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"


def node(name: str, cpu: str = "2", **labels: str) -> NodeBuilder:
    """A node of `cpu` CPUs, 4Gi and room for 10 pods, labelled with its hostname."""
    return make_node(name).alloc(cpu=cpu, memory="4Gi", pods=10).label(**{HOSTNAME: name}, **labels)


def pod(name: str = "p", cpu: str = "1", priority: int = 0) -> PodBuilder:
    return make_pod(name).req(cpu=cpu).priority(priority)


def not_helpful(n: int) -> str:
    """DefaultPreemption's message when Filter found every node UnschedulableAndUnresolvable."""
    return f"preemption: 0/{n} nodes are available: {n} {NOT_HELPFUL}."


def post_filter_not_helpful(n: int) -> str:
    """What the default profile's PostFilter plugins say then: DynamicResources' for a pod
    without claims, DefaultPreemption's after it."""
    return f"no new claims to deallocate, {not_helpful(n)}"


NOT_FOUND = "not found"
"""The default profile's PostFilter after a PreFilter rejection: PreFilter stopped before
DynamicResources' ran, its PostFilter finds no state and fails with CycleState's "not found",
which ends PostFilter (DefaultPreemption does not run), as v1.34 prints it."""


def anti_affinity(app: str) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": HOSTNAME}
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def spread(when: str = "DoNotSchedule") -> list[dict[str, Any]]:
    return [
        {
            "maxSkew": 1,
            "topologyKey": ZONE,
            "whenUnsatisfiable": when,
            "labelSelector": {"matchLabels": {"app": "web"}},
        }
    ]


@dataclass(frozen=True)
class Row:
    """One reason: who gives it, the upstream text and code, and where to see it."""

    plugin: type[Plugin]
    reason: str
    code: Code
    nodes: list[NodeBuilder]
    pod: PodBuilder
    running: list[PodBuilder] = field(default_factory=list)
    at: str | None = None
    """The node whose Filter verdict it is; None for PreFilter (PreEnqueue for
    SchedulingGates)."""
    args: dict[str, Any] = field(default_factory=dict)
    """The plugin's args, as in a pluginConfig (camelCase)."""
    message: str | None = None
    """The pod's PodScheduled message with the default profile; None where no scheduler
    shows the reason (say why in the row's comment)."""
    admitted: bool = True
    """False for a pod the API server refuses: the cluster holds a valid stand-in and the
    plugin is asked about the pod itself."""

    @property
    def id(self) -> str:
        return f"{self.plugin.name}: {self.reason[:60]} ({self.code})"

    def scenario(self) -> Scenario:
        the_pod = self.pod if self.admitted else make_pod("p")
        return Scenario(
            [n.obj() for n in self.nodes], [p.obj() for p in self.running], the_pod.obj()
        )

    def cluster(self) -> ClusterScenario:
        scenario = self.scenario()
        return ClusterScenario(scenario.nodes, scenario.existing, [scenario.pod])


def _harness(row: Row) -> PluginHarness:
    args = getattr(row.plugin, "Args", NoArgs).model_validate(row.args)
    return PluginHarness(row.plugin, args, row.scenario())


def plugin_verdict(row: Row) -> Status:
    """What the plugin itself says: its PreEnqueue or PreFilter status, or its Filter
    status on `row.at`."""
    harness = _harness(row)
    plugin: Any = harness.plugin
    if row.plugin is SchedulingGates:
        return plugin.pre_enqueue(harness.pod) or Status()
    phase = harness.filter_phase(CycleState(), row.pod.obj())
    if row.at is None:
        return phase.pre_filter
    assert phase.pre_filter.is_success or phase.pre_filter.is_skip, phase.pre_filter
    return phase.statuses[row.at]


ROWS = [
    # pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go
    # (`fmt.Sprintf("waiting for scheduling gates: %v", gates)`): the pod never reaches a
    # cycle and keeps the SchedulingGated condition the API server gave it
    Row(
        SchedulingGates,
        "waiting for scheduling gates: [example.com/a example.com/b]",
        Code.UnschedulableAndUnresolvable,
        [node("n1")],
        pod().gates("example.com/a", "example.com/b"),
    ),
    # pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go
    Row(
        NodeUnschedulable,
        "node(s) were unschedulable",
        Code.UnschedulableAndUnresolvable,
        [node("n1").unschedulable()],
        pod(),
        at="n1",
        message="0/1 nodes are available: 1 node(s) were unschedulable. "
        + post_filter_not_helpful(1),
    ),
    # pkg/scheduler/framework/plugins/nodename/node_name.go: a pod naming its node is never
    # queued (the scheduler watches unassigned pods only), so no scheduler shows it
    Row(
        NodeName,
        "node(s) didn't match the requested node name",
        Code.UnschedulableAndUnresolvable,
        [node("n1"), node("n2")],
        pod().node("n2"),
        at="n1",
    ),
    # pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go (v1.34 names no
    # taint: kubernetes/kubernetes#134740, release-1.34 #135023), so different taints are
    # one histogram entry
    Row(
        TaintToleration,
        "node(s) had untolerated taint(s)",
        Code.UnschedulableAndUnresolvable,
        [node("n1").taint("dedicated", "gpu"), node("n2").taint("spot", "", "NoExecute")],
        pod(),
        at="n1",
        message="0/2 nodes are available: 2 node(s) had untolerated taint(s). "
        + post_filter_not_helpful(2),
    ),
    # pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go
    Row(
        NodeAffinity,
        "node(s) didn't match Pod's node affinity/selector",
        Code.UnschedulableAndUnresolvable,
        [node("n1", zone="a")],
        pod().node_selector(zone="b"),
        at="n1",
        message=(
            "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. "
            + post_filter_not_helpful(1)
        ),
    ),
    Row(
        NodeAffinity,
        "node(s) didn't match scheduler-enforced node affinity",
        Code.UnschedulableAndUnresolvable,
        [node("n1")],
        pod(),
        at="n1",
        args={
            "addedAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "env", "operator": "Exists"}]}
                    ]
                }
            }
        },
        message=(
            "0/1 nodes are available: 1 node(s) didn't match scheduler-enforced node "
            f"affinity. {post_filter_not_helpful(1)}"
        ),
    ),
    Row(
        NodeAffinity,
        "pod affinity terms conflict",
        Code.UnschedulableAndUnresolvable,
        [node("n1")],
        pod().spec(
            affinity={
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchFields": [
                                    {"key": "metadata.name", "operator": "In", "values": [n]}
                                    for n in ("n1", "n2")
                                ]
                            }
                        ]
                    }
                }
            }
        ),
        message=f"0/1 nodes are available: pod affinity terms conflict. {NOT_FOUND}",
    ),
    # pkg/scheduler/framework/plugins/nodeports/node_ports.go
    Row(
        NodePorts,
        "node(s) didn't have free ports for the requested pod ports",
        Code.Unschedulable,
        [node("n1")],
        make_pod("p").container(
            name="c", image="pause", ports=[{"containerPort": 80, "hostPort": 8080}]
        ),
        running=[
            make_pod("web")
            .node("n1")
            .container(name="c", image="pause", ports=[{"containerPort": 80, "hostPort": 8080}])
        ],
        at="n1",
        message=(
            "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod "
            "ports. no new claims to deallocate, "
            f"preemption: 0/1 nodes are available: 1 {NO_VICTIMS}."
        ),
    ),
    # pkg/scheduler/framework/plugins/noderesources/fit.go: `Too many pods`, `Insufficient
    # %v`; UnschedulableAndUnresolvable when the request exceeds the node's whole
    # allocatable (v1.34, kubernetes/kubernetes#131345), never for the pod count
    Row(
        NodeResourcesFit,
        "Too many pods",
        Code.Unschedulable,
        [make_node("n1").alloc(cpu="2", memory="4Gi", pods=1)],
        pod(),
        running=[pod("web").node("n1")],
        at="n1",
        message=(
            "0/1 nodes are available: 1 Too many pods. no new claims to deallocate, "
            f"preemption: 0/1 nodes are available: 1 {NO_VICTIMS}."
        ),
    ),
    Row(
        NodeResourcesFit,
        "Insufficient cpu",
        Code.Unschedulable,
        [node("n1")],
        pod(),
        running=[pod("web", cpu="2").node("n1")],
        at="n1",
        message=(
            "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
            f"preemption: 0/1 nodes are available: 1 {NO_VICTIMS}."
        ),
    ),
    Row(  # the comparison with the real v1.34.7 binary: 8 CPUs asked of two 1-CPU nodes
        NodeResourcesFit,
        "Insufficient cpu",
        Code.UnschedulableAndUnresolvable,
        [node("n1", cpu="1"), node("n2", cpu="1")],
        pod(cpu="8", priority=100),
        running=[pod("low", cpu="1").node("n1")],
        at="n1",
        message=f"0/2 nodes are available: 2 Insufficient cpu. {post_filter_not_helpful(2)}",
    ),
    Row(
        NodeResourcesFit,
        "Insufficient memory",
        Code.UnschedulableAndUnresolvable,
        [node("n1")],
        make_pod("p").req(memory="8Gi"),
        at="n1",
        message=f"0/1 nodes are available: 1 Insufficient memory. {post_filter_not_helpful(1)}",
    ),
    Row(
        NodeResourcesFit,
        "Insufficient ephemeral-storage",
        Code.UnschedulableAndUnresolvable,
        [make_node("n1").alloc(cpu="2", memory="4Gi", pods=10, **{"ephemeral-storage": "1Gi"})],
        make_pod("p").req(**{"ephemeral-storage": "2Gi"}),
        at="n1",
        message="0/1 nodes are available: 1 Insufficient ephemeral-storage. "
        + post_filter_not_helpful(1),
    ),
    Row(
        NodeResourcesFit,
        "Insufficient example.com/gpu",
        Code.UnschedulableAndUnresolvable,
        [node("n1")],
        make_pod("p").req(**{"example.com/gpu": 1}),
        at="n1",
        message="0/1 nodes are available: 1 Insufficient example.com/gpu. "
        + post_filter_not_helpful(1),
    ),
    # pkg/scheduler/framework/plugins/interpodaffinity/filtering.go
    Row(
        InterPodAffinity,
        "node(s) didn't match pod affinity rules",
        Code.UnschedulableAndUnresolvable,
        [node("n1")],
        pod()
        .label(app="web")
        .spec(
            affinity={
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": HOSTNAME}
                    ]
                }
            }
        ),
        at="n1",
        message=(
            "0/1 nodes are available: 1 node(s) didn't match pod affinity rules. "
            + post_filter_not_helpful(1)
        ),
    ),
    Row(
        InterPodAffinity,
        "node(s) didn't match pod anti-affinity rules",
        Code.Unschedulable,
        [node("n1")],
        pod().label(app="cache").spec(affinity=anti_affinity("cache")),
        running=[pod("cache-0").label(app="cache").node("n1")],
        at="n1",
        message=(
            "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. "
            "no new claims to deallocate, "
            f"preemption: 0/1 nodes are available: 1 {NO_VICTIMS}."
        ),
    ),
    Row(
        InterPodAffinity,
        "node(s) didn't satisfy existing pods anti-affinity rules",
        Code.Unschedulable,
        [node("n1")],
        pod().label(app="web"),
        running=[pod("loner").node("n1").spec(affinity=anti_affinity("web"))],
        at="n1",
        message=(
            "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity "
            "rules. no new claims to deallocate, "
            f"preemption: 0/1 nodes are available: 1 {NO_VICTIMS}."
        ),
    ),
    # plugin.go PreFilter (`parsing pod: %+v`); the API server rejects such a pod, so no
    # scheduler shows it (upstream's filtering_test.go case, with its text)
    Row(
        InterPodAffinity,
        "parsing pod: requiredAffinityTerms: values[0][service]: "
        'Invalid value: "{{.bad-value.}}": '
        "a valid label must be an empty string or consist of alphanumeric characters, '-', "
        "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  "
        "or 'my_value',  or '12345', regex used for validation is "
        "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        Code.UnschedulableAndUnresolvable,
        [node("n1")],
        pod().spec(
            affinity={
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "labelSelector": {
                                "matchExpressions": [
                                    {
                                        "key": "service",
                                        "operator": "In",
                                        "values": ["{{.bad-value.}}"],
                                    }
                                ]
                            },
                            "topologyKey": "region",
                        }
                    ]
                }
            }
        ),
        admitted=False,
    ),
    # pkg/scheduler/framework/plugins/podtopologyspread/filtering.go: the domain with fewest
    # pods (zone b) is cordoned, so zone a's skew would be 2
    Row(
        PodTopologySpread,
        "node(s) didn't match pod topology spread constraints",
        Code.Unschedulable,
        [node("n1", **{ZONE: "a"}), node("n2", **{ZONE: "b"}).unschedulable()],
        pod().label(app="web").spec(topologySpreadConstraints=spread()),
        running=[pod("web-0").label(app="web").node("n1")],
        at="n1",
        message=(
            "0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints, "
            "1 node(s) were unschedulable. no new claims to deallocate, "
            "preemption: 0/2 nodes are available: "
            f"1 {NO_VICTIMS}, 1 {NOT_HELPFUL}."
        ),
    ),
    Row(
        PodTopologySpread,
        "node(s) didn't match pod topology spread constraints (missing required label)",
        Code.UnschedulableAndUnresolvable,
        [node("n1")],
        pod().label(app="web").spec(topologySpreadConstraints=spread()),
        at="n1",
        message=(
            "0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints "
            f"(missing required label). {post_filter_not_helpful(1)}"
        ),
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_plugin_gives_the_upstream_reason(row: Row) -> None:
    status = plugin_verdict(row)
    assert (status.code, status.message()) == (row.code, row.reason)


SHOWN = [r for r in ROWS if r.message is not None]


@pytest.mark.parametrize("row", SHOWN, ids=[r.id for r in SHOWN])
def test_scheduler_prints_it_as_v1_34_does(row: Row) -> None:
    """The default profile of the installed plugins (the row's plugin with its args)."""
    result = run_end_to_end(row.plugin, row.args, row.cluster()).result
    assert (result.pod("p").status, result.pod("p").message) == ("Unschedulable", row.message)


def test_explain_names_the_taint_the_reason_leaves_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`kubesched simulate --explain` says which taint (TaintToleration's FilterExplainer),
    on examples/taints as its README says."""
    taints = str(EXAMPLES / "taints")
    assert main(["simulate", taints, "--output", "json", "--explain", "no-toleration"]) == 0
    data = json.loads(capsys.readouterr().out)
    nodes = {n["node"]: n for n in data["explanations"]["default/no-toleration"]["nodes"]}
    assert nodes["gpu-1"]["filters"]["TaintToleration"] == (
        "UnschedulableAndUnresolvable: node(s) had untolerated taint(s)"
    )
    assert nodes["gpu-1"]["details"]["TaintToleration"] == [
        "untolerated taint {nvidia.com/gpu: present}"
    ]


# -- DefaultPreemption ---------------------------------------------------------------------
# pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go (PostFilter prefixes
# every message with `preemption: `; PodEligibleToPreemptOthers; SelectVictimsOnNode) and
# pkg/scheduler/framework/preemption/preemption.go (a FitError over the nodes preemption
# could not use, absent nodes `Preemption is not helpful for scheduling`, code Unschedulable)


@dataclass(frozen=True)
class PreemptionRow:
    """What PostFilter returns for `pod` when Filter gave each node `verdicts`."""

    name: str
    message: str
    code: Code
    nodes: list[NodeBuilder]
    pod: PodBuilder
    verdicts: dict[str, Status]
    running: list[PodBuilder | Pod] = field(default_factory=list)
    shown: str | None = None
    """The whole PodScheduled message with the default profile (None: not reproducible in
    a run, see the row)."""

    def harness(self) -> PluginHarness:
        return PluginHarness(DefaultPreemption, DefaultPreemption.Args(), Scenario(*self.objects()))

    def objects(self) -> tuple[list[Node], list[Pod], Pod]:
        running = [p if isinstance(p, Pod) else p.obj() for p in self.running]
        return [n.obj() for n in self.nodes], running, self.pod.obj()


def _terminating_victim() -> Pod:
    """A low-priority pod on n1 being deleted by an earlier preemption."""
    data = pod("victim").node("n1").obj().model_dump(by_alias=True, exclude_none=True)
    data["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    data["status"]["conditions"] = [
        {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}
    ]
    return Pod.model_validate(data)


PREEMPTION_ROWS = [
    PreemptionRow(
        "preemptionPolicy Never",
        "preemption: not eligible due to preemptionPolicy=Never.",
        Code.Unschedulable,
        [node("n1")],
        pod(priority=100).spec(preemptionPolicy="Never"),
        {"n1": Status.unschedulable("Insufficient cpu")},
        running=[pod("low", cpu="2").node("n1")],
        shown="0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
        "preemption: not eligible due to preemptionPolicy=Never.",
    ),
    # in a run the preemptor is tried again only once its victims are gone (their
    # termination changes nothing its plugins' hints wait for), so none shows this one
    PreemptionRow(
        "a victim of an earlier preemption still terminating on the nominated node",
        "preemption: not eligible due to a terminating pod on the nominated node.",
        Code.Unschedulable,
        [node("n1")],
        pod(priority=100).nominated("n1"),
        {"n1": Status.unschedulable("Insufficient cpu")},
        running=[_terminating_victim()],
    ),
    PreemptionRow(
        "no lower-priority pod on the node",
        f"preemption: 0/1 nodes are available: 1 {NO_VICTIMS}.",
        Code.Unschedulable,
        [node("n1")],
        pod(priority=100),
        {"n1": Status.unschedulable("Insufficient cpu")},
        running=[pod("peer", cpu="2", priority=100).node("n1")],
        shown="0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
        f"preemption: 0/1 nodes are available: 1 {NO_VICTIMS}.",
    ),
    PreemptionRow(
        "every node UnschedulableAndUnresolvable",
        not_helpful(2),
        Code.Unschedulable,
        [node("n1", cpu="1"), node("n2", cpu="1")],
        pod(cpu="8", priority=100),
        {n: Status.unresolvable("Insufficient cpu") for n in ("n1", "n2")},
        running=[pod("low", cpu="1").node("n1")],
        shown=f"0/2 nodes are available: 2 Insufficient cpu. {post_filter_not_helpful(2)}",
    ),
]


@pytest.mark.parametrize("row", PREEMPTION_ROWS, ids=[r.name for r in PREEMPTION_ROWS])
def test_default_preemption_messages(row: PreemptionRow) -> None:
    harness = row.harness()
    statuses = NodeToStatus()
    for name, status in row.verdicts.items():
        statuses.set(name, status)
    plugin: Any = harness.plugin
    _, status = plugin.post_filter(CycleState(), harness.pod, statuses)
    assert (status.code, status.message()) == (row.code, row.message)


SHOWN_PREEMPTION = [r for r in PREEMPTION_ROWS if r.shown is not None]


@pytest.mark.parametrize("row", SHOWN_PREEMPTION, ids=[r.name for r in SHOWN_PREEMPTION])
def test_default_preemption_as_v1_34_prints_it(row: PreemptionRow) -> None:
    nodes, running, the_pod = row.objects()
    cluster = ClusterScenario(nodes, running, [the_pod])
    result = run_end_to_end(DefaultPreemption, {}, cluster).result
    assert (result.pod("p").status, result.pod("p").message) == ("Unschedulable", row.shown)


def test_no_victims_is_unresolvable_on_the_node() -> None:
    """SelectVictimsOnNode's status for a node without lower-priority pods."""
    row = next(r for r in PREEMPTION_ROWS if r.name == "no lower-priority pod on the node")
    harness = row.harness()
    plugin: Any = harness.plugin
    _, _, status = plugin.select_victims_on_node(
        CycleState(), harness.pod, harness.nodes[0].clone(), []
    )
    assert (status.code, status.message()) == (Code.UnschedulableAndUnresolvable, NO_VICTIMS)


def test_the_victims_gone_the_filter_still_says_why() -> None:
    """After removing every lower-priority pod the node still does not fit: that node's
    Filter reason is what the preemption message counts."""
    running = [pod("peer", cpu="2", priority=100).node("n1"), pod("low", cpu="1").node("n1")]
    cluster = ClusterScenario(
        [node("n1", cpu="4").obj()], [p.obj() for p in running], [pod(cpu="3", priority=100).obj()]
    )
    result = run_end_to_end(DefaultPreemption, {}, cluster).result
    assert result.pod("p").message == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/1 nodes are available: 1 Insufficient cpu."
    )
