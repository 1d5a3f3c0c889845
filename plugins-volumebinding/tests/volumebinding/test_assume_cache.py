"""The assume cache, after upstream's assume_cache_test.go: versions decide whether an
informer event or an assumption replaces what is stored; restore brings back the
informer's object; lists are by class."""

from __future__ import annotations

import pytest
from volumebinding_helpers import make_pv, make_pvc

from kubesched.cluster import WatchEvent
from kubesched_volumebinding.storage import ANN_SELECTED_NODE, ObjectReference
from kubesched_volumebinding.volumebinding import (
    AssumeCacheError,
    NotFoundInCacheError,
    PVAssumeCache,
    PVCAssumeCache,
)


def _with_claim(pv_version: str) -> object:
    pv = make_pv("pv1").version(pv_version).obj()
    pv.spec.claim_ref = ObjectReference(name="claim", namespace="ns")
    return pv


@pytest.mark.parametrize(
    ("stored", "assumed", "ok"),
    [
        ("5", "5", True),  # same version: the normal case
        ("5", "6", True),  # newer
        ("5", "4", False),  # older: out of sync
        ("5", "a", False),  # not a number
        ("a", "5", False),  # stored one is not a number
    ],
)
def test_assume_pv(stored: str, assumed: str, ok: bool) -> None:
    cache = PVAssumeCache()
    original = make_pv("pv1").version(stored).obj()
    cache.add(original)
    new = make_pv("pv1").version(assumed).cls("assumed").obj()
    if ok:
        cache.assume(new)
        assert cache.get("pv1") is new
        assert cache.get_api_obj("pv1") is original
    else:
        with pytest.raises(AssumeCacheError):
            cache.assume(new)
        assert cache.get("pv1") is original


def test_assume_unknown_key_is_an_error() -> None:
    cache = PVAssumeCache()
    with pytest.raises(NotFoundInCacheError) as info:
        cache.assume(make_pv("pv1").obj())
    assert str(info.value) == 'could not find v1.PersistentVolume "pv1"'


def test_out_of_sync_message_names_both_versions() -> None:
    cache = PVAssumeCache()
    cache.add(make_pv("pv1").version("5").obj())
    with pytest.raises(AssumeCacheError) as info:
        cache.assume(make_pv("pv1").version("4").obj())
    assert str(info.value) == 'v1.PersistentVolume "pv1" is out of sync (stored: 5, assume: 4)'


@pytest.mark.parametrize(
    ("stored", "assumed", "ok"),
    [("5", "5", True), ("5", "6", True), ("5", "4", False), ("5", "a", False)],
)
def test_assume_pvc(stored: str, assumed: str, ok: bool) -> None:
    cache = PVCAssumeCache()
    original = make_pvc("claim1").version(stored).obj()
    cache.add(original)
    new = make_pvc("claim1").version(assumed).selected_node("n1").obj()
    if ok:
        cache.assume(new)
        assert cache.get("default/claim1") is new
    else:
        with pytest.raises(AssumeCacheError):
            cache.assume(new)
        assert cache.get("default/claim1") is original


def test_restore_pv() -> None:
    cache = PVAssumeCache()
    cache.restore("nothing")  # unknown key: harmless
    original = make_pv("pv1").version("5").obj()
    cache.add(original)
    cache.restore("pv1")  # nothing assumed: still the API object
    assert cache.get("pv1") is original
    assumed = make_pv("pv1").version("5").cls("x").obj()
    cache.assume(assumed)
    assert cache.is_assumed("pv1")
    cache.restore("pv1")
    assert cache.get("pv1") is original
    assert cache.get_api_obj("pv1") is original
    assert not cache.is_assumed("pv1")


def test_restore_pvc() -> None:
    cache = PVCAssumeCache()
    original = make_pvc("claim1").version("5").obj()
    cache.add(original)
    cache.assume(make_pvc("claim1").version("5").selected_node("n").obj())
    cache.restore("default/claim1")
    assert cache.get("default/claim1") is original
    assert cache.assumed_keys() == []


def test_basic_pv_cache() -> None:
    cache = PVAssumeCache()
    with pytest.raises(NotFoundInCacheError):
        cache.get("pv-missing")
    pvs = [make_pv(f"pv{i}").version("1").obj() for i in range(10)]
    for pv in pvs:
        cache.add(pv)
    assert cache.list_pvs("") == sorted(pvs, key=lambda p: p.metadata.name)
    newer = make_pv("pv3").version("2").obj()
    cache.on_watch_event(WatchEvent("MODIFIED", "PersistentVolume", newer, pvs[3]))
    assert newer in cache.list_pvs("")
    assert pvs[3] not in cache.list_pvs("")
    cache.on_watch_event(WatchEvent("DELETED", "PersistentVolume", newer))
    assert len(cache.list_pvs("")) == 9
    with pytest.raises(NotFoundInCacheError):
        cache.get("pv3")


def test_pv_cache_lists_by_class() -> None:
    cache = PVAssumeCache()
    ones = [make_pv(f"a{i}").cls("class1").obj() for i in range(3)]
    twos = [make_pv(f"b{i}").cls("class2").obj() for i in range(2)]
    for pv in [*ones, *twos]:
        cache.add(pv)
    assert cache.list_pvs("class1") == ones
    assert cache.list_pvs("class2") == twos
    assert cache.list_pvs("") == []
    cache.add(make_pv("a0").cls("class2").version("2").obj())  # class changed
    assert [p.metadata.name for p in cache.list_pvs("class2")] == ["a0", "b0", "b1"]
    cache.delete(twos[0])
    assert [p.metadata.name for p in cache.list_pvs("class2")] == ["a0", "b1"]


def test_informer_event_with_same_version_keeps_the_assumption() -> None:
    cache = PVAssumeCache()
    api = make_pv("pv1").version("1").obj()
    cache.add(api)
    assumed = _with_claim("1")
    cache.assume(assumed)  # type: ignore[arg-type]
    cache.add(make_pv("pv1").version("1").obj())  # a resync delivers the same version
    assert cache.get("pv1") is assumed
    newer = make_pv("pv1").version("2").obj()
    cache.add(newer)  # a strictly newer informer object wins
    assert cache.get("pv1") is newer
    assert not cache.is_assumed("pv1")


def test_informer_event_with_same_version_keeps_an_assumed_claim() -> None:
    cache = PVCAssumeCache()
    cache.add(make_pvc("claim1").version("1").obj())
    assumed = make_pvc("claim1").version("1").selected_node("node1").obj()
    cache.assume(assumed)
    cache.add(make_pvc("claim1").version("1").obj())
    assert cache.get("default/claim1").metadata.annotations[ANN_SELECTED_NODE] == "node1"


def test_add_with_unparseable_version_is_ignored() -> None:
    cache = PVAssumeCache()
    first = make_pv("pv1").version("3").obj()
    cache.add(first)
    cache.add(make_pv("pv1").version("x").obj())
    assert cache.get("pv1") is first
