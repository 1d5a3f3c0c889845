"""A whole in-tree PV translated to CSI, topology first, after csi-translation-lib's
translate_test.go (TestTopologyTranslation) and plugins/in_tree_volume_test.go
(TestTranslateTopologyFromInTreeToCSI); the Azure Disk kind rule after
plugins/azure_disk_test.go; and when VolumeBinding translates (binder.go
isCSIMigrationOnForPlugin + isPluginMigratedToCSIOnNode)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from volumebinding_helpers import csi_node, make_pv

from kubesched_volumebinding.storage import (
    AWS_EBS_TOPOLOGY_KEY,
    CINDER_TOPOLOGY_KEY,
    GCE_PD_TOPOLOGY_KEY,
    PersistentVolume,
    TranslationError,
    VolumeNodeAffinity,
    is_plugin_migrated_on_node,
    node_affinity_error,
    translate_pv,
    translate_pv_to_csi,
    translate_topology_to_csi,
    try_translate_pv_to_csi,
)

ZONE, REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
BETA_ZONE, BETA_REGION = (
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
)
BETA_LABELS = {BETA_ZONE: "us-east-1a", BETA_REGION: "us-east-1"}
GA_LABELS = {ZONE: "us-east-1a", REGION: "us-east-1"}
REGIONAL_BETA = {BETA_ZONE: "europe-west1-b__europe-west1-c"}
REGIONAL_GA = {ZONE: "europe-west1-b__europe-west1-c"}

GCE = {"gcePersistentDisk": {"pdName": "test-disk", "fsType": "ext4", "partition": 0}}
EBS = {"awsElasticBlockStore": {"volumeID": "vol01", "fsType": "ext3", "partition": 1}}

Terms = list[list[tuple[str, list[str]]]]
"""Node selector terms as [(key, In values), ...] per term."""


def _pv(source: dict[str, Any], labels: dict[str, str] | None, terms: Terms | None) -> Any:
    b = make_pv("pv").spec(**source)
    if labels:
        b.labels(labels)
    if terms is not None:
        b.node_affinity(
            {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": k, "operator": "In", "values": v} for k, v in term
                        ]
                    }
                    for term in terms
                ]
            }
        )
    return b.obj()


def _terms(affinity: VolumeNodeAffinity | None) -> Terms | None:
    if affinity is None or affinity.required is None:
        return None
    return [
        [(r.key, list(r.values)) for r in t.match_expressions]
        for t in affinity.required.node_selector_terms
    ]


# translate_test.go TestTopologyTranslation: (pv, expected terms)
TOPOLOGY: dict[str, tuple[PersistentVolume, Terms]] = {
    "GCE PD with beta zone labels": (
        _pv(GCE, BETA_LABELS, None),
        [[(GCE_PD_TOPOLOGY_KEY, ["us-east-1a"])]],
    ),
    "GCE PD with GA kubernetes zone labels": (
        _pv(GCE, GA_LABELS, None),
        [[(GCE_PD_TOPOLOGY_KEY, ["us-east-1a"])]],
    ),
    "GCE PD with existing topology (beta keys)": (
        _pv(GCE, None, [[(BETA_ZONE, ["us-east-2a"])]]),
        [[(GCE_PD_TOPOLOGY_KEY, ["us-east-2a"])]],
    ),
    "GCE PD with existing topology (CSI keys)": (
        _pv(GCE, None, [[(GCE_PD_TOPOLOGY_KEY, ["us-east-2a"])]]),
        [[(GCE_PD_TOPOLOGY_KEY, ["us-east-2a"])]],
    ),
    "GCE PD with zone labels and topology": (
        _pv(GCE, BETA_LABELS, [[(BETA_ZONE, ["us-east-2a"])]]),
        [[(GCE_PD_TOPOLOGY_KEY, ["us-east-2a"])]],
    ),
    "GCE PD with regional zones": (
        _pv(GCE, REGIONAL_BETA, None),
        [[(GCE_PD_TOPOLOGY_KEY, ["europe-west1-b", "europe-west1-c"])]],
    ),
    "GCE PD with regional topology": (
        _pv(GCE, None, [[(ZONE, ["europe-west1-b", "europe-west1-c"])]]),
        [[(GCE_PD_TOPOLOGY_KEY, ["europe-west1-b", "europe-west1-c"])]],
    ),
    "GCE PD with Beta regional zone and topology": (
        _pv(GCE, REGIONAL_BETA, [[(BETA_ZONE, ["europe-west1-f", "europe-west1-g"])]]),
        [[(GCE_PD_TOPOLOGY_KEY, ["europe-west1-f", "europe-west1-g"])]],
    ),
    "GCE PD with GA regional zone and topology": (
        _pv(GCE, REGIONAL_GA, [[(ZONE, ["europe-west1-f", "europe-west1-g"])]]),
        [[(GCE_PD_TOPOLOGY_KEY, ["europe-west1-f", "europe-west1-g"])]],
    ),
    "GCE PD with multiple node selector terms": (
        _pv(GCE, None, [[(ZONE, ["europe-west1-f"])], [(ZONE, ["europe-west1-g"])]]),
        [[(GCE_PD_TOPOLOGY_KEY, ["europe-west1-f"])], [(GCE_PD_TOPOLOGY_KEY, ["europe-west1-g"])]],
    ),
    "AWS EBS with beta zone labels": (
        _pv(EBS, BETA_LABELS, None),
        [[(AWS_EBS_TOPOLOGY_KEY, ["us-east-1a"])]],
    ),
    "AWS EBS with beta zone labels and topology": (
        _pv(EBS, BETA_LABELS, [[(BETA_ZONE, ["us-east-2a"])]]),
        [[(AWS_EBS_TOPOLOGY_KEY, ["us-east-2a"])]],
    ),
    "AWS EBS with GA zone labels": (
        _pv(EBS, GA_LABELS, None),
        [[(AWS_EBS_TOPOLOGY_KEY, ["us-east-1a"])]],
    ),
    "AWS EBS with GA zone labels and topology": (
        _pv(EBS, GA_LABELS, [[(ZONE, ["us-east-2a"])]]),
        [[(AWS_EBS_TOPOLOGY_KEY, ["us-east-2a"])]],
    ),
}


@pytest.mark.parametrize(("pv", "want"), TOPOLOGY.values(), ids=TOPOLOGY.keys())
def test_topology_translation(pv: PersistentVolume, want: Terms) -> None:
    before = pv.model_dump()
    assert _terms(translate_pv_to_csi(pv).spec.node_affinity) == want
    assert pv.model_dump() == before  # the stored object is left alone


# in_tree_volume_test.go TestTranslateTopologyFromInTreeToCSI, plus the corners of the
# same functions: (labels, terms, csi key, expected terms)
IN_TREE_TO_CSI: dict[str, tuple[dict[str, str], Terms | None, str, Terms | None]] = {
    "Replace GA Kubernetes Zone Topology to GCE CSI Topology": (
        GA_LABELS,
        [[(ZONE, ["us-east1-a"]), (REGION, ["us-east1"])]],
        GCE_PD_TOPOLOGY_KEY,
        [[(GCE_PD_TOPOLOGY_KEY, ["us-east1-a"]), (REGION, ["us-east1"])]],
    ),
    "Replace Beta Kubernetes Topology to GCE CSI Topology and upgrade region label": (
        GA_LABELS,
        [[(BETA_ZONE, ["us-west2-b"]), (BETA_REGION, ["us-west2"])]],
        GCE_PD_TOPOLOGY_KEY,
        [[(GCE_PD_TOPOLOGY_KEY, ["us-west2-b"]), (REGION, ["us-west2"])]],
    ),
    "zone label appended to every term that names other keys": (
        {ZONE: "z1"},
        [[("kubernetes.io/hostname", ["n1"])], [("rack", ["r1"])]],
        CINDER_TOPOLOGY_KEY,
        [
            [("kubernetes.io/hostname", ["n1"]), (CINDER_TOPOLOGY_KEY, ["z1"])],
            [("rack", ["r1"]), (CINDER_TOPOLOGY_KEY, ["z1"])],
        ],
    ),
    "zones from the label are deduplicated, trimmed and sorted": (
        {ZONE: "z2__ z1__z2__"},
        None,
        GCE_PD_TOPOLOGY_KEY,
        [[(GCE_PD_TOPOLOGY_KEY, ["z1", "z2"])]],
    ),
    "an empty zone label adds nothing": ({ZONE: ""}, None, GCE_PD_TOPOLOGY_KEY, None),
    "no zone anywhere: unchanged": (
        {},
        [[("kubernetes.io/hostname", ["n1"])]],
        GCE_PD_TOPOLOGY_KEY,
        [[("kubernetes.io/hostname", ["n1"])]],
    ),
    "beta region in the affinity with a beta zone label": (
        {BETA_ZONE: "us-west2-b"},
        [[(BETA_REGION, ["us-west2"])]],
        AWS_EBS_TOPOLOGY_KEY,
        [[(REGION, ["us-west2"]), (AWS_EBS_TOPOLOGY_KEY, ["us-west2-b"])]],
    ),
    "beta region kept when the zone in use is GA": (
        {},
        [[(ZONE, ["z1"]), (BETA_REGION, ["r1"])]],
        AWS_EBS_TOPOLOGY_KEY,
        [[(AWS_EBS_TOPOLOGY_KEY, ["z1"]), (BETA_REGION, ["r1"])]],
    ),
}


@pytest.mark.parametrize(
    ("labels", "terms", "key", "want"), IN_TREE_TO_CSI.values(), ids=IN_TREE_TO_CSI.keys()
)
def test_translate_topology_from_in_tree_to_csi(
    labels: dict[str, str], terms: Terms | None, key: str, want: Terms | None
) -> None:
    pv = _pv({}, labels, terms)
    got = translate_topology_to_csi(pv.spec.node_affinity, pv.metadata.labels, key)
    assert _terms(got) == want


def test_zone_without_values_falls_back_to_the_label() -> None:
    """getTopologyValues counts values, not expressions: a zone `Exists` stays as it is and
    the label's zone is appended (upstream's behaviour, odd as it is)."""
    pv = make_pv("pv").label(**{ZONE: "z1"}).spec(**GCE)
    pv.node_affinity(
        {"nodeSelectorTerms": [{"matchExpressions": [{"key": ZONE, "operator": "Exists"}]}]}
    )
    got = translate_pv_to_csi(pv.obj()).spec.node_affinity
    assert got is not None and got.required is not None
    reqs = got.required.node_selector_terms[0].match_expressions
    assert [(r.key, r.operator, r.values) for r in reqs] == [
        (ZONE, "Exists", []),
        (GCE_PD_TOPOLOGY_KEY, "In", ["z1"]),
    ]


def test_translated_pv_has_a_csi_source() -> None:
    pv = _pv(GCE, BETA_LABELS, None)
    pv.spec.access_modes = ["ReadWriteMany", "ReadOnlyMany"]
    got = translate_pv_to_csi(pv)
    assert got.spec.gce_persistent_disk is None
    assert got.spec.csi == {
        "driver": "pd.csi.storage.gke.io",
        "volumeHandle": "projects/UNSPECIFIED/zones/us-east-1a/disks/test-disk",
        "fsType": "ext4",
    }
    # gce_pd.go backwardCompatibleAccessModes: RWX counts as RWO, RWO+ROX is RWO
    assert got.spec.access_modes == ["ReadWriteOnce"]
    assert pv.spec.access_modes == ["ReadWriteMany", "ReadOnlyMany"]


def test_azure_disk_affinity_is_kept() -> None:
    """azure_disk.go translates a class's topology, never a PV's node affinity."""
    pv = _pv({"azureDisk": {"diskURI": "/d/1", "diskName": "1"}}, GA_LABELS, [[(ZONE, ["z"])]])
    got = translate_pv_to_csi(pv)
    assert got.spec.csi == {"driver": "disk.csi.azure.com", "volumeHandle": "/d/1"}
    assert _terms(got.spec.node_affinity) == [[(ZONE, ["z"])]]


@pytest.mark.parametrize(
    ("source", "error"),
    [
        # azure_disk_test.go "azure disk volume with non-managed kind"
        (
            {"azureDisk": {"diskURI": "/d/1", "kind": "Dedicated"}},
            "kind(Dedicated) is not supported in csi migration",
        ),
        (
            {"awsElasticBlockStore": {"volumeID": "aws://us-west-2a/02399794d890f9375"}},
            "failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume "
            "(aws://us-west-2a/02399794d890f9375)",
        ),
        ({"rbd": {"image": "i"}}, 'could not find in-tree plugin translation logic for "pv"'),
    ],
    ids=["azure disk non-managed kind", "EBS invalid ID", "RBD"],
)
def test_translation_errors(source: dict[str, Any], error: str) -> None:
    with pytest.raises(TranslationError) as info:
        translate_pv_to_csi(_pv(source, None, None))
    assert str(info.value) == error


def test_azure_managed_kind_in_any_case_translates() -> None:
    pv = _pv({"azureDisk": {"diskURI": "/d/1", "kind": "managed"}}, None, None)
    assert translate_pv_to_csi(pv).spec.csi == {
        "driver": "disk.csi.azure.com",
        "volumeHandle": "/d/1",
    }


# binder.go isCSIMigrationOnForPlugin and isPluginMigratedToCSIOnNode
_GCE, _EBS, _PX = "kubernetes.io/gce-pd", "kubernetes.io/aws-ebs", "kubernetes.io/portworx-volume"
MIGRATED = {
    "GCE PD listed": (_GCE, _GCE, True),
    "listed among others": (_EBS, f"{_GCE},{_EBS}", True),
    "Azure Disk listed": ("kubernetes.io/azure-disk", "kubernetes.io/azure-disk", True),
    "Cinder listed": ("kubernetes.io/cinder", "kubernetes.io/cinder", True),
    "Portworx listed (gate GA)": (_PX, _PX, True),
    "not listed": (_GCE, _EBS, False),
    "empty annotation": (_GCE, "", False),
    "no annotation": (_GCE, None, False),
    "no CSINode": (_GCE, "<none>", False),
    "vSphere never": ("kubernetes.io/vsphere-volume", "kubernetes.io/vsphere-volume", False),
    "Azure File never": ("kubernetes.io/azure-file", "kubernetes.io/azure-file", False),
    "RBD never": ("kubernetes.io/rbd", "kubernetes.io/rbd", False),
}


@pytest.mark.parametrize(("plugin", "annotation", "want"), MIGRATED.values(), ids=MIGRATED.keys())
def test_is_plugin_migrated_on_node(plugin: str, annotation: str | None, want: bool) -> None:
    node = None if annotation == "<none>" else csi_node("node1", migrated=annotation)
    assert is_plugin_migrated_on_node(plugin, node) is want


def test_try_translate_only_where_migrated() -> None:
    pv = _pv(GCE, BETA_LABELS, None)
    assert try_translate_pv_to_csi(pv, csi_node("n", migrated="kubernetes.io/aws-ebs")) is pv
    assert try_translate_pv_to_csi(pv, None) is pv
    got = try_translate_pv_to_csi(pv, csi_node("n", migrated="kubernetes.io/gce-pd"))
    assert got is not pv and got.spec.csi is not None
    csi_pv = make_pv("csi").csi("pd.csi.storage.gke.io", "h").obj()
    assert try_translate_pv_to_csi(csi_pv, csi_node("n", migrated="kubernetes.io/gce-pd")) is csi_pv


def test_try_translate_error_names_the_step() -> None:
    pv = _pv({"gcePersistentDisk": {"pdName": "d"}}, {ZONE: "a-b-c__x"}, None)
    with pytest.raises(TranslationError) as info:
        try_translate_pv_to_csi(pv, csi_node("n", migrated="kubernetes.io/gce-pd"))
    assert str(info.value) == (
        "could not translate pv: failed to get region from zones: zone in unexpected format, "
        "expected: {locale}-{region}-{zone}, got: x"
    )


_zone = st.sampled_from(["z1", "z2", "z3", "z4"])


@given(
    terms=st.lists(st.lists(_zone, min_size=1, max_size=3), min_size=1, max_size=3),
    beta=st.booleans(),
    node_zone=st.one_of(st.none(), _zone),
)
def test_translated_affinity_admits_the_same_zones(
    terms: list[list[str]], beta: bool, node_zone: str | None
) -> None:
    """A node in zone z passes the in-tree PV's zone affinity exactly when a node whose CSI
    driver reports zone z passes the translated one."""
    key = BETA_ZONE if beta else ZONE
    pv = _pv(GCE, None, [[(key, values)] for values in terms])
    translated = translate_pv_to_csi(pv)
    in_tree_labels = {key: node_zone} if node_zone else {}
    csi_labels = {GCE_PD_TOPOLOGY_KEY: node_zone} if node_zone else {}
    assert (node_affinity_error(pv, in_tree_labels) is None) == (
        node_affinity_error(translated, csi_labels) is None
    )
    if node_zone:  # the translated PV asks for the driver's key, not the in-tree label
        assert node_affinity_error(translated, in_tree_labels) is not None


def test_non_managed_azure_disk_is_not_counted_either() -> None:
    """NodeVolumeLimits' handle translation shares the rule (getCSIDriverInfo: a
    translation error leaves the volume uncounted)."""
    pv = _pv({"azureDisk": {"diskURI": "/d/1", "kind": "Shared"}}, None, None)
    with pytest.raises(TranslationError, match=r"kind\(Shared\) is not supported"):
        translate_pv(pv)
