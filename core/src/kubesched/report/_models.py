"""The JSON report as pydantic models: what `kubesched simulate -o json` prints and what the
HTML report embeds, described once so its JSON Schema is generated, not written by hand.

The documents themselves are built by `SimulationResult.to_json_dict` (and, for the HTML
report's extra keys, by this package); these models describe them field by field. They
forbid unknown keys, so the published schema (`kubesched schema report`,
`schema/simulation-report.schema.json`) fails on a key nobody documented, and a program can
read a report back with `SimulationReport.model_validate_json`.

`version` is REPORT_VERSION; it changes when a key is removed or changes meaning (new keys
do not change it).
"""

from __future__ import annotations

from typing import Any, ClassVar, Final, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from kubesched.simulate import PodOutcome

__all__ = [
    "REPORT_VERSION",
    "AttemptRecord",
    "CheckpointRecord",
    "DetailLines",
    "ExplanationRecord",
    "LatencyRecord",
    "NodeExplanationRecord",
    "NodeRecord",
    "NominatedPods",
    "PodCounts",
    "PodDetails",
    "PodErrorRecord",
    "PodRecord",
    "ReasonRecord",
    "ReportModel",
    "SectionTable",
    "SimulationReport",
    "SkippedRecord",
    "SummaryRecord",
    "TimelinePointRecord",
    "TimelineRecord",
    "VolumeClaimRecord",
]

REPORT_VERSION: Final = 1
"""The report format's version: the `version` key of every JSON report."""


class ReportModel(BaseModel):
    """The base of the report's models: camelCase keys, unknown keys refused."""

    model_config: ClassVar[ConfigDict] = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid"
    )


class PodErrorRecord(ReportModel):
    """Where the Error status of an `Error` pod's last attempt came from."""

    plugin: str
    exception: str
    location: str
    """`file:line` in the plugin's code the exception was raised at."""
    traceback: str
    """The formatted traceback (only for pods named by --explain, else "")."""


class PodRecord(ReportModel):
    """One pod: where it went, or why it is not there."""

    namespace: str
    name: str
    scheduler_name: str
    node: str | None
    status: PodOutcome
    message: str
    """Why the pod is not bound (empty when bound)."""
    attempts: int
    nominated_node: str | None
    preempted_by: str | None
    """The preemptor's `namespace/name`, for a pod evicted by preemption."""
    preempted_at: float | None
    error: PodErrorRecord | None
    created_at: float | None = None
    """Virtual seconds at which the pod was created (null: never seen by the run)."""
    bound_at: float | None = None
    finished_at: float | None = None
    latency_seconds: float | None = None
    """Seconds from creation to binding by the scheduler (null: not bound by it)."""


class NodeRecord(ReportModel):
    """One node's allocatable and requested resources (CPU in millicores, others in base
    units, `pods` the number of pods)."""

    name: str
    allocatable: dict[str, int]
    requested: dict[str, int]
    pods: int


class SummaryRecord(ReportModel):
    """How many pods ended in each status, and the run."""

    pods: int
    bound: int
    unschedulable: int
    error: int
    waiting: int
    pending: int
    preempted: int
    terminating: int
    succeeded: int | None = None
    """Only when some pod finished (the pod lifecycle)."""
    failed: int | None = None
    nodes: int
    virtual_seconds: float
    seed: int
    attempts: int


class ReasonRecord(ReportModel):
    """How many pods are not bound with this status and message."""

    status: PodOutcome
    message: str
    count: int


class SkippedRecord(ReportModel):
    """Objects left out because no installed package registers their kind."""

    api_version: str
    kind: str
    count: int
    file: str
    document: int
    reason: str


class NodeExplanationRecord(ReportModel):
    """One node in an explanation (`--explain`): each Filter plugin's verdict, each Score
    plugin's scores."""

    node: str
    feasible: bool
    excluded: str
    nominated_pods: list[str]
    filters: dict[str, str]
    """Filter plugin → "ok", "skipped" or "<Code>: <reason>"."""
    details: dict[str, list[str]]
    raw_scores: dict[str, int]
    normalized_scores: dict[str, int]
    weighted_scores: dict[str, int]
    total: int | None


class ExplanationRecord(ReportModel):
    """A pod's last attempt plugin by plugin (`--explain POD`)."""

    pod: str
    attempt: int
    virtual_time: float
    pre_filter: dict[str, str]
    weights: dict[str, int]
    nodes: list[NodeExplanationRecord]
    outcome: str
    notes: list[str]


class PodCounts(ReportModel):
    """Pods by state and the nodes, at one instant: `bound` pods on a node and running
    (terminating ones included, as they still hold their node), `pending` pods without a
    node, `nodes` the Nodes then in the cluster."""

    at: float
    """Virtual seconds."""
    pods: int
    bound: int
    pending: int
    terminating: int
    succeeded: int
    failed: int
    nodes: int


class CheckpointRecord(PodCounts):
    """The cluster's state at a scenario's `checkpoint` step."""

    name: str
    step: int
    placements: dict[str, str] | None = None
    """Every bound pod's node (left out with --summary)."""
    pending_pods: list[str] | None = None


class TimelinePointRecord(PodCounts):
    """The pod and node counts from virtual second `at` until the next point."""


class LatencyRecord(ReportModel):
    """Scheduling latency (created → bound) of the pods the scheduler bound, in seconds;
    nearest-rank percentiles, null when no pod was bound."""

    pods: int
    p50: float | None
    p90: float | None
    p99: float | None
    max: float | None


class TimelineRecord(ReportModel):
    points: list[TimelinePointRecord]
    latency: LatencyRecord


class DetailLines(ReportModel):
    """A Filter plugin's `explain_filter` lines about a node it rejected."""

    node: int
    """Index into the attempt's `nodes`."""
    plugin: str
    lines: list[str]


class NominatedPods(ReportModel):
    """Pods nominated to a node that Filter counted as if running there."""

    node: int
    pods: list[str]


class AttemptRecord(ReportModel):
    """One scheduling attempt of a pod, plugin by plugin (what `--explain` shows), in a
    compact form: nodes are indices into `nodes`; a Filter plugin of `filterPlugins`
    passed every node not in its `verdicts` groups (and not `excluded`); a Score plugin's
    weighted score is its normalized score times its weight."""

    attempt: int
    at: float
    """Virtual seconds at which the attempt began."""
    profile: str
    pre_filter: dict[str, str]
    """PreFilter plugin → "ok", "Skip", "<Code>: <reason>" or "not run"."""
    filter_plugins: list[str]
    weights: dict[str, int]
    """Score plugin → its weight."""
    nodes: list[str]
    """The nodes of the cycle's snapshot."""
    outcome: str
    """How the scheduling cycle ended: `assumed on <node>` or `<Code>: <reason>`."""
    result: str = ""
    """What came of it after the cycle: `bound to <node>`, a binding failure, or the node
    preemption nominated."""
    excluded: dict[str, list[int]] = Field(default_factory=dict)
    """Why the cycle did not filter these nodes at all ("<Code>: <reason>") → the nodes."""
    verdicts: dict[str, dict[str, list[int]]] = Field(default_factory=dict)
    """Filter plugin → its verdict ("skipped" or "<Code>: <reason>") → the nodes it gave."""
    details: list[DetailLines] = Field(default_factory=list)
    nominated_pods: list[NominatedPods] = Field(default_factory=list)
    scored: list[int] = Field(default_factory=list)
    """The nodes the cycle scored; the score lists below follow this order."""
    raw_scores: dict[str, list[int]] = Field(default_factory=dict)
    """Score plugin → each scored node's score before NormalizeScore."""
    normalized_scores: dict[str, list[int]] = Field(default_factory=dict)
    """Score plugin → each scored node's normalized score, for the plugins whose
    normalized scores differ from the raw ones."""
    totals: list[int] = Field(default_factory=list)
    """Each scored node's weighted sum, which the host was selected by."""
    notes: list[str] = Field(default_factory=list)


class VolumeClaimRecord(ReportModel):
    """A PersistentVolumeClaim a pod uses."""

    name: str
    phase: str | None = None
    """The claim's phase when the run ended (null: no such claim in the cluster)."""
    volume: str | None = None
    """The PersistentVolume it is bound to."""


class PodDetails(ReportModel):
    """What the HTML report shows of a pod beyond its result."""

    priority: int | None = None
    """Null for a preemptor no longer in the cluster (only its victims are known)."""
    requests: dict[str, int] = Field(default_factory=dict)
    pod_group: str | None = None
    """The gang it belongs to (the `scheduling.x-k8s.io/pod-group` label)."""
    claims: list[VolumeClaimRecord] = Field(default_factory=list)
    victims: list[str] = Field(default_factory=list)
    """The pods its preemption evicted."""
    labels: dict[str, str] = Field(default_factory=dict)


class SectionTable(ReportModel):
    """A report section as its table (`ReportSection`'s title, columns, rows, caption)."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    caption: str


class SimulationReport(ReportModel):
    """A simulation's report: `kubesched simulate -o json` (the full form or, with
    --summary, `summary`, `reasons`, `skipped`, `checkpoints`) and the data of the HTML
    report (`--report`), which adds `attempts`, `details`, `zones`, `sectionTables` and `title`."""

    version: Literal[1]
    pods: list[PodRecord] | None = None
    nodes: list[NodeRecord] | None = None
    summary: SummaryRecord
    reasons: list[ReasonRecord] | None = None
    skipped: list[SkippedRecord]
    explanations: dict[str, ExplanationRecord] | None = None
    sections: dict[str, Any] | None = None
    """Each hook module's section payload under its key (`kubesched_report_sections`)."""
    checkpoints: list[CheckpointRecord] | None = None
    timeline: TimelineRecord | None = None
    attempts: dict[str, list[AttemptRecord]] | None = None
    """HTML report: every attempt of every pod, by `namespace/name`."""
    details: dict[str, PodDetails] | None = None
    """HTML report: each pod's priority, requests, gang, claims and victims."""
    zones: dict[str, str] | None = None
    """HTML report: node → its `topology.kubernetes.io/zone` (nodes with the label)."""
    section_tables: dict[str, SectionTable] | None = None
    """HTML report: each section's table, by its key."""
    title: str | None = None
    """HTML report: what was simulated (the files, the config, the seed)."""
