"""Watch events validated straight from their line (`decode_event`) give what parsing the
line and decoding its object gives; any other event (BOOKMARK, ERROR), an object its model
rejects, or a kind whose model defaults differ is left to that slower path, which logs the
bad object and keeps the last version that decoded."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import cluster_on, eventually, fake_server, run
from test_kube_list_pages import _NODE, _POD, _kind, _mutated

from kubesched.api import KindInfo, Pod
from kubesched.cluster import WatchEvent
from kubesched.cluster.kube._resources import DecodeError, decode, decode_event, key_of_raw
from kubesched.testing.apiserver import node_raw, pod_raw, status_body

Raw = dict[str, Any]


def _line(kind: str, obj: Raw) -> bytes:
    return json.dumps({"type": kind, "object": obj}).encode() + b"\n"


def _slow(info: KindInfo, line: bytes) -> tuple[str, str, Any]:
    """What the informer made of a line before: json.loads, then `decode` the object."""
    event = json.loads(line)
    raw = event["object"]
    return event["type"], key_of_raw(info, raw), decode(info, raw)


@pytest.mark.parametrize("event_type", ["ADDED", "MODIFIED", "DELETED"])
def test_an_event_decodes_as_its_parsed_object(event_type: str) -> None:
    for kind, raw in (
        ("Node", {"apiVersion": "v1", "kind": "Node", **node_raw("n1", cpu="2")}),
        ("Pod", {"apiVersion": "v1", "kind": "Pod", **pod_raw("p", namespace="ns", node="n1")}),
        ("Pod", pod_raw("no-type-meta")),  # without apiVersion and kind: the kind's own
    ):
        info = _kind(kind)
        raw["metadata"]["resourceVersion"] = "42"
        line = _line(event_type, raw)
        change = decode_event(info, line)
        assert change is not None
        expected_type, _, expected = _slow(info, line)
        assert change == (expected_type, expected)
        assert change[1].metadata.resource_version == "42"


def test_bookmarks_and_errors_are_left_to_the_slow_path() -> None:
    info = _kind("Pod")
    bookmark = {"kind": "Pod", "metadata": {"resourceVersion": "9"}}
    assert decode_event(info, _line("BOOKMARK", bookmark)) is None
    assert decode_event(info, _line("ERROR", status_body(410, "Expired", "too old"))) is None


def test_an_object_its_model_rejects_is_left_to_the_slow_path() -> None:
    bad = pod_raw("bad")
    bad["spec"]["containers"] = "not a list"
    assert decode_event(_kind("Pod"), _line("MODIFIED", bad)) is None


def test_a_kind_whose_model_defaults_differ_is_left_to_the_slow_path() -> None:
    other = KindInfo("example.com/v1", "Pod", "pods", True, Pod)
    assert decode_event(other, _line("ADDED", pod_raw("p"))) is None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind_raw=st.sampled_from([("Node", _NODE), ("Pod", _POD)]), data=st.data())
def test_an_event_decides_as_its_parsed_object(
    kind_raw: tuple[str, Raw], data: st.DataObject
) -> None:
    kind, original = kind_raw
    info = _kind(kind)
    line = _line("MODIFIED", data.draw(_mutated(original)))
    change = decode_event(info, line)
    try:
        expected = _slow(info, line)
    except DecodeError:
        assert change is None  # an object its model rejects is never taken on the fast path
        return
    if change is not None:
        assert (change[0], change[1]) == (expected[0], expected[2])


def test_a_watched_object_that_stops_decoding_keeps_its_last_version() -> None:
    """The informer through both paths: a good change, a bad one (logged, not delivered, the
    cached version kept), a good one again, then the delete."""

    async def scenario() -> list[tuple[str, str | None]]:
        async with fake_server() as server:
            server.add("v1/nodes", node_raw("n", cpu="2"))
            async with cluster_on(server) as cluster:
                seen: list[tuple[str, str | None]] = []

                def handler(event: WatchEvent) -> None:
                    seen.append((event.type, event.obj.metadata.labels.get("step")))

                cluster.watch("Node", handler)
                await cluster.wait_for_sync()

                def label(step: str, cpu: str) -> None:
                    def change(raw: Raw) -> None:
                        raw["metadata"].setdefault("labels", {})["step"] = step
                        raw["status"]["allocatable"]["cpu"] = cpu

                    server.modify("v1/nodes", "n", change)

                label("good", "2")
                label("bad", "lots")
                label("again", "4")
                await eventually(lambda: len(seen) == 3, "the second good change")
                assert cluster.get("Node", "n").metadata.labels["step"] == "again"
                server.remove("v1/nodes", "n")
                await eventually(lambda: len(seen) == 4, "the delete")
                return seen

    assert run(scenario) == [
        ("ADDED", None),
        ("MODIFIED", "good"),
        ("MODIFIED", "again"),
        ("DELETED", "again"),
    ]
