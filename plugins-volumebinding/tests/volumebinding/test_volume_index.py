"""The PV index (volume_index.py) chooses exactly what the plain scan
(matching.find_matching_volume, upstream FindMatchingVolume) chooses: for random PVs,
claims and nodes, one claim at a time and a pod's claims together; and the assume cache
keeps it equal to its own listing through informer events, assumptions and restores,
without changing a snapshot PreFilter already holds.

The upstream tables (test_find_pod_volumes.py, test_assume_and_bind.py) run through the
index too, since the binder takes its PVs from the assume cache. Last, the PV controller's
narrower candidate list (its index following the cluster's list) finds what the scan over
every PV finds.
"""

from __future__ import annotations

from typing import Any

import pytest
from binder_fixtures import NS, WAIT, WAIT_PROV, BinderEnv, make_test_pod
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from volumebinding_helpers import csi_driver, make_pv, make_pvc, storage_class

from kubesched.api import Node
from kubesched.testing import make_node
from kubesched_volumebinding.controllers._claim_candidates import ClaimCandidates
from kubesched_volumebinding.controllers.pv_controller import _candidates
from kubesched_volumebinding.storage import (
    ANN_BETA_STORAGE_CLASS,
    PersistentVolume,
    PersistentVolumeClaim,
    access_modes_satisfied,
    claim_class,
    volume_class,
)
from kubesched_volumebinding.volumebinding import (
    ClassVolumes,
    PodVolumeClaims,
    PVAssumeCache,
    VolumeBindingError,
    find_matching_volume,
)
from kubesched_volumebinding.volumebinding.node_blind import full_check_hosts
from kubesched_volumebinding.volumebinding.volume_index import HOSTNAME_LABEL, pinned_hostnames

ZONE = "topology.kubernetes.io/zone"
CLAIMS = ("c0", "c1", "c2")
HOSTS = ("h1", "h2", "n1", "n2")
MODES = ("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany")


def _req(key: str, op: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": op, "values": list(values)}


def _terms(*terms: list[dict[str, Any]]) -> dict[str, Any]:
    return {"nodeSelectorTerms": [{"matchExpressions": t} for t in terms]}


AFFINITIES: dict[str, dict[str, Any] | None] = {
    "none": None,
    "host h1": _terms([_req(HOSTNAME_LABEL, "In", "h1")]),
    "host n1": _terms([_req(HOSTNAME_LABEL, "In", "n1")]),
    "host h1 or h2": _terms([_req(HOSTNAME_LABEL, "In", "h1", "h2")]),
    "host h2 in zone z1": _terms([_req(HOSTNAME_LABEL, "In", "h2"), _req(ZONE, "In", "z1")]),
    "zone z1": _terms([_req(ZONE, "In", "z1")]),
    "host h1 | host n2": _terms(
        [_req(HOSTNAME_LABEL, "In", "h1")], [_req(HOSTNAME_LABEL, "In", "n2")]
    ),
    "host h1 | zone z2": _terms([_req(HOSTNAME_LABEL, "In", "h1")], [_req(ZONE, "In", "z2")]),
    "host in h1,n1 and in n1,h2": _terms(
        [_req(HOSTNAME_LABEL, "In", "h1", "n1"), _req(HOSTNAME_LABEL, "In", "n1", "h2")]
    ),
    "host not h1": _terms([_req(HOSTNAME_LABEL, "NotIn", "h1")]),
    "host exists": _terms([_req(HOSTNAME_LABEL, "Exists")]),
    "field name n1": {"nodeSelectorTerms": [{"matchFields": [_req("metadata.name", "In", "n1")]}]},
    "field and host": {
        "nodeSelectorTerms": [
            {
                "matchExpressions": [_req(HOSTNAME_LABEL, "In", "h1")],
                "matchFields": [_req("metadata.name", "In", "n1")],
            }
        ]
    },
    "empty term": {"nodeSelectorTerms": [{}]},
    "no terms": {"nodeSelectorTerms": []},
}


def _pv(name: str, draw: Any) -> PersistentVolume:
    b = make_pv(name).version(str(draw(st.integers(1, 3))))
    size = draw(st.sampled_from(["", "1Gi", "2Gi", "5Gi", "5Gi", "10Gi"]))
    if size:
        b.capacity(size)
    b.cls(draw(st.sampled_from([WAIT, WAIT, WAIT, "other"])))
    if draw(st.integers(0, 9)) == 0:  # the beta annotation names the class
        b.spec(storageClassName="")
        b._d["metadata"].setdefault("annotations", {})[ANN_BETA_STORAGE_CLASS] = WAIT
    b.modes(*draw(st.lists(st.sampled_from(MODES), unique=True, max_size=3)))
    b.phase(draw(st.sampled_from(["Available"] * 5 + ["Pending", "Bound", "Released"])))
    mode = draw(st.sampled_from([None, None, "Filesystem", "Block"]))
    if mode is not None:
        b.mode(mode)
    vac = draw(st.sampled_from([None, None, None, "gold"]))
    if vac is not None:
        b.spec(volumeAttributesClassName=vac)
    if draw(st.integers(0, 3)) == 0:
        b.label(tier=draw(st.sampled_from(["a", "b"])))
    if draw(st.integers(0, 12)) == 0:
        b.deleting()
    affinity = AFFINITIES[draw(st.sampled_from(sorted(AFFINITIES)))]
    if affinity is not None:
        b.node_affinity(affinity)
    if draw(st.integers(0, 3)) == 0:
        claim = draw(st.sampled_from(CLAIMS))
        ns = draw(st.sampled_from([NS, NS, "default", ""]))
        uid = draw(st.sampled_from(["", f"uid-{claim}", "uid-other"]))
        b.spec(
            claimRef={"kind": "PersistentVolumeClaim", "namespace": ns, "name": claim, "uid": uid}
        )
    return b.obj()


@st.composite
def pv_sets(draw: Any) -> list[PersistentVolume]:
    names = draw(st.lists(st.integers(0, 30), unique=True, max_size=14))
    return [_pv(f"pv-{n:02d}", draw) for n in names]


@st.composite
def claims(draw: Any, name: str | None = None) -> PersistentVolumeClaim:
    claim = name or draw(st.sampled_from(CLAIMS))
    b = make_pvc(claim, NS).cls(draw(st.sampled_from([WAIT, WAIT, WAIT, "other"])))
    size = draw(st.sampled_from(["", "1Gi", "2Gi", "4Gi", "5Gi", "10Gi", "20Gi"]))
    if size:
        b.request(size)
    b.modes(*draw(st.lists(st.sampled_from(MODES), unique=True, max_size=2)))
    mode = draw(st.sampled_from([None, None, "Filesystem", "Block"]))
    if mode is not None:
        b.spec(volumeMode=mode)
    vac = draw(st.sampled_from([None, None, None, "gold"]))
    if vac is not None:
        b.spec(volumeAttributesClassName=vac)
    if draw(st.integers(0, 4)) == 0:
        b.selector(tier="a")
    if draw(st.integers(0, 8)) == 0:
        b.uid("uid-other")
    return b.obj()


@st.composite
def nodes(draw: Any) -> Node:
    name = draw(st.sampled_from(["n1", "n2", "n3"]))
    b = make_node(name)
    host = draw(st.sampled_from([name, name, *HOSTS, None]))
    if host is not None:
        b.label(**{HOSTNAME_LABEL: host})
    zone = draw(st.sampled_from(["z1", "z2", None]))
    if zone is not None:
        b.label(**{ZONE: zone})
    return b.obj()


def _by_name(pvs: list[PersistentVolume]) -> list[PersistentVolume]:
    return sorted(pvs, key=lambda p: p.metadata.name)


def _name(pv: PersistentVolume | None) -> str | None:
    return pv.metadata.name if pv is not None else None


_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(
    pvs=pv_sets(),
    claim=claims(),
    node=nodes(),
    excluded=st.sets(st.sampled_from([f"pv-{n:02d}" for n in range(31)]), max_size=4),
    vac=st.booleans(),
)
def test_index_matches_the_scan(
    pvs: list[PersistentVolume],
    claim: PersistentVolumeClaim,
    node: Node,
    excluded: set[str],
    vac: bool,
) -> None:
    listed = _by_name(pvs)
    want = find_matching_volume(
        claim, listed, node, excluded, delay_binding=True, volume_attributes_class=vac
    )
    index = ClassVolumes.of(pvs)
    got = index.find_matching_volume(claim, node, excluded, volume_attributes_class=vac)
    assert _name(got) == _name(want)
    assert got is want
    assert list(index) == listed and len(index) == len(listed)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pvs=pv_sets(),
    pod_claims=st.lists(st.sampled_from(CLAIMS), unique=True, min_size=1, max_size=3).flatmap(
        lambda names: st.tuples(*(claims(name=n) for n in names))
    ),
    node=nodes(),
)
def test_binder_finds_the_same_volumes(
    pvs: list[PersistentVolume], pod_claims: tuple[PersistentVolumeClaim, ...], node: Node
) -> None:
    """A pod's claims together, smallest first, never one PV for two claims: the binder
    over indexes and over plain lists (the scan) agrees on bindings and reasons."""
    env = BinderEnv()
    delayed = list(pod_claims)
    classes = {WAIT, "other"}
    indexed = PodVolumeClaims(
        delayed=delayed,
        volumes_by_class={
            c: ClassVolumes.of([p for p in pvs if volume_class(p) == c]) for c in classes
        },
    )
    scanned = PodVolumeClaims(
        delayed=delayed,
        volumes_by_class={c: _by_name([p for p in pvs if volume_class(p) == c]) for c in classes},
    )
    pod = make_test_pod(*delayed)

    def outcome(claims_: PodVolumeClaims) -> Any:
        try:
            volumes, reasons = env.binder.find_pod_volumes(pod, claims_, node)
        except Exception as exc:  # a class without a provisioner entry, etc.
            return type(exc).__name__, str(exc)
        bindings = [
            (b.pvc.metadata.name, b.pv.metadata.name) for b in volumes.static_bindings or []
        ]
        provisions = [p.pvc.metadata.name for p in volumes.dynamic_provisions or []]
        return bindings, provisions, reasons

    assert outcome(indexed) == outcome(scanned)


# -- the assume cache keeps the index ------------------------------------------------------


@st.composite
def cache_ops(draw: Any) -> list[tuple[str, Any]]:
    ops: list[tuple[str, Any]] = []
    for _ in range(draw(st.integers(1, 25))):
        kind = draw(st.sampled_from(["add", "add", "assume", "restore", "delete"]))
        name = f"pv-{draw(st.integers(0, 6)):02d}"
        ops.append((kind, _pv(name, draw) if kind in ("add", "assume") else name))
    return ops


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=cache_ops(), claim=claims(), node=nodes())
def test_cache_keeps_the_index_up_to_date(
    ops: list[tuple[str, Any]], claim: PersistentVolumeClaim, node: Node
) -> None:
    cache = PVAssumeCache()
    version = 1
    held: list[tuple[ClassVolumes, list[str]]] = []
    for kind, arg in ops:
        if kind == "add":  # an informer event: newer than anything stored
            version += 1
            arg.metadata.resource_version = str(version)
            cache.add(arg)
        elif kind == "assume":
            if arg.metadata.name not in cache:
                continue
            arg.metadata.resource_version = cache.get(arg.metadata.name).metadata.resource_version
            cache.assume(arg)
        elif kind == "restore":
            cache.restore(arg)
        elif arg in cache:
            cache.delete(cache.get_api_obj(arg))
        for cls in (WAIT, "other", ""):
            snapshot = cache.class_volumes(cls)
            latest = cache.list(cls)  # the generic listing: latest objects by name, filtered
            assert list(snapshot) == latest
            assert cache.list_pvs(cls) == latest
            want = find_matching_volume(claim, latest, node, (), delay_binding=True)
            assert snapshot.find_matching_volume(claim, node, ()) is want
            held.append((snapshot, [p.metadata.name for p in snapshot]))
    for snapshot, names in held:  # what PreFilter kept did not change under it
        assert [p.metadata.name for p in snapshot] == names


# -- which PVs are pinned ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("affinity", "hosts"),
    [
        ("none", None),
        ("host h1", {"h1"}),
        ("host h1 or h2", {"h1", "h2"}),
        ("host h2 in zone z1", {"h2"}),
        ("zone z1", None),
        ("host h1 | host n2", {"h1", "n2"}),
        ("host h1 | zone z2", None),
        ("host in h1,n1 and in n1,h2", {"n1"}),
        ("host not h1", None),
        ("host exists", None),
        ("field name n1", set()),  # matchFields never match a node known by its labels
        ("field and host", set()),
        ("empty term", set()),
        ("no terms", set()),
    ],
)
def test_pinned_hostnames(affinity: str, hosts: set[str] | None) -> None:
    pv = make_pv("pv").capacity("1Gi").cls(WAIT)
    if AFFINITIES[affinity] is not None:
        pv.node_affinity(AFFINITIES[affinity])  # type: ignore[arg-type]
    got = pinned_hostnames(pv.obj())
    assert got == (frozenset(hosts) if hosts is not None else None)


def _local(name: str, host: str, size: str = "1Gi") -> PersistentVolume:
    return make_pv(name).capacity(size).cls(WAIT).affinity({HOSTNAME_LABEL: [host]}).obj()


def test_nodes_are_found_by_their_hostname_label_not_their_name() -> None:
    """Upstream #125336: a hostname label value is not a node name."""
    index = ClassVolumes.of([_local("pv-a", "host-a"), _local("pv-b", "node-1")])
    claim = make_pvc("c0", NS).cls(WAIT).request("1Gi").obj()
    labelled = make_node("node-1").label(**{HOSTNAME_LABEL: "host-a"}).obj()
    unlabelled = make_node("host-a").obj()
    assert _name(index.find_matching_volume(claim, labelled, ())) == "pv-a"
    assert index.find_matching_volume(claim, unlabelled, ()) is None


def test_smallest_fitting_then_first_by_name_across_pinned_and_unpinned() -> None:
    pvs = [
        make_pv("pv-z").capacity("5Gi").cls(WAIT).obj(),  # unpinned
        _local("pv-b", "n1", "5Gi"),
        _local("pv-a", "n1", "10Gi"),
        make_pv("pv-c").capacity("2Gi").cls(WAIT).obj(),
    ]
    index = ClassVolumes.of(pvs)
    n1 = make_node("n1").label(**{HOSTNAME_LABEL: "n1"}).obj()
    small = make_pvc("c0", NS).cls(WAIT).request("1Gi").obj()
    big = make_pvc("c1", NS).cls(WAIT).request("3Gi").obj()
    assert _name(index.find_matching_volume(small, n1, ())) == "pv-c"
    assert _name(index.find_matching_volume(big, n1, ())) == "pv-b"  # 5Gi tie: name order
    assert _name(index.find_matching_volume(big, n1, {"pv-b"})) == "pv-z"
    assert _name(index.find_matching_volume(big, n1, {"pv-b", "pv-z"})) == "pv-a"


def test_a_prebound_volume_wins_or_rejects_the_node() -> None:
    claim = make_pvc("c0", NS).cls(WAIT).request("1Gi").obj()
    prebound = make_pv("pv-p").capacity("10Gi").cls(WAIT).affinity({HOSTNAME_LABEL: ["n2"]})
    index = ClassVolumes.of(
        [prebound.claim(claim).obj(), make_pv("pv-a").capacity("1Gi").cls(WAIT).obj()]
    )
    n1 = make_node("n1").label(**{HOSTNAME_LABEL: "n1"}).obj()
    n2 = make_node("n2").label(**{HOSTNAME_LABEL: "n2"}).obj()
    assert _name(index.find_matching_volume(claim, n2, ())) == "pv-p"
    assert index.find_matching_volume(claim, n1, ()) is None  # as upstream: no fallback
    assert _name(index.find_matching_volume(claim, n1, {"pv-p"})) == "pv-a"


def test_assumed_claim_ref_takes_the_volume() -> None:
    """Reserve assumes a PV bound to a claim: the next pod's PreFilter must not see it
    free, and a restore frees it again."""
    cache = PVAssumeCache()
    cache.add(_local("pv-a", "n1"))
    n1 = make_node("n1").label(**{HOSTNAME_LABEL: "n1"}).obj()
    first = make_pvc("c0", NS).cls(WAIT).request("1Gi").obj()
    second = make_pvc("c1", NS).cls(WAIT).request("1Gi").obj()
    before = cache.class_volumes(WAIT)
    assumed = make_pv("pv-a").capacity("1Gi").cls(WAIT).affinity({HOSTNAME_LABEL: ["n1"]})
    cache.assume(assumed.claim(first).obj())
    after = cache.class_volumes(WAIT)
    assert after.find_matching_volume(second, n1, ()) is None
    assert _name(after.find_matching_volume(first, n1, ())) == "pv-a"
    assert _name(before.find_matching_volume(second, n1, ())) == "pv-a"  # a held snapshot
    cache.restore("pv-a")
    assert _name(cache.class_volumes(WAIT).find_matching_volume(second, n1, ())) == "pv-a"


def test_unknown_class_is_empty() -> None:
    cache = PVAssumeCache()
    assert list(cache.class_volumes(WAIT_PROV)) == [] and len(cache.class_volumes(WAIT_PROV)) == 0


def _filed(index: ClaimCandidates) -> set[tuple[str, str, int]]:
    """What the index files where: (claim name or class, PV name, object id)."""
    out = set()
    for key in (*CLAIMS, "missing"):
        out |= {("claim " + key, p.metadata.name, id(p)) for p in index.pre_bound_to(key)}
    for key in (WAIT, WAIT_PROV, "other", ""):
        out |= {("class " + key, p.metadata.name, id(p)) for p in index.unbound_of_class(key)}
    return out


@_SETTINGS
@given(before=pv_sets(), pvs=pv_sets(), claim=claims(), delayed=st.booleans(), data=st.data())
def test_pv_controller_candidates_change_nothing(
    before: list[PersistentVolume],
    pvs: list[PersistentVolume],
    claim: PersistentVolumeClaim,
    delayed: bool,
    data: st.DataObject,
) -> None:
    """The PV controller looks only at PVs that could match a claim without a node; what
    it finds is what the scan over every PV with the claim's access modes finds. Its
    index follows the cluster's list from any earlier one (PVs kept as the same object,
    replaced, added, removed, moved) to what an index of the new list alone holds."""
    earlier = {p.metadata.name: p for p in before}
    current = data.draw(
        st.permutations(
            [
                earlier[p.metadata.name]
                if p.metadata.name in earlier and data.draw(st.booleans())
                else p
                for p in pvs
            ]
        )
    )
    index = ClaimCandidates()
    index.follow(before)
    index.follow(current)
    fresh = ClaimCandidates()
    fresh.follow(current)
    assert _filed(index) == _filed(fresh)
    everything = [p for p in _by_name(current) if access_modes_satisfied(claim, p)]
    want = find_matching_volume(claim, everything, None, (), delay_binding=delayed)
    narrowed = _by_name(_candidates(index, claim, delayed))
    assert find_matching_volume(claim, narrowed, None, (), delay_binding=delayed) is want


# -- nodes that share an answer (node_blind.py) ----------------------------------------------

PLAIN_PROV = "plainProvClass"
"""A class with a provisioner and no allowedTopologies: provisioning is alike on every node."""
ZONAL_PROV = "zonalProvClass"
"""A class provisioning in zone z1 only."""


@_SETTINGS
@given(
    pvs=pv_sets(),
    pod_claims=st.lists(claims(), min_size=1, max_size=3, unique_by=lambda c: c.metadata.name),
    classes=st.lists(
        st.sampled_from([None, PLAIN_PROV, ZONAL_PROV, ZONAL_PROV, WAIT_PROV, "other"]),
        min_size=3,
    ),
    selected=st.sampled_from([None, "n1", "n3"]),
    bound_to=st.sampled_from([None, "pv-00", "pv-01", "pv-02", "pv-missing"]),
    tracks_capacity=st.booleans(),
    node_list=st.lists(nodes(), min_size=2, max_size=6),
)
@example(  # provisioning in zone z1 only: a node in z2 does not get z1's answer
    pvs=[],
    pod_claims=[make_pvc("c0", NS).request("1Gi").obj()],
    classes=[ZONAL_PROV],
    selected=None,
    bound_to=None,
    tracks_capacity=False,
    node_list=[make_node("n1").label(**{ZONE: "z1"}).obj(), make_node("n2").obj()],
)
def test_nodes_outside_the_full_check_hosts_get_the_full_answer(
    pvs: list[PersistentVolume],
    pod_claims: list[PersistentVolumeClaim],
    classes: list[str | None],
    selected: str | None,
    bound_to: str | None,
    tracks_capacity: bool,
    node_list: list[Node],
) -> None:
    """find_pod_volumes, which hands the first node outside `full_check_hosts` answer to
    the others, answers every node as the whole check (`_find_pod_volumes`) does: the same
    bindings, provisions, reasons or error, node after node in any order."""
    delayed = []
    for claim, cls in zip(pod_claims, classes, strict=False):
        if cls is not None:
            spec = claim.spec.model_copy(update={"storage_class_name": cls})
            claim = claim.model_copy(update={"spec": spec})
        delayed.append(claim)
    if selected is not None and delayed:
        delayed[0] = (
            make_pvc(delayed[0].metadata.name, NS)
            .cls(delayed[0].spec.storage_class_name)
            .selected_node(selected)
            .obj()
        )
    bound = [make_pvc("bound", NS).cls(WAIT).bound(bound_to).obj()] if bound_to else []
    extra = [
        storage_class(PLAIN_PROV, provisioner="csi.example.com"),
        storage_class(ZONAL_PROV, provisioner="csi.example.com", allowed={ZONE: ["z1"]}),
        csi_driver("csi.example.com", tracks_capacity),
    ]
    env = BinderEnv(extra, nodes=[make_node(n).obj() for n in ("n1", "n2", "n3")]).add(pvs)
    volumes_by_class = {
        c: ClassVolumes.of([p for p in pvs if volume_class(p) == c])
        for c in {claim_class(c) for c in delayed}
    }
    hosts = full_check_hosts(bound, delayed, volumes_by_class, env.pv_cache.get, env.binder.listers)
    shared = PodVolumeClaims(
        bound=bound, delayed=delayed, volumes_by_class=volumes_by_class, full_check_hosts=hosts
    )
    whole = PodVolumeClaims(bound=bound, delayed=delayed, volumes_by_class=volumes_by_class)
    pod = make_test_pod(*bound, *delayed)

    def outcome(claims_: PodVolumeClaims, node: Node) -> Any:
        try:
            volumes, reasons = env.binder.find_pod_volumes(pod, claims_, node)
        except VolumeBindingError as exc:
            return "error", str(exc)
        bindings = [
            (b.pvc.metadata.name, b.pv.metadata.name) for b in volumes.static_bindings or []
        ]
        provisions = [
            (p.pvc.metadata.name, p.node_capacity) for p in volumes.dynamic_provisions or []
        ]
        return bindings, provisions, reasons

    for node in node_list:
        assert outcome(shared, node) == outcome(whole, node)


def test_full_check_hosts_are_the_pinned_ones() -> None:
    """A WaitForFirstConsumer claim whose class has only PVs pinned to hostnames: only
    nodes with those hostnames need the whole check; one pre-bound to the claim or an
    unpinned PV, a selected node, or a class with allowedTopologies makes every node
    need it."""
    env = BinderEnv()
    local = [
        make_pv(f"pv-{h}")
        .capacity("5Gi")
        .cls(WAIT)
        .phase("Available")
        .node_affinity(_terms([_req(HOSTNAME_LABEL, "In", h)]))
        .obj()
        for h in ("h1", "h2")
    ]
    claim = make_pvc("c0", NS).cls(WAIT).request("1Gi").obj()

    def hosts(pvs: list[PersistentVolume], pvc: PersistentVolumeClaim) -> frozenset[str] | None:
        by_class = {claim_class(pvc): ClassVolumes.of(pvs)}
        return full_check_hosts([], [pvc], by_class, env.pv_cache.get, env.binder.listers)

    assert hosts(local, claim) == {"h1", "h2"}
    assert hosts([], claim) == frozenset()
    unpinned = make_pv("pv-any").capacity("5Gi").cls(WAIT).phase("Available").obj()
    assert hosts([*local, unpinned], claim) is None
    prebound = make_pv("pv-c0").capacity("5Gi").cls(WAIT).claim(claim).obj()
    assert hosts([*local, prebound], claim) is None
    selected = make_pvc("c0", NS).cls(WAIT).request("1Gi").selected_node("n1").obj()
    assert hosts(local, selected) is None
    topology = make_pvc("c0", NS).cls(WAIT_PROV).request("1Gi").obj()
    assert hosts([], topology) is None
