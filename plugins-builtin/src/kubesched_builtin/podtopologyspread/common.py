"""What PreFilter, PreScore and the queueing hints share: parsed constraints and selectors.

Upstream: pkg/scheduler/framework/plugins/podtopologyspread/common.go, and
pkg/scheduler/framework/plugins/helper/spread.go for the selector that default constraints
take from the pod's Services, ReplicationControllers, ReplicaSets and StatefulSets.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from pydantic import BaseModel

from kubesched.api import (
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    Pod,
    Taint,
    TopologySpreadConstraint,
    find_untolerated_taint,
)
from kubesched.framework import PodInfo
from kubesched_builtin.nodeaffinity import RequiredNodeAffinity

__all__ = [
    "HONOR",
    "IGNORE",
    "LABEL_HOSTNAME",
    "LABEL_TOPOLOGY_ZONE",
    "Selector",
    "SpreadConstraint",
    "count_pods_matching",
    "default_selector",
    "node_labels_match_constraints",
    "parse_constraints",
    "pod_labels_match_constraints",
]

LABEL_HOSTNAME: Final = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE: Final = "topology.kubernetes.io/zone"
HONOR: Final = "Honor"
IGNORE: Final = "Ignore"

Action = Literal["DoNotSchedule", "ScheduleAnyway"]


@dataclass(frozen=True)
class Selector:
    """A parsed label selector (apimachinery `labels.Selector`): requirements ANDed.

    `nothing` is the selector of a nil LabelSelector, which matches no labels and ignores
    anything added to it. With neither requirements nor `nothing` it matches everything and
    is *empty*, which matters for counting (see `count_pods_matching`)."""

    requirements: tuple[LabelSelectorRequirement, ...] = ()
    nothing: bool = False

    @classmethod
    def from_label_selector(cls, selector: LabelSelector | None) -> Selector:
        """metav1.LabelSelectorAsSelector: nil → nothing, {} → everything."""
        if selector is None:
            return cls(nothing=True)
        return cls.from_set(selector.match_labels).add(selector.match_expressions)

    @classmethod
    def from_set(cls, labels: Mapping[str, str]) -> Selector:
        """labels.SelectorFromSet: one `key In (value)` requirement per label."""
        if not labels:
            return cls()
        return cls().add(
            LabelSelectorRequirement(key=k, operator="In", values=[v]) for k, v in labels.items()
        )

    def add(self, requirements: Iterable[LabelSelectorRequirement]) -> Selector:
        """This selector with more requirements, kept sorted by key as upstream does."""
        if self.nothing:
            return self
        merged = [*self.requirements, *requirements]
        if len(merged) == len(self.requirements):
            return self  # nothing added (and frozen: shared safely)
        merged.sort(key=lambda r: r.key)
        return Selector(tuple(merged))

    @property
    def is_empty(self) -> bool:
        return not self.nothing and not self.requirements

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.nothing:
            return False
        return all(r.matches(labels) for r in self.requirements)


@dataclass(frozen=True)
class SpreadConstraint:
    """A pod's topology spread constraint with its selector parsed and defaults applied
    (upstream topologySpreadConstraint)."""

    max_skew: int
    topology_key: str
    selector: Selector
    min_domains: int = 1
    node_affinity_policy: str = HONOR
    node_taints_policy: str = IGNORE

    def match_node_inclusion_policies(
        self, pod: Pod, node: Node, required: RequiredNodeAffinity
    ) -> bool:
        """Whether the node counts toward this constraint's domains for `pod`, whose
        nodeSelector and required node affinity are `required` (upstream
        matchNodeInclusionPolicies)."""
        if self.node_affinity_policy == HONOR and not required.matches(node):
            return False
        return not (
            self.node_taints_policy == HONOR
            and find_untolerated_taint(node.spec.taints, pod.spec.tolerations, _do_not_schedule)
            is not None
        )


def _do_not_schedule(taint: Taint) -> bool:
    """upstream helper.DoNotScheduleTaintsFilterFunc."""
    return taint.effect in ("NoSchedule", "NoExecute")


def parse_constraints(
    constraints: Sequence[TopologySpreadConstraint], pod_labels: Mapping[str, str], action: Action
) -> list[SpreadConstraint]:
    """The constraints whose whenUnsatisfiable is `action`, parsed (upstream
    filterTopologySpreadConstraints). `matchLabelKeys` add `key In (pod's value)` for every
    key the pod has a label for; a nil labelSelector stays match-nothing."""
    result: list[SpreadConstraint] = []
    for c in constraints:
        if c.when_unsatisfiable != action:
            continue
        selector = Selector.from_label_selector(c.label_selector)
        keys = {k: pod_labels[k] for k in c.match_label_keys if k in pod_labels}
        if keys and not selector.nothing:
            selector = Selector.from_set(keys).add(selector.requirements)
        result.append(
            SpreadConstraint(
                max_skew=c.max_skew,
                topology_key=c.topology_key,
                selector=selector,
                min_domains=c.min_domains if c.min_domains is not None else 1,
                node_affinity_policy=c.node_affinity_policy or HONOR,
                node_taints_policy=c.node_taints_policy or IGNORE,
            )
        )
    return result


def node_labels_match_constraints(
    labels: Mapping[str, str], constraints: Sequence[SpreadConstraint]
) -> bool:
    """Whether the node has a label for every constraint's topology key."""
    return all(c.topology_key in labels for c in constraints)


def pod_labels_match_constraints(
    constraints: Sequence[SpreadConstraint], labels: Mapping[str, str]
) -> bool:
    """Whether any constraint's selector matches these labels."""
    return any(c.selector.matches(labels) for c in constraints)


def count_pods_matching(pods: Iterable[PodInfo], selector: Selector, namespace: str) -> int:
    """Pods in `namespace`, not terminating, whose labels `selector` matches.

    upstream countPodsMatchSelector (v1.34) returns 0 for an *empty* selector (the one of
    `labelSelector: {}`), an optimisation meant for the nil selector; kept as upstream has it."""
    if selector.is_empty or selector.nothing:
        return 0
    count = 0
    for info in pods:
        pod = info.pod
        if pod.metadata.deletion_timestamp is not None or _namespace(pod) != namespace:
            continue
        if selector.matches(pod.metadata.labels):
            count += 1
    return count


def _namespace(pod: Pod) -> str:
    return pod.metadata.namespace or "default"


# -- default selector from the pod's owners (helper.DefaultSelector) --------------------------

_OWNER_KINDS: Final = {
    ("v1", "ReplicationController"),
    ("apps/v1", "ReplicaSet"),
    ("apps/v1", "StatefulSet"),
}


def default_selector(pod: Pod, cluster: Any) -> Selector:
    """The selector System/List default constraints use for `pod`: the selectors of the
    Services in its namespace that select it, merged, plus that of its controlling
    ReplicationController, ReplicaSet or StatefulSet.

    Objects are read with `cluster.list(kind)` / `cluster.get(kind, name, namespace)`. A
    simulation registers ReplicaSet and StatefulSet (`kubesched.workloads`), so the pods of
    Deployments and StatefulSets get their owner's selector; Services and
    ReplicationControllers are not registered, and a cluster without a kind returns none of
    it (default constraints then select nothing, as upstream does for a pod with no owners).
    A backend that fails to read a kind counts as having none of it (upstream ignores lister
    errors here)."""
    namespace = _namespace(pod)
    labels = pod.metadata.labels
    merged: dict[str, str] = {}
    for service in _list(cluster, "Service"):
        if _namespace_of(service) != namespace:
            continue
        wanted = _map_field(_field(_field(service, "spec"), "selector"))
        if wanted is None:
            continue  # a nil selector selects nothing, not everything
        if all(labels.get(k) == v for k, v in wanted.items()):
            merged.update(wanted)
    selector = Selector.from_set(merged)

    owner = next((o for o in pod.metadata.owner_references if o.controller), None)
    if owner is None or (owner.api_version, owner.kind) not in _OWNER_KINDS:
        return selector
    obj = _get(cluster, owner.kind, owner.name, namespace)
    if obj is None:
        return selector
    spec_selector = _field(_field(obj, "spec"), "selector")
    if owner.kind == "ReplicationController":
        rc_labels = _map_field(spec_selector) or {}
        return Selector.from_set({**merged, **rc_labels})
    parsed = _label_selector(spec_selector)
    if parsed is None:
        return selector  # a nil selector adds nothing (Nothing has no requirements)
    return selector.add(Selector.from_label_selector(parsed).requirements)


def _list(cluster: Any, kind: str) -> list[Any]:
    try:
        return list(cluster.list(kind))
    except Exception:  # upstream: a lister error means no objects of that kind
        return []


def _get(cluster: Any, kind: str, name: str, namespace: str) -> Any:
    try:
        return cluster.get(kind, name, namespace)
    except Exception:  # upstream: a lister error means no such object
        return None


def _field(obj: Any, name: str) -> Any:
    """A field of a model or of a plain mapping (camelCase in mappings)."""
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def _namespace_of(obj: Any) -> str:
    return _field(_field(obj, "metadata"), "namespace") or "default"


def _map_field(value: Any) -> dict[str, str] | None:
    if value is None:
        return None
    if isinstance(value, BaseModel):
        value = value.model_dump(by_alias=True)
    return {str(k): str(v) for k, v in dict(value).items()}


def _label_selector(value: Any) -> LabelSelector | None:
    if value is None or isinstance(value, LabelSelector):
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(by_alias=True, exclude_none=True)
    return LabelSelector.model_validate(value)
