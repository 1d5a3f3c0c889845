"""Rewriting an in-tree PV's topology for its CSI driver, as CSI migration does.

Upstream: k8s.io/csi-translation-lib/plugins/in_tree_volume.go (translateTopologyFromInTree
ToCSI with getTopologyLabel, getTopologyValues, replaceTopology, addTopology). A migrated
PV's node affinity names the driver's zone key (`topology.gke.io/zone` for GCE PD,
`topology.ebs.csi.aws.com/zone` for EBS, `topology.cinder.csi.openstack.org/zone` for
Cinder) instead of the Kubernetes zone label, because that is the label a node's CSI
driver publishes. A PV without zone affinity gets one from its zone label (`__` separates
the zones of a regional disk), and a beta region requirement becomes the GA region label.

Only node affinity is rewritten (upstream leaves the PV's labels alone on this path);
nothing is changed in place: the result shares no list with the input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from kubesched.api import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
from kubesched_volumebinding.storage._models import VolumeNodeAffinity

__all__ = [
    "AWS_EBS_TOPOLOGY_KEY",
    "AZURE_DISK_TOPOLOGY_KEY",
    "BETA_REGION_LABEL",
    "BETA_ZONE_LABEL",
    "CINDER_TOPOLOGY_KEY",
    "GCE_PD_TOPOLOGY_KEY",
    "MULTI_ZONE_DELIMITER",
    "REGION_LABEL",
    "ZONE_LABEL",
    "translate_topology_to_csi",
]

ZONE_LABEL: Final = "topology.kubernetes.io/zone"
REGION_LABEL: Final = "topology.kubernetes.io/region"
BETA_ZONE_LABEL: Final = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION_LABEL: Final = "failure-domain.beta.kubernetes.io/region"
MULTI_ZONE_DELIMITER: Final = "__"

GCE_PD_TOPOLOGY_KEY: Final = "topology.gke.io/zone"
AWS_EBS_TOPOLOGY_KEY: Final = "topology.ebs.csi.aws.com/zone"
CINDER_TOPOLOGY_KEY: Final = "topology.cinder.csi.openstack.org/zone"
AZURE_DISK_TOPOLOGY_KEY: Final = "topology.disk.csi.azure.com/zone"
"""Azure Disk's key: upstream translates storage classes to it, never a PV's affinity."""


def _has_key(terms: list[NodeSelectorTerm], key: str) -> bool:
    """Some term has an expression on `key`, whatever its operator (TopologyKeyExist)."""
    return any(r.key == key for t in terms for r in t.match_expressions)


def _topology_labels(terms: list[NodeSelectorTerm], labels: Mapping[str, str]) -> tuple[str, str]:
    """The (zone, region) label pair the PV uses: GA or beta, by what its affinity names,
    else by which zone label it carries, else GA (getTopologyLabel)."""
    if _has_key(terms, ZONE_LABEL):
        return ZONE_LABEL, REGION_LABEL
    if _has_key(terms, BETA_ZONE_LABEL):
        return BETA_ZONE_LABEL, BETA_REGION_LABEL
    if ZONE_LABEL in labels:
        return ZONE_LABEL, REGION_LABEL
    if BETA_ZONE_LABEL in labels:
        return BETA_ZONE_LABEL, BETA_REGION_LABEL
    return ZONE_LABEL, REGION_LABEL


def _values(terms: list[NodeSelectorTerm], key: str) -> list[str]:
    """Every value given for `key` in any term, deduplicated and sorted (getTopologyValues:
    the zones of all terms read as one ORed list)."""
    return sorted({v for t in terms for r in t.match_expressions if r.key == key for v in r.values})


def _rekey(terms: list[NodeSelectorTerm], old: str, new: str) -> list[NodeSelectorTerm]:
    """Every expression on `old` now on `new`, values untouched (replaceTopology; an
    expression already on `new` is not merged with it)."""
    return [
        t.model_copy(
            update={
                "match_expressions": [
                    r.model_copy(update={"key": new}) if r.key == old else r
                    for r in t.match_expressions
                ]
            }
        )
        for t in terms
    ]


def translate_topology_to_csi(
    affinity: VolumeNodeAffinity | None, labels: Mapping[str, str], csi_key: str
) -> VolumeNodeAffinity | None:
    """The node affinity an in-tree PV with this affinity and these labels has once
    translated for a CSI driver whose zone key is `csi_key`.

    Zone requirements in the affinity are renamed to `csi_key`. Without any zone value
    there, the PV's zone label (split on `__`, blanks dropped, sorted) is appended to
    every term as `csi_key In [...]` (creating the affinity or a term when missing). A
    beta region requirement is renamed to the GA region label.
    """
    required = affinity.required if affinity is not None else None
    terms = list(required.node_selector_terms) if required is not None else []
    zone_label, region_label = _topology_labels(terms, labels)

    if _values(terms, zone_label):
        terms = _rekey(terms, zone_label, csi_key)
    elif zone_label in labels:
        # addTopology: its "no valid zones" error is ignored upstream, leaving the PV as is
        zones = sorted({z.strip() for z in labels[zone_label].split(MULTI_ZONE_DELIMITER)} - {""})
        if zones:
            requirement = NodeSelectorRequirement(key=csi_key, operator="In", values=zones)
            terms = [
                t.model_copy(update={"match_expressions": [*t.match_expressions, requirement]})
                for t in (terms or [NodeSelectorTerm()])
            ]
            required = required or NodeSelector()
            affinity = affinity or VolumeNodeAffinity()

    if region_label == BETA_REGION_LABEL and _values(terms, region_label):
        terms = _rekey(terms, region_label, REGION_LABEL)

    if affinity is None:
        return None
    if required is None:
        return affinity.model_copy()
    new_required = required.model_copy(update={"node_selector_terms": terms})
    return affinity.model_copy(update={"required": new_required})
