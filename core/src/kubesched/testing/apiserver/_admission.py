"""What a real kube-apiserver does to an object between the request and storage, for the
fake API server: defaulting, the registry strategies and the default admission plugins,
as far as kubesched and its tests can tell the difference.

Modelled (upstream kubernetes/kubernetes v1.34):

- defaulting on every write (`pkg/apis/core/v1/defaults.go`): a pod's `schedulerName`,
  container requests from limits, host ports of host-network pods; a node's allocatable from
  its capacity; a namespace's `kubernetes.io/metadata.name` label and `Active` phase; a
  PriorityClass's `preemptionPolicy`;
- the bootstrap objects every API server has: the namespaces `default`, `kube-system`,
  `kube-public`, `kube-node-lease`, the PriorityClasses `system-node-critical` and
  `system-cluster-critical`;
- on create, the default admission plugins kubesched meets: NamespaceLifecycle (the
  namespace must exist), TaintNodesByCondition (`node.kubernetes.io/not-ready:NoSchedule` on
  every new Node), Priority (`spec.priority` and `preemptionPolicy` from the PriorityClass),
  DefaultTolerationSeconds (300 s NoExecute tolerations of not-ready and unreachable);
- the pod strategy's PrepareForCreate (`pkg/registry/core/pod/strategy.go`): the status a
  client sends is replaced by `phase: Pending`, and a pod with scheduling gates gets
  `PodScheduled=False` reason `SchedulingGated`;
- events.k8s.io/v1 Event validation (`ValidateEventCreate`).

Left out, since nothing here depends on them: ServiceAccount admission (off in envtest too),
PodSecurity, LimitRanger, ResourceQuota, `status.qosClass`, `metadata.generation`, field
validation beyond the Event's, managedFields.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any, Final

__all__ = [
    "NOT_READY_TAINT_KEY",
    "SCHEDULING_GATED_MESSAGE",
    "ApiStatusError",
    "Raw",
    "admit_create",
    "apply_defaults",
    "bootstrap_objects",
    "now_rfc3339",
    "prepare_update",
]

Raw = dict[str, Any]

NOT_READY_TAINT_KEY: Final = "node.kubernetes.io/not-ready"
UNREACHABLE_TAINT_KEY: Final = "node.kubernetes.io/unreachable"
SCHEDULING_GATED_MESSAGE: Final = "Scheduling is blocked due to non-empty scheduling gates"

SYSTEM_NAMESPACES: Final = ("default", "kube-system", "kube-public", "kube-node-lease")
# pkg/apis/scheduling/helpers.go SystemPriorityClasses (SystemCriticalPriority = 2e9)
SYSTEM_PRIORITY_CLASSES: Final = {
    "system-node-critical": (
        2_000_001_000,
        "Used for system critical pods that must not be moved from their current node.",
    ),
    "system-cluster-critical": (
        2_000_000_000,
        "Used for system critical pods that must run in the cluster, but can be moved to "
        "another node if necessary.",
    ),
}
DEFAULT_TOLERATION_SECONDS: Final = 300

NAMESPACES: Final = "v1/namespaces"
NODES: Final = "v1/nodes"
PODS: Final = "v1/pods"
PRIORITY_CLASSES: Final = "scheduling.k8s.io/v1/priorityclasses"
EVENTS: Final = "events.k8s.io/v1/events"

Lookup = Callable[[str, str], Raw | None]
"""(resource, key) -> the stored object or None."""
Listing = Callable[[str], Iterable[Raw]]
"""resource -> every stored object of it."""


class ApiStatusError(Exception):
    """An error the API server answers with a Status (code, reason, message)."""

    def __init__(self, code: int, reason: str, message: str, **details: Any) -> None:
        super().__init__(f"{code} {reason}: {message}")
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details


def now_rfc3339() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def bootstrap_objects() -> list[tuple[str, Raw]]:
    """What a fresh API server holds before anyone writes: the system namespaces
    (controlplane bootstrap controller) and PriorityClasses (scheduling post-start hook)."""
    objects: list[tuple[str, Raw]] = [
        (NAMESPACES, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        for name in SYSTEM_NAMESPACES
    ]
    for name, (value, description) in SYSTEM_PRIORITY_CLASSES.items():
        pc: Raw = {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
            "description": description,
        }
        objects.append((PRIORITY_CLASSES, pc))
    return objects


# -- defaulting (every write) ---------------------------------------------------------------
def apply_defaults(resource: str, obj: Raw) -> None:
    """The SetDefaults_* functions that change what a scheduler reads."""
    if resource == PODS:
        _default_pod(obj)
    elif resource == NODES:
        status = obj.get("status") or {}
        if "capacity" in status and "allocatable" not in status:  # SetDefaults_NodeStatus
            status["allocatable"] = copy.deepcopy(status["capacity"])
    elif resource == NAMESPACES:
        meta = obj["metadata"]
        if meta.get("name"):  # SetDefaults_Namespace
            meta.setdefault("labels", {})["kubernetes.io/metadata.name"] = meta["name"]
        obj.setdefault("status", {}).setdefault("phase", "Active")
    elif resource == PRIORITY_CLASSES:
        obj.setdefault("preemptionPolicy", "PreemptLowerPriority")


def _default_pod(pod: Raw) -> None:
    spec = pod.setdefault("spec", {})
    spec["schedulerName"] = spec.get("schedulerName") or "default-scheduler"
    spec.setdefault("terminationGracePeriodSeconds", 30)
    for group in ("containers", "initContainers"):
        for container in spec.get(group) or []:
            resources = container.get("resources") or {}
            limits = resources.get("limits")
            if limits:  # SetDefaults_Pod: requests default to limits
                requests = resources.setdefault("requests", {})
                for name, value in limits.items():
                    requests.setdefault(name, value)
            if spec.get("hostNetwork"):  # defaultHostNetworkPorts
                for port in container.get("ports") or []:
                    if not port.get("hostPort"):
                        port["hostPort"] = port.get("containerPort")


# -- create ---------------------------------------------------------------------------------
def admit_create(resource: str, obj: Raw, lookup: Lookup, listing: Listing) -> None:
    """Mutating admission, then the registry strategy's PrepareForCreate and validation;
    raises ApiStatusError as the API server would answer."""
    apply_defaults(resource, obj)
    namespace = obj["metadata"].get("namespace")
    if namespace and resource != NAMESPACES:
        _namespace_lifecycle(namespace, lookup)
    if resource == NODES:
        _taint_new_node(obj)
    elif resource == PODS:
        _admit_priority(obj, lookup, listing)
        _default_toleration_seconds(obj)
        _prepare_pod_for_create(obj)
    elif resource == EVENTS:
        invalid = _validate_event(obj)
        if invalid:
            raise ApiStatusError(422, "Invalid", f"Event.events.k8s.io is invalid: {invalid}")


def _namespace_lifecycle(namespace: str, lookup: Lookup) -> None:
    # staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go:
    # a create in a missing namespace gets the NotFound of the namespace lookup
    found = lookup(NAMESPACES, namespace)
    if found is None:
        message = f'namespaces "{namespace}" not found'
        raise ApiStatusError(404, "NotFound", message, name=namespace, kind="namespaces")
    if (found.get("status") or {}).get("phase") == "Terminating":
        raise ApiStatusError(
            403,
            "Forbidden",
            f"unable to create new content in namespace {namespace} because it is being terminated",
        )


def _taint_new_node(node: Raw) -> None:
    # plugin/pkg/admission/nodetaint/admission.go (TaintNodesByCondition, on by default): on
    # create, add not-ready:NoSchedule unless a taint with that key and effect is there
    # (MatchTaint ignores the value); the node lifecycle controller removes it once Ready.
    taints = node.setdefault("spec", {}).setdefault("taints", [])
    if not any(
        t.get("key") == NOT_READY_TAINT_KEY and t.get("effect") == "NoSchedule" for t in taints
    ):
        taints.append({"key": NOT_READY_TAINT_KEY, "effect": "NoSchedule"})


def _forbidden(pod: Raw, reason: str) -> ApiStatusError:
    name = pod["metadata"].get("name", "")
    return ApiStatusError(
        403, "Forbidden", f'pods "{name}" is forbidden: {reason}', name=name, kind="pods"
    )


def _admit_priority(pod: Raw, lookup: Lookup, listing: Listing) -> None:
    # plugin/pkg/admission/priority/admission.go admitPod (Create)
    spec = pod["spec"]
    class_name = spec.get("priorityClassName") or ""
    policy: str | None
    if not class_name:
        defaults = [pc for pc in listing(PRIORITY_CLASSES) if pc.get("globalDefault")]
        chosen = min(defaults, key=lambda pc: int(pc.get("value", 0)), default=None)
        if chosen is None:
            priority, policy = 0, "PreemptLowerPriority"
        else:
            spec["priorityClassName"] = chosen["metadata"]["name"]
            priority, policy = int(chosen.get("value", 0)), chosen.get("preemptionPolicy")
    else:
        found = lookup(PRIORITY_CLASSES, class_name)
        if found is None:
            raise _forbidden(pod, f"no PriorityClass with name {class_name} was found")
        priority, policy = int(found.get("value", 0)), found.get("preemptionPolicy")
    given = spec.get("priority")
    if given is not None and given != priority:
        raise _forbidden(
            pod,
            f"the integer value of priority ({given}) must not be provided in pod spec; "
            f"priority admission controller computed {priority} from the given PriorityClass "
            "name",
        )
    spec["priority"] = priority
    if policy:
        given_policy = spec.get("preemptionPolicy")
        if given_policy and given_policy != policy:
            raise _forbidden(
                pod,
                f"the string value of PreemptionPolicy ({given_policy}) must not be provided "
                f"in pod spec; priority admission controller computed {policy} from the given "
                "PriorityClass name",
            )
        spec["preemptionPolicy"] = policy


def _default_toleration_seconds(pod: Raw) -> None:
    # plugin/pkg/admission/defaulttolerationseconds/admission.go: a pod that does not
    # tolerate not-ready / unreachable NoExecute gets 300 s tolerations of them
    tolerations = pod["spec"].setdefault("tolerations", [])
    for key in (NOT_READY_TAINT_KEY, UNREACHABLE_TAINT_KEY):
        if not any(
            t.get("key", "") in (key, "") and t.get("effect", "") in ("NoExecute", "")
            for t in tolerations
        ):
            tolerations.append(
                {
                    "key": key,
                    "operator": "Exists",
                    "effect": "NoExecute",
                    "tolerationSeconds": DEFAULT_TOLERATION_SECONDS,
                }
            )


def _prepare_pod_for_create(pod: Raw) -> None:
    # pkg/registry/core/pod/strategy.go PrepareForCreate: the client's status is dropped;
    # applySchedulingGatedCondition
    pod["status"] = {"phase": "Pending"}
    if pod["spec"].get("schedulingGates"):
        pod["status"]["conditions"] = [
            {
                "type": "PodScheduled",
                "status": "False",
                "reason": "SchedulingGated",
                "message": SCHEDULING_GATED_MESSAGE,
                "lastProbeTime": None,
                "lastTransitionTime": now_rfc3339(),
            }
        ]


def _validate_event(body: Raw) -> str:
    """The required fields events.k8s.io/v1 validation checks (ValidateEventCreate)."""
    for name in ("eventTime", "reportingController", "reportingInstance", "action", "reason"):
        if not body.get(name):
            return f"{name}: Required value"
    if body.get("type") not in ("Normal", "Warning"):
        return f"type: Unsupported value: {body.get('type')!r}"
    regarding = body.get("regarding") or {}
    if regarding.get("namespace") != body["metadata"].get("namespace"):
        return "regarding.namespace: Invalid value: does not match event.namespace"
    if len(body.get("note") or "") > 1024:
        return "note: Too long: must have at most 1024 bytes"
    return ""


# -- update ---------------------------------------------------------------------------------
def prepare_update(resource: str, subresource: str | None, old: Raw, new: Raw) -> None:
    """The strategies' PrepareForUpdate: a write of the object keeps the stored status, a
    write of `status` keeps everything else; identity and creation time never change."""
    if subresource == "status":
        status = new.get("status")
        new.clear()
        new.update(copy.deepcopy({k: v for k, v in old.items() if k != "status"}))
        if status is not None:
            new["status"] = status
    elif "status" in old:
        new["status"] = copy.deepcopy(old["status"])
    else:
        new.pop("status", None)
    meta = new.setdefault("metadata", {})
    for name in ("uid", "creationTimestamp", "namespace", "name"):
        if name in old["metadata"]:
            meta[name] = old["metadata"][name]
    if resource == PODS:  # admission.Update of Priority keeps what create resolved
        for name in ("priority", "preemptionPolicy"):
            if name in old.get("spec", {}) and name not in new.get("spec", {}):
                new.setdefault("spec", {})[name] = old["spec"][name]
    apply_defaults(resource, new)
