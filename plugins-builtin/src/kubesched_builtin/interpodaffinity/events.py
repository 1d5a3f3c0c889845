"""Which cluster events may make a pod InterPodAffinity rejected schedulable.

Upstream: pkg/scheduler/framework/plugins/interpodaffinity/plugin.go (EventsToRegister,
isSchedulableAfterPodChange, isSchedulableAfterNodeChange), with queueing hints on, as in
v1.34 by default: then Node/UpdateNodeTaint is not registered (it only made up for the
pre-check that hints replaced).
"""

from __future__ import annotations

from typing import Any

from kubesched.api import Node, Pod
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from kubesched_builtin.interpodaffinity.terms import TermCache, pod_matches_all_terms

__all__ = ["events_to_register", "node_change_hint", "pod_change_hint"]


def events_to_register(cache: TermCache) -> list[ClusterEventWithHint]:
    """Pod Add / UpdatePodLabel / Delete (a pod the target wants, or one in its way) and
    Node Add / UpdateNodeLabel (a node joining or moving between topology domains)."""

    def on_pod(pod: Pod, old: Any, new: Any) -> QueueingHint:
        return pod_change_hint(cache, pod, old, new)

    def on_node(pod: Pod, old: Any, new: Any) -> QueueingHint:
        return node_change_hint(cache, pod, old, new)

    return [
        ClusterEventWithHint(
            ClusterEvent(
                EventResource.Pod, ActionType.Add | ActionType.UpdatePodLabel | ActionType.Delete
            ),
            on_pod,
        ),
        ClusterEventWithHint(
            ClusterEvent(EventResource.Node, ActionType.Add | ActionType.UpdateNodeLabel), on_node
        ),
    ]


def pod_change_hint(cache: TermCache, pod: Pod, old: Any, new: Any) -> QueueingHint:
    """Queue when a scheduled pod appears matching all of `pod`'s affinity terms, is
    relabelled to match them (or to stop matching its anti-affinity terms), or is deleted
    while matching its anti-affinity terms."""
    if not (old is None or isinstance(old, Pod)) or not (new is None or isinstance(new, Pod)):
        return QueueingHint.Queue
    if old is None and new is None:
        return QueueingHint.Queue
    if (new is not None and not new.spec.node_name) or (old is not None and not old.spec.node_name):
        return QueueingHint.QueueSkip  # an unscheduled pod is in no topology domain
    terms = cache.terms(pod)
    if terms.error is not None:
        return QueueingHint.Queue
    affinity, anti_affinity = terms.required_affinity, terms.required_anti_affinity
    # one existing pod must satisfy all the affinity terms at once, so "all" is the test
    if old is not None and new is not None:
        if not pod_matches_all_terms(affinity, old) and pod_matches_all_terms(affinity, new):
            return QueueingHint.Queue
        if pod_matches_all_terms(anti_affinity, old) and not pod_matches_all_terms(
            anti_affinity, new
        ):
            return QueueingHint.Queue
        return QueueingHint.QueueSkip
    if new is not None:
        return (
            QueueingHint.Queue if pod_matches_all_terms(affinity, new) else QueueingHint.QueueSkip
        )
    assert old is not None
    return (
        QueueingHint.Queue if pod_matches_all_terms(anti_affinity, old) else QueueingHint.QueueSkip
    )


def node_change_hint(cache: TermCache, pod: Pod, old: Any, new: Any) -> QueueingHint:
    """Queue when a node appears with (or gains, or changes the value of) an affinity
    topology key; for anti-affinity, when any node appears or one loses or changes an
    anti-affinity topology key."""
    if not isinstance(new, Node) or not (old is None or isinstance(old, Node)):
        return QueueingHint.Queue
    terms = cache.terms(pod)
    if terms.error is not None:
        return QueueingHint.Queue
    new_labels = new.metadata.labels
    old_labels = old.metadata.labels if old is not None else None
    for term in terms.required_affinity:
        key = term.topology_key
        if old_labels is None:
            if key in new_labels:
                return QueueingHint.Queue
            continue
        if key in new_labels and old_labels.get(key) != new_labels[key]:
            return QueueingHint.Queue  # gained the key, or moved to another domain
    for term in terms.required_anti_affinity:
        if old_labels is None:
            # a node without the key always accepts the pod; one with it may join a domain
            # free of the pods it avoids: checking which pods are there is out of scope
            return QueueingHint.Queue
        key = term.topology_key
        if key in old_labels and old_labels[key] != new_labels.get(key):
            return QueueingHint.Queue  # lost the key, or moved to another domain
    return QueueingHint.QueueSkip
