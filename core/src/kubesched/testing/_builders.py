"""Builders for pods and nodes in tests: `make_pod("p").req(cpu="1").label(app="a")`, in the
spirit of upstream's pkg/scheduler/testing wrappers (`st.MakePod().Req(...).Obj()`).

Each method returns the builder, `.obj()` the validated model. Quantities are written as
in manifests ("500m", "1Gi"). Resource amounts are keywords, with `_` for `-`
(`ephemeral_storage="1Gi"` is `ephemeral-storage`), or a mapping for names that are not
Python identifiers: `.req({"example.com/gpu": 1}, cpu="1")`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from kubesched.api import Node, Pod

__all__ = ["NodeBuilder", "PodBuilder", "make_node", "make_pod"]


_EMPTY: dict[str, Any] = {"name": "c0", "image": "pause"}

Amounts = Mapping[str, str | int]
"""Resource amounts by resource name: `{"cpu": "500m", "example.com/gpu": 1}`."""


def amounts(given: Amounts | None, keywords: Mapping[str, str | int]) -> dict[str, str | int]:
    """`given` and then `keywords` (`_` read as `-`) in one mapping of resource amounts."""
    return {**(given or {}), **{k.replace("_", "-"): v for k, v in keywords.items()}}


def requirements(requests: dict[str, str | int]) -> dict[str, Any]:
    """Requests, and for an extended resource (`example.com/gpu`) the equal limit the API
    server requires."""
    limits = {
        k: v
        for k, v in requests.items()
        if k.startswith("hugepages-") or ("/" in k and "kubernetes.io/" not in k)
    }
    resources: dict[str, Any] = {"requests": dict(requests)}
    if limits:
        resources["limits"] = limits
    return resources


class PodBuilder:
    def __init__(
        self, name: str, namespace: str | None = "default", uid: str | None = None
    ) -> None:
        self._d: dict[str, Any] = {
            "metadata": {"name": name, "namespace": namespace, "uid": uid or f"uid-{name}"},
            "spec": {"containers": []},
        }
        self._empty_container = True

    @property
    def _spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = self._d["spec"]
        return spec

    def uid(self, uid: str) -> PodBuilder:
        """Set the uid (`""`: none, for the cluster to assign one on create)."""
        self._d["metadata"]["uid"] = uid
        return self

    def namespace(self, namespace: str) -> PodBuilder:
        self._d["metadata"]["namespace"] = namespace
        return self

    def terminating(self, since: datetime | None = None) -> PodBuilder:
        """Mark the pod as being deleted (`metadata.deletionTimestamp`, by default
        2024-01-01 UTC)."""
        at = since or datetime(2024, 1, 1, tzinfo=UTC)
        self._d["metadata"]["deletionTimestamp"] = at.isoformat()
        return self

    def owner(self, kind: str, name: str, api_version: str = "apps/v1") -> PodBuilder:
        """Add a controller owner reference (`owner("ReplicaSet", "rs1")`)."""
        ref = {"apiVersion": api_version, "kind": kind, "name": name, "controller": True}
        self._d["metadata"].setdefault("ownerReferences", []).append(ref)
        return self

    def label(self, **labels: str) -> PodBuilder:
        self._d["metadata"].setdefault("labels", {}).update(labels)
        return self

    def req(self, given: Amounts | None = None, /, **requests: str | int) -> PodBuilder:
        """Add a container with these requests (each call is one more container):
        `.req(cpu="1", memory="1Gi")`, `.req({"nvidia.com/gpu": 1})`."""
        n = len(self._spec["containers"])
        self._spec["containers"].append(
            {"name": f"c{n}", "image": "pause", "resources": requirements(amounts(given, requests))}
        )
        return self

    def init_req(
        self, given: Amounts | None = None, /, *, sidecar: bool = False, **requests: str | int
    ) -> PodBuilder:
        """Add an init container with these requests (`sidecar=True`: a restartable one)."""
        inits = self._spec.setdefault("initContainers", [])
        c: dict[str, Any] = {
            "name": f"i{len(inits)}",
            "image": "pause",
            "resources": requirements(amounts(given, requests)),
        }
        if sidecar:
            c["restartPolicy"] = "Always"
        inits.append(c)
        return self

    def container(self, **fields: Any) -> PodBuilder:
        """Add a container with these fields (manifest spelling); without `name` or `image`
        it is named `c<n>` and runs `pause`, so `.container()` requests nothing."""
        n = len(self._spec["containers"])
        self._spec["containers"].append({"name": f"c{n}", "image": "pause", **fields})
        return self

    def overhead(self, given: Amounts | None = None, /, **kw: str | int) -> PodBuilder:
        """Set `spec.overhead` (what the pod's RuntimeClass adds to its requests)."""
        self._spec["overhead"] = amounts(given, kw)
        return self

    def priority(self, value: int) -> PodBuilder:
        self._spec["priority"] = value
        return self

    def scheduler(self, name: str) -> PodBuilder:
        self._spec["schedulerName"] = name
        return self

    def node(self, name: str) -> PodBuilder:
        self._spec["nodeName"] = name
        return self

    def nominated(self, node: str) -> PodBuilder:
        self._d.setdefault("status", {})["nominatedNodeName"] = node
        return self

    def gates(self, *names: str) -> PodBuilder:
        self._spec["schedulingGates"] = [{"name": n} for n in names]
        return self

    def toleration(self, **fields: Any) -> PodBuilder:
        self._spec.setdefault("tolerations", []).append(fields)
        return self

    def node_affinity_in(self, key: str, values: Sequence[str]) -> PodBuilder:
        """Require nodes whose label `key` is one of `values` (upstream's NodeAffinityIn:
        it replaces the pod's affinity)."""
        return self._required_node_term(key, "In", values)

    def node_affinity_not_in(self, key: str, values: Sequence[str]) -> PodBuilder:
        """Require nodes whose label `key` is none of `values` (NodeAffinityNotIn)."""
        return self._required_node_term(key, "NotIn", values)

    def _required_node_term(self, key: str, operator: str, values: Sequence[str]) -> PodBuilder:
        term = {"matchExpressions": [{"key": key, "operator": operator, "values": list(values)}]}
        required = {"nodeSelectorTerms": [term]}
        self._spec["affinity"] = {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}
        }
        return self

    def spread_constraint(
        self,
        max_skew: int,
        key: str,
        action: str,
        selector: Mapping[str, Any] | None,
        min_domains: int | None = None,
        node_affinity_policy: str | None = None,
        node_taints_policy: str | None = None,
        match_label_keys: Sequence[str] = (),
    ) -> PodBuilder:
        """Add a topology spread constraint, arguments in the order of upstream's
        `st.PodWrapper.SpreadConstraint` (`action`: DoNotSchedule or ScheduleAnyway;
        `selector`: a label selector in manifest spelling)."""
        c: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": action}
        optional = {
            "labelSelector": dict(selector) if selector is not None else None,
            "minDomains": min_domains,
            "nodeAffinityPolicy": node_affinity_policy,
            "nodeTaintsPolicy": node_taints_policy,
            "matchLabelKeys": list(match_label_keys) or None,
        }
        c.update({k: v for k, v in optional.items() if v is not None})
        self._spec.setdefault("topologySpreadConstraints", []).append(c)
        return self

    def node_selector(self, **labels: str) -> PodBuilder:
        self._spec.setdefault("nodeSelector", {}).update(labels)
        return self

    def spec(self, **fields: Any) -> PodBuilder:
        self._spec.update(fields)
        return self

    def no_containers(self) -> PodBuilder:
        """Leave the pod without containers when none is added, as upstream's
        `st.MakePod().Obj()` does (it then requests nothing, not even the non-zero defaults
        scoring assumes per container); the API server refuses such a pod."""
        self._empty_container = False
        return self

    def obj(self) -> Pod:
        """The pod; one without containers gets an empty one, as the API server needs one
        (unless `.no_containers()` was called)."""
        if not self._spec["containers"] and self._empty_container:
            return Pod.model_validate({**self._d, "spec": {**self._spec, "containers": [_EMPTY]}})
        return Pod.model_validate(self._d)


class NodeBuilder:
    def __init__(self, name: str) -> None:
        self._d: dict[str, Any] = {
            "metadata": {"name": name, "uid": f"uid-node-{name}"},
            "spec": {},
            "status": {"allocatable": {}},
        }

    def uid(self, uid: str) -> NodeBuilder:
        """Set the uid (`""`: none, for the cluster to assign one on create)."""
        self._d["metadata"]["uid"] = uid
        return self

    def alloc(self, given: Amounts | None = None, /, **kw: str | int) -> NodeBuilder:
        """Add these amounts to `status.allocatable` (`pods` too: none are set by default)."""
        self._d["status"]["allocatable"].update(amounts(given, kw))
        return self

    def label(self, **labels: str) -> NodeBuilder:
        self._d["metadata"].setdefault("labels", {}).update(labels)
        return self

    def zone(self, zone: str) -> NodeBuilder:
        return self.label(**{"topology.kubernetes.io/zone": zone})

    def unschedulable(self, value: bool = True) -> NodeBuilder:
        self._d["spec"]["unschedulable"] = value
        return self

    def taint(self, key: str, value: str = "", effect: str = "NoSchedule") -> NodeBuilder:
        self._d["spec"].setdefault("taints", []).append(
            {"key": key, "value": value, "effect": effect}
        )
        return self

    def image(self, *names: str, size: int) -> NodeBuilder:
        """Add an image the node holds, known by these names, of `size` bytes."""
        images = self._d["status"].setdefault("images", [])
        images.append({"names": list(names), "sizeBytes": size})
        return self

    def obj(self) -> Node:
        return Node.model_validate(self._d)


def make_pod(name: str, namespace: str | None = "default", uid: str | None = None) -> PodBuilder:
    """A pod with one empty container unless containers are added; its uid is `uid-<name>`
    unless given, its namespace `default` unless given (None: none, as a manifest that
    leaves it to the API server)."""
    return PodBuilder(name, namespace, uid)


def make_node(name: str) -> NodeBuilder:
    """A node; with no `.alloc(...)` it has nothing allocatable."""
    return NodeBuilder(name)
