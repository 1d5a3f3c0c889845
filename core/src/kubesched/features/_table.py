"""The feature gates kubesched knows: every gate kube-scheduler v1.34 reads, a few gates the
API server applies to pods the scheduler sees, and AllAlpha / AllBeta.

Defaults, stages and locks are the v1.34 specs of upstream pkg/features/kube_features.go
(defaultVersionedKubernetesFeatureGates; for a gate with several specs, the last one at or
before 1.34), checked against the v1.34 `kube-scheduler --feature-gates` help. Where
kubesched reads each gate is in docs/fidelity.md ("Feature gates").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["FEATURE_GATES", "FeatureGate", "Stage"]

Stage = Literal["ALPHA", "BETA", "GA", "DEPRECATED"]


@dataclass(frozen=True)
class FeatureGate:
    """One gate at v1.34: its default, maturity and whether it is locked to its default
    (upstream LockToDefault: setting it to the other value is an error)."""

    name: str
    default: bool
    stage: Stage
    summary: str
    locked: bool = False


def _gates(*gates: FeatureGate) -> dict[str, FeatureGate]:
    return {gate.name: gate for gate in gates}


# upstream: pkg/features/kube_features.go, component-base/featuregate (AllAlpha, AllBeta)
FEATURE_GATES: Final[dict[str, FeatureGate]] = _gates(
    FeatureGate("AllAlpha", False, "ALPHA", "sets every alpha gate not set explicitly"),
    FeatureGate("AllBeta", False, "BETA", "sets every beta gate not set explicitly"),
    # the scheduling queue and loop (pkg/scheduler)
    FeatureGate(
        "SchedulerQueueingHints",
        True,
        "GA",
        "KEP-4247: plugins' QueueingHints decide which events requeue a rejected pod",
        locked=True,
    ),
    FeatureGate(
        "SchedulerPopFromBackoffQ",
        True,
        "BETA",
        "KEP-5142: pop from the backoff queue when the active queue is empty",
    ),
    FeatureGate(
        "SchedulerAsyncPreemption",
        True,
        "BETA",
        "KEP-4832: preemption's API calls run apart from the scheduling cycle",
    ),
    # v1.34.0 had it on; v1.34.2 turned it off (kubernetes#134401, cherry-pick of #134400)
    FeatureGate(
        "SchedulerAsyncAPICalls",
        False,
        "BETA",
        "KEP-5229: the scheduler's API calls (status patches, bindings) go through a dispatcher",
    ),
    FeatureGate(
        "NominatedNodeNameForExpectation",
        False,
        "ALPHA",
        "KEP-5278: the scheduler sets nominatedNodeName for a pod it is binding",
    ),
    FeatureGate(
        "ClearingNominatedNodeNameAfterBinding",
        False,
        "ALPHA",
        "KEP-5278: binding clears nominatedNodeName (kube-apiserver)",
    ),
    # pods and their resources
    FeatureGate(
        "PodLevelResources",
        True,
        "BETA",
        "KEP-2837: pod-level spec.resources count instead of the containers' sum",
    ),
    FeatureGate(
        "SidecarContainers",
        True,
        "GA",
        "KEP-753: restartable init containers count as sidecars in requests",
        locked=True,
    ),
    FeatureGate(
        "InPlacePodVerticalScaling",
        True,
        "BETA",
        "KEP-1287: resized pods' requests; a scale-down requeues pods",
    ),
    FeatureGate(
        "PodSchedulingReadiness",
        True,
        "GA",
        "KEP-3521: spec.schedulingGates hold a pod back from scheduling",
        locked=True,
    ),
    # topology spreading and inter-pod affinity
    FeatureGate(
        "NodeInclusionPolicyInPodTopologySpread",
        True,
        "GA",
        "KEP-3094: nodeAffinityPolicy / nodeTaintsPolicy of topology spread constraints",
        locked=True,
    ),
    FeatureGate(
        "MatchLabelKeysInPodTopologySpread",
        True,
        "BETA",
        "KEP-3243: matchLabelKeys of topology spread constraints",
    ),
    FeatureGate(
        "MatchLabelKeysInPodTopologySpreadSelectorMerge",
        True,
        "BETA",
        "KEP-3243: kube-apiserver merges matchLabelKeys into the labelSelector",
    ),
    FeatureGate(
        "MatchLabelKeysInPodAffinity",
        True,
        "GA",
        "KEP-3633: matchLabelKeys / mismatchLabelKeys of pod (anti-)affinity terms",
        locked=True,
    ),
    # volumes
    FeatureGate(
        "VolumeAttributesClass",
        True,
        "GA",
        "KEP-3751: static PV matching compares volumeAttributesClassName",
    ),
    FeatureGate(
        "StorageCapacityScoring",
        False,
        "ALPHA",
        "KEP-4049: VolumeBinding scores nodes by storage capacity",
    ),
    FeatureGate(
        "CSIMigrationPortworx",
        True,
        "GA",
        "in-tree Portworx volumes are counted as their CSI driver's",
        locked=True,
    ),
    FeatureGate(
        "SELinuxChangePolicy",
        True,
        "BETA",
        "KEP-1710: spec.securityContext.seLinuxChangePolicy (kubelet)",
    ),
    FeatureGate(
        "SELinuxMountReadWriteOncePod",
        True,
        "BETA",
        "KEP-1710: SELinux mount contexts for ReadWriteOncePod volumes (kubelet)",
    ),
    # dynamic resource allocation (the DynamicResources plugin)
    FeatureGate(
        "DynamicResourceAllocation",
        True,
        "GA",
        "KEP-4381: ResourceClaims allocated by the DynamicResources plugin",
    ),
    FeatureGate("DRAAdminAccess", True, "BETA", "KEP-5018: admin access to allocated devices"),
    FeatureGate("DRAPrioritizedList", True, "BETA", "KEP-4816: prioritized device alternatives"),
    FeatureGate(
        "DRAResourceClaimDeviceStatus", True, "BETA", "KEP-4817: device status in ResourceClaims"
    ),
    FeatureGate(
        "DRASchedulerFilterTimeout",
        True,
        "BETA",
        "DynamicResources' Filter gives up after a timeout",
    ),
    FeatureGate("DRADeviceTaints", False, "ALPHA", "KEP-5055: device taints and tolerations"),
    FeatureGate(
        "DRADeviceBindingConditions", False, "ALPHA", "KEP-5007: device binding conditions"
    ),
    FeatureGate("DRAPartitionableDevices", False, "ALPHA", "KEP-4815: partitionable devices"),
    FeatureGate("DRAConsumableCapacity", False, "ALPHA", "KEP-5075: consumable device capacity"),
    FeatureGate(
        "DRAExtendedResource",
        False,
        "ALPHA",
        "KEP-5004: extended resources backed by DRA devices (NodeResourcesFit)",
    ),
)
