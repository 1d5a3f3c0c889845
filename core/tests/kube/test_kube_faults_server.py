"""The fake API server's faults (issue 18) and the transport's answers to them, which are
client-go's: patterns of method and path, a delay the client's request timeout cuts short,
a connection cut before or after the request took effect, and `Retry-After` honoured for a
429 or 5xx on any verb (rest/with_retry.go), a GET cut without an answer sent again after
one second (request.go), writes not.

Needs the `kube` extra (kubernetes_asyncio and its aiohttp): skipped without it.
"""

from __future__ import annotations

import asyncio
import itertools

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import fake_server, run

from kubesched.cluster.kube import ApiError, Transport
from kubesched.testing.apiserver import FakeApiServer, node_raw, pod_raw

PODS = "/api/v1/namespaces/default/pods"


def _transport(server: FakeApiServer, timeout: float = 5.0) -> Transport:
    return Transport.for_host(server.url, request_timeout=timeout)


async def create_refused(server: FakeApiServer, timeout: float = 5.0) -> ApiError:
    """POST a pod `x` through a new client; the ApiError it must raise."""
    transport = _transport(server, timeout)
    try:
        with pytest.raises(ApiError) as caught:
            await transport.request("POST", PODS, body=pod_raw("x"))
    finally:
        await transport.close()
    return caught.value


def test_faults_match_methods_paths_and_verbs_by_pattern() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/nodes", node_raw("n1"))
            for name in ("a", "b", "c"):
                server.add("v1/pods", pod_raw(name))
            every_binding = server.fail(
                "POST", "/api/v1/namespaces/*/pods/*/binding", 500, "InternalError", times=-1
            )
            listing = server.fail("LIST", "/api/v1/nodes", 503, "ServiceUnavailable")
            transport = _transport(server)
            try:
                for name in ("a", "b"):
                    with pytest.raises(ApiError) as caught:
                        await transport.request(
                            "POST",
                            f"{PODS}/{name}/binding",
                            body={"target": {"kind": "Node", "name": "n1"}},
                        )
                    assert (caught.value.code, caught.value.reason) == (500, "InternalError")
                # a GET of one object is not a LIST: answered
                assert (await transport.request("GET", "/api/v1/nodes/n1"))["kind"] == "Node"
                with pytest.raises(ApiError) as caught:
                    await transport.request("GET", "/api/v1/nodes")
                assert caught.value.code == 503
                assert (await transport.request("GET", "/api/v1/nodes"))["items"]
            finally:
                await transport.close()
            assert (every_binding.hits, every_binding.times) == (2, -1)
            assert (listing.hits, listing.times) == (1, 0)
            assert all(not o["spec"].get("nodeName") for o in server.objects["v1/pods"].values())

    run(scenario)


def test_the_old_signature_still_answers_one_exact_request() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.fail("POST", PODS, 409, "AlreadyExists", 'pods "x" already exists')
            transport = _transport(server)
            try:
                with pytest.raises(ApiError) as caught:
                    await transport.request("POST", PODS, body=pod_raw("x"))
                assert str(caught.value).endswith('409 AlreadyExists: pods "x" already exists')
                await transport.request("POST", PODS, body=pod_raw("x"))
            finally:
                await transport.close()
            assert "default/x" in server.objects["v1/pods"]

    run(scenario)


def test_a_bad_fault_is_refused() -> None:
    server = FakeApiServer()
    with pytest.raises(ValueError, match="not both"):
        server.fail("POST", PODS, 500, "InternalError", cut=True)
    with pytest.raises(ValueError, match="needs an error code, a cut or a delay"):
        server.fail("POST", PODS)
    with pytest.raises(ValueError, match="needs its Status reason"):
        server.fail("POST", PODS, 500)


@pytest.mark.parametrize("commit", [False, True], ids=["before", "after-commit"])
def test_a_cut_write_is_an_error_without_an_answer_and_not_sent_again(commit: bool) -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            fault = server.fail("POST", PODS, cut=True, commit=commit)
            error = await create_refused(server)
            assert (error.code, error.network) == (0, "eof")
            assert "connection failed" in str(error)
            # a write is never sent again by the client: it may have taken effect
            assert fault.hits == 1 and len(server.requests_to("POST", PODS)) == 1
            assert ("default/x" in server.objects.get("v1/pods", {})) is commit

    run(scenario)


@pytest.mark.parametrize(
    ("fault", "stored"),
    [
        ({"code": 504, "reason": "Timeout", "delay": 1.5}, False),
        ({"delay": 1.5}, True),  # the slow request still takes effect, after the client left
        ({"delay": 1.5, "commit": True}, True),
    ],
    ids=["never-applied", "applied-late", "applied-first"],
)
def test_a_delay_past_the_request_timeout_times_out(fault: dict[str, object], stored: bool) -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.fail("POST", PODS, **fault)  # type: ignore[arg-type]
            error = await create_refused(server, timeout=0.3)
            assert (error.code, error.network) == (0, "timeout")
            assert str(error) == f"POST {PODS}: connection failed: timed out"
            await asyncio.sleep(1.6)  # the server's delayed handler ends
            assert ("default/x" in server.objects.get("v1/pods", {})) is stored
            assert len(server.requests_to("POST", PODS)) == 1

    run(scenario)


@pytest.mark.parametrize("code", [429, 500, 503])
def test_retry_after_is_honoured_for_any_verb(code: int) -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            reason = {429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable"}
            server.fail("POST", PODS, code, reason[code], retry_after=1, times=2)
            transport = _transport(server)
            try:
                created = await transport.request("POST", PODS, body=pod_raw("x"))
            finally:
                await transport.close()
            assert created["metadata"]["name"] == "x"
            tries = [r.at for r in server.requests_to("POST", PODS)]
            assert len(tries) == 3
            # each retry waited the Retry-After's second
            assert all(b - a >= 0.95 for a, b in itertools.pairwise(tries)), tries

    run(scenario, timeout=20)


def test_retry_after_is_followed_at_most_ten_times() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.fail("PUT", f"{PODS}/x", 429, "TooManyRequests", retry_after=0, times=-1)
            transport = _transport(server)
            try:
                with pytest.raises(ApiError) as caught:
                    await transport.request("PUT", f"{PODS}/x", body=pod_raw("x"))
            finally:
                await transport.close()
            assert caught.value.code == 429
            # client-go rest.Request maxRetries 10: the first try and ten retries
            assert len(server.requests_to("PUT", f"{PODS}/x")) == 11

    run(scenario)


def test_an_error_without_retry_after_is_the_callers() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.fail("POST", PODS, 429, "TooManyRequests")
            assert (await create_refused(server)).code == 429
            assert len(server.requests_to("POST", PODS)) == 1

    run(scenario)


def test_a_cut_get_is_sent_again_after_a_second() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/nodes", node_raw("n1"))
            # cut twice: aiohttp's session replays an idempotent request once, at once (as
            # Go's transport replays one on a reused connection); then client-go's retry
            server.fail("LIST", "/api/v1/nodes", cut=True, times=2)
            transport = _transport(server)
            try:
                listed = await transport.request("GET", "/api/v1/nodes")
            finally:
                await transport.close()
            assert [n["metadata"]["name"] for n in listed["items"]] == ["n1"]
            tries = [r.at for r in server.requests_to("GET", "/api/v1/nodes")]
            assert len(tries) == 3 and tries[2] - tries[1] >= 0.95, tries

    run(scenario)


def test_a_watch_streams_then_is_cut_mid_stream() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            server.add("v1/nodes", node_raw("n1"))
            server.fail("WATCH", "/api/v1/nodes", cut=True, commit=True, delay=0.5)
            transport = _transport(server)
            lines: list[bytes] = []
            try:
                with pytest.raises(ApiError) as caught:
                    query = [("watch", "true"), ("resourceVersion", "0")]
                    async with transport.stream("/api/v1/nodes", query=query) as stream:
                        async for line in stream:
                            lines.append(line)
            finally:
                await transport.close()
            assert caught.value.code == 0 and caught.value.network == "eof"
            assert len(lines) == 1 and b'"ADDED"' in lines[0]

    run(scenario)
