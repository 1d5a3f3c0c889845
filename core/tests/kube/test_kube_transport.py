"""What the transport sends, now that it talks to kubernetes_asyncio's session itself: the
proxy environment read once, when it is made, not on every request (the session would, in
two worker-thread hops per request); the headers, query and body call_api sent."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("kubernetes_asyncio", reason="needs the kube extra (kubernetes_asyncio)")

from kube_helpers import fake_server, run

from kubesched.cluster.kube import RateLimiter, Transport
from kubesched.cluster.kube._transport import JSON

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")


@pytest.fixture(autouse=True)
def _no_proxy_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def _settings(host: str) -> tuple[object, object, bool]:
    async def scenario() -> tuple[object, object, bool]:
        transport = Transport.for_host(host)
        rest = transport._api.rest_client
        try:
            return rest.proxy, rest.proxy_headers, rest.pool_manager.trust_env
        finally:
            await transport.close()

    return run(scenario)


def test_the_environments_proxy_is_resolved_once_for_the_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://user:secret@proxy.example:3128")
    proxy, headers, trust_env = _settings("https://api.example:6443")
    assert proxy == "http://proxy.example:3128"
    assert headers == {"Proxy-Authorization": "Basic dXNlcjpzZWNyZXQ="}
    assert trust_env is False


def test_no_proxy_and_other_schemes_leave_the_host_unproxied(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "api.example")
    assert _settings("https://api.example:6443") == (None, None, False)
    assert _settings("http://127.0.0.1:8080")[0] is None


def test_requests_still_work_without_the_per_request_lookups() -> None:
    async def scenario() -> str:
        async with fake_server() as server:
            transport = Transport.for_host(server.url)
            try:
                body = await transport.request("GET", "/api/v1/namespaces/default")
            finally:
                await transport.close()
        return str(body["metadata"]["name"])

    assert run(scenario) == "default"


def test_a_request_carries_its_headers_query_and_body_as_call_api_sent_them() -> None:
    async def scenario() -> None:
        async with fake_server() as server:
            transport = Transport.for_host(server.url, token="secret", user_agent="kubesched/t")
            try:
                meta = {"name": "c1", "namespace": "default", "labels": {"a": "ü"}}
                body = {"metadata": meta, "data": {"k": "v"}}
                await transport.request("POST", "/api/v1/namespaces/default/configmaps", body=body)
                await transport.request(
                    "GET",
                    "/api/v1/namespaces/default/configmaps",
                    query=[("limit", "5"), ("fieldSelector", "metadata.name=c1,a!=b")],
                )
            finally:
                await transport.close()
            post, get = server.requests[-2:]
            assert (post.method, post.content_type, post.body) == ("POST", JSON, body)
            assert get.query == {"limit": "5", "fieldSelector": "metadata.name=c1,a!=b"}
            for recorded in (post, get):
                assert recorded.authorization == "Bearer secret"
                assert recorded.user_agent == "kubesched/t"
                assert recorded.accept == JSON

    run(scenario)


def test_the_rate_limiter_lets_a_burst_through_then_paces_in_arrival_order() -> None:
    async def scenario() -> tuple[list[int], float, float]:
        limiter = RateLimiter(qps=5.0, burst=2)
        loop = asyncio.get_running_loop()
        order: list[int] = []
        started = loop.time()
        await limiter.wait()
        await limiter.wait()  # the burst: no wait
        burst = loop.time() - started

        async def one(i: int) -> None:
            await limiter.wait()
            order.append(i)

        await asyncio.gather(*(one(i) for i in range(3)))
        return order, burst, loop.time() - started

    order, burst, total = run(scenario)
    assert order == [0, 1, 2]  # nobody overtakes a caller already waiting
    assert burst < 0.15  # a paced wait would take 0.2 s
    assert total >= 3 / 5.0 - 0.005  # three more tokens at 5 per second
