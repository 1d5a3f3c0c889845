"""Raw requests to the API server over kubernetes_asyncio's authenticated session.

kubernetes_asyncio provides what is hard to get right: kubeconfig and in-cluster loading,
client certificates, bearer tokens and their refresh (exec plugins, projected service
account tokens), TLS. Its generated models are not used: every request here goes to its
aiohttp session as `ApiClient.call_api(..., _preload_content=False)` would send it (its
headers, auth settings, proxy), body serialized once, and hands back the raw response, so
bodies are read as JSON and validated straight into kubesched's own models (the generated
ones cost about ten times more per pod, and fail to decode the Status a binding returns:
kubernetes-client/python issues #825 and #547).

Errors come back as `ApiError` carrying the HTTP code and the Status reason; connection
failures are `ApiError`s with code 0 and what failed (`network`: refused, timeout, eof).

Retries are client-go's (rest/with_retry.go, request.go), made here for every caller: an
answer 429 or 5xx with a `Retry-After` header is sent again after that many seconds, for any
verb, at most `max_retries` (10) times, each retry through the rate limiter again; a GET whose
connection was reset or closed without an answer is retried after one second (an artificial
`Retry-After: 1`), writes are not, as they may have taken effect; a watch is also retried when
opening it timed out. A 429 or 5xx without `Retry-After` is the caller's to handle. Below
that, aiohttp's session replays an idempotent request (GET, PUT, DELETE) once, at once, when
its connection fails under it, as Go's transport replays one on a reused connection.

Every request is reported to the `RequestObserver` of the running task's context, if any
(`Transport.observe_requests`): client-go reports its requests to the process-wide
rest_client metrics the same way (k8s.io/client-go/tools/metrics), and a context variable
lets each `kubesched run` in a process see the requests of all its clients, and only those.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any, Final, NamedTuple, Protocol
from urllib.parse import urlencode, urlsplit

import aiohttp
from aiohttp.helpers import get_env_proxy_for_url
from kubernetes_asyncio import client as k8s_client
from kubernetes_asyncio import config as k8s_config
from yarl import URL

from kubesched._errors import KubeschedError
from kubesched.cluster.kube._connection_errors import (
    ConnectionSetupError,
    check_in_cluster,
    check_kubeconfig,
    default_kubeconfig,
    explain_config_error,
)

__all__ = [
    "JSON",
    "MERGE_PATCH",
    "STRATEGIC_MERGE_PATCH",
    "ApiError",
    "RateLimiter",
    "RequestObserver",
    "Transport",
    "parse_json",
]

_log = logging.getLogger("kubesched.cluster.kube")

JSON: Final = "application/json"
MERGE_PATCH: Final = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH: Final = "application/strategic-merge-patch+json"

REQUEST_TIMEOUT: Final = 30.0
"""Seconds a non-watch request may take before it fails (client-go sets none by default;
a scheduler should not hang on one request)."""

MAX_RETRIES: Final = 10
"""Retries of a request answered with `Retry-After` (client-go rest.Request maxRetries)."""

GET_RETRY_AFTER: Final = 1
"""Seconds before a GET cut without an answer is sent again (client-go's artificial
`Retry-After: 1` response, rest/with_retry.go retryAfterResponse)."""

Query = Sequence[tuple[str, str]]

ERROR_CODE: Final = "<error>"
"""The `code` of a request that got no HTTP answer (client-go updateURLMetrics)."""


class RequestObserver(Protocol):
    """What client-go's tools/metrics hooks see of each request (`host` is host:port)."""

    def rate_limiter_waited(self, verb: str, host: str, seconds: float) -> None:
        """The client-side rate limiter let a request through after `seconds`."""

    def request_done(self, verb: str, host: str, code: str, seconds: float | None) -> None:
        """A request ended with HTTP status `code` (ERROR_CODE without an answer);
        `seconds` since it began, rate limiting included (None for a watch, whose
        latency client-go does not record)."""


_observer: ContextVar[RequestObserver | None] = ContextVar("kubesched_requests", default=None)


class ApiError(KubeschedError):
    """A request the API server refused, or could not be reached for (``code`` 0).

    ``reason`` is the Status reason (``Conflict``, ``NotFound``, ``Expired``, ``Forbidden``
    ...), ``message`` the server's message. Without an answer (code 0), ``network`` says
    what failed: ``refused`` (nothing listens), ``timeout`` (no answer in time), ``eof``
    (the connection was reset or closed before the answer), or ``""``.
    """

    def __init__(
        self,
        code: int,
        reason: str,
        message: str,
        *,
        method: str = "",
        path: str = "",
        network: str = "",
    ) -> None:
        super().__init__(code, reason, message, method, path)
        self.code = code
        self.reason = reason
        self.message = message
        self.method = method
        self.path = path
        self.network = network

    @property
    def gone(self) -> bool:
        """The resourceVersion asked for is too old: the caller must list again."""
        return self.code == 410 or self.reason in ("Expired", "Gone")

    def __str__(self) -> str:
        where = f"{self.method} {self.path}: " if self.method else ""
        what = f"{self.code} {self.reason}" if self.code else "connection failed"
        return f"{where}{what}: {self.message}"


def error_from_status(status: Mapping[str, Any], *, method: str = "", path: str = "") -> ApiError:
    """An ApiError from a metav1.Status body (a failed response, or a watch ERROR event)."""
    code = status.get("code")
    return ApiError(
        int(code) if isinstance(code, int) else 0,
        str(status.get("reason") or ""),
        str(status.get("message") or ""),
        method=method,
        path=path,
    )


class _Answer(NamedTuple):
    """One try's answer: its status, Retry-After header, body (a failed watch's too), and
    the open response of a watch that succeeded."""

    status: int
    retry_after: str | None
    data: bytes
    response: aiohttp.ClientResponse | None = None


class RateLimiter:
    """Client-side rate limit as client-go's token bucket: `qps` sustained, `burst` at once
    (clientConnection.qps and .burst, kube-scheduler defaults 50 and 100). Watches are not
    limited, as client-go does not limit them either once established."""

    def __init__(self, qps: float, burst: int) -> None:
        self._qps = qps
        self._burst = max(1, burst)
        self._tokens = float(self._burst)
        self._last: float | None = None
        self._lock = asyncio.Lock()
        self._queued = 0
        """Callers holding or waiting for the lock: while any, others queue behind them."""

    async def wait(self) -> None:
        if self._qps <= 0:
            return
        if not self._queued:  # nobody holds or waits for the lock: take a token at once
            now = asyncio.get_running_loop().time()
            tokens = self._tokens
            if self._last is not None:
                tokens = min(self._burst, tokens + (now - self._last) * self._qps)
            if tokens >= 1:
                self._tokens, self._last = tokens - 1, now
                return
        self._queued += 1
        try:
            async with self._lock:
                loop = asyncio.get_running_loop()
                now = loop.time()
                if self._last is not None:
                    self._tokens = min(self._burst, self._tokens + (now - self._last) * self._qps)
                self._last = now
                if self._tokens < 1:
                    delay = (1 - self._tokens) / self._qps
                    await asyncio.sleep(delay)
                    self._last = loop.time()
                    self._tokens = 1.0
                self._tokens -= 1
        finally:
            self._queued -= 1


class Transport:
    """Authenticated JSON requests and watch streams to one API server."""

    def __init__(
        self,
        api_client: Any,
        *,
        rate_limiter: RateLimiter | None = None,
        user_agent: str = "",
        request_timeout: float = REQUEST_TIMEOUT,
        max_retries: int = MAX_RETRIES,
    ) -> None:
        self._api = api_client
        self._limiter = rate_limiter
        self.request_timeout = request_timeout
        """Seconds a request (not a watch) may take, each attempt on its own."""
        self.max_retries = max_retries
        self._netloc = urlsplit(str(api_client.configuration.host)).netloc
        """host:port, the `host` label of the rest_client metrics (client-go's URL.Host)."""
        if user_agent:
            api_client.user_agent = user_agent
        _read_environment_once(api_client)

    # -- construction -------------------------------------------------------------------
    @classmethod
    async def from_kubeconfig(
        cls, path: str | None = None, *, context: str | None = None, **kwargs: Any
    ) -> Transport:
        """From a kubeconfig file (``None``: ``$KUBECONFIG``, then ``~/.kube/config``)."""
        configuration = k8s_client.Configuration()
        await k8s_config.load_kube_config(
            config_file=path, context=context, client_configuration=configuration
        )
        return cls(k8s_client.ApiClient(configuration), **kwargs)

    @classmethod
    def in_cluster(cls, **kwargs: Any) -> Transport:
        """From the pod's service account (token, CA and ``KUBERNETES_SERVICE_HOST``)."""
        configuration = k8s_client.Configuration()
        k8s_config.load_incluster_config(  # type: ignore[no-untyped-call]
            client_configuration=configuration
        )
        return cls(k8s_client.ApiClient(configuration), **kwargs)

    @classmethod
    def for_host(cls, host: str, *, token: str | None = None, **kwargs: Any) -> Transport:
        """To `host` (``http://127.0.0.1:8080``) with an optional bearer token: tests and
        local API servers."""
        configuration = k8s_client.Configuration(host=host)
        if token:
            configuration.api_key = {"BearerToken": token}
            configuration.api_key_prefix = {"BearerToken": "Bearer"}
        configuration.verify_ssl = False
        return cls(k8s_client.ApiClient(configuration), **kwargs)

    @classmethod
    async def connect(
        cls,
        kubeconfig: str | None = None,
        *,
        in_cluster: bool = False,
        context: str | None = None,
        **kwargs: Any,
    ) -> Transport:
        """The client `kubesched run` uses: an explicit kubeconfig, else in-cluster when
        asked or when running in a pod without ``$KUBECONFIG``, else the default kubeconfig.
        A setup mistake (no kubeconfig, unknown context, malformed file, missing
        certificate, in-cluster outside a pod) is a one-line ConnectionSetupError."""
        if in_cluster and kubeconfig:
            raise ConnectionSetupError(
                "--in-cluster and a kubeconfig both say how to connect; give one of them"
            )
        if in_cluster or (
            not kubeconfig
            and os.environ.get("KUBERNETES_SERVICE_HOST")
            and not os.environ.get("KUBECONFIG")
        ):
            if in_cluster:
                check_in_cluster()
            try:
                return cls.in_cluster(**kwargs)
            except (k8s_config.ConfigException, OSError) as exc:
                raise explain_config_error(exc, "in-cluster") from None
        check_kubeconfig(kubeconfig, context)
        try:
            return await cls.from_kubeconfig(kubeconfig, context=context, **kwargs)
        except (k8s_config.ConfigException, OSError, ValueError, TypeError, KeyError) as exc:
            raise explain_config_error(exc, kubeconfig or default_kubeconfig()) from None

    @property
    def host(self) -> str:
        return str(self._api.configuration.host)

    @staticmethod
    def observe_requests(observer: RequestObserver | None) -> None:
        """Report the requests of every Transport made from the current task, and from the
        tasks it starts from now on, to `observer`."""
        _observer.set(observer)

    async def close(self) -> None:
        await self._api.close()

    # -- requests -----------------------------------------------------------------------
    async def request(
        self,
        method: str,
        path: str,
        *,
        query: Query = (),
        body: Any = None,
        content_type: str = JSON,
        timeout: float | None = None,
    ) -> Any:
        """Send one request (retried as client-go retries it); the decoded JSON body of a
        2xx answer, else ApiError. `timeout`: seconds per attempt (the transport's
        `request_timeout` when None)."""
        status, data = await self.request_raw(
            method, path, query=query, body=body, content_type=content_type, timeout=timeout
        )
        return parse_json(data, status, method, path)

    async def request_raw(
        self,
        method: str,
        path: str,
        *,
        query: Query = (),
        body: Any = None,
        content_type: str = JSON,
        timeout: float | None = None,
    ) -> tuple[int, bytes]:
        """Send one request; the status and the undecoded body of a 2xx answer (for a
        caller that validates the bytes straight into models), else ApiError."""
        limit = self.request_timeout if timeout is None else timeout
        answer = await self._retrying(
            method, path, lambda: self._attempt(method, path, query, body, content_type, limit)
        )
        return answer.status, answer.data

    async def _retrying(
        self, method: str, path: str, attempt: Callable[[], Awaitable[_Answer]]
    ) -> _Answer:
        """`attempt()` until it is answered 2xx, tried again as client-go's IsNextRetry
        says (`method` WATCH for a watch), else the ApiError."""
        tries = 0
        while True:
            tries += 1
            try:
                answer = await attempt()
            except ApiError as exc:
                wait = _retry_wait(method, exc, None, tries, self.max_retries)
                if wait is None:
                    raise
            else:
                if 200 <= answer.status <= 299:
                    return answer
                sent = "GET" if method == "WATCH" else method
                error = _error_of(answer.status, answer.data, sent, path)
                wait = _retry_wait(method, error, answer.retry_after, tries, self.max_retries)
                if wait is None:
                    raise error
            _log.debug("Got a Retry-After %ss response for attempt %d to %s", wait, tries, path)
            await asyncio.sleep(wait)

    async def _attempt(
        self,
        method: str,
        path: str,
        query: Query,
        body: Any,
        content_type: str,
        timeout: float,
    ) -> _Answer:
        """One try: the status, the Retry-After header and the body."""
        observer = _observer.get()
        started = time.perf_counter()
        if self._limiter is not None:
            await self._limiter.wait()
            if observer is not None:
                waited = time.perf_counter() - started
                observer.rate_limiter_waited(method, self._netloc, waited)
        code = ERROR_CODE
        try:
            response = await self._send(method, path, query, body, content_type, timeout)
            code = str(response.status)
            try:
                data = await response.read()
            except (TimeoutError, aiohttp.ClientError) as exc:
                raise _connection_error(exc, method, path) from exc
            finally:
                response.release()
        finally:
            if observer is not None:
                elapsed = time.perf_counter() - started
                observer.request_done(method, self._netloc, code, elapsed)
        return _Answer(response.status, response.headers.get("Retry-After"), data)

    @asynccontextmanager
    async def stream(
        self, path: str, *, query: Query = (), timeout: float | None = None
    ) -> AsyncIterator[AsyncIterator[bytes]]:
        """Open a streaming GET (a watch) and yield its lines; ApiError if refused.

        `timeout` bounds the wait for each read (the server sends nothing on a quiet watch,
        so it must exceed the watch's own ``timeoutSeconds``).
        """
        method = "GET"
        response = await self._open_stream(path, query, timeout)
        try:
            yield _lines(response, method, path)
        finally:
            response.close()

    async def _open_stream(
        self, path: str, query: Query, timeout: float | None
    ) -> aiohttp.ClientResponse:
        """Open a watch, retried as client-go's Request.Watch retries it."""

        async def attempt() -> _Answer:
            observer = _observer.get()
            try:
                response = await self._send(
                    "GET", path, query, None, JSON, None, read_timeout=timeout
                )
            except ApiError:
                if observer is not None:
                    observer.request_done("GET", self._netloc, ERROR_CODE, None)
                raise
            if observer is not None:
                observer.request_done("GET", self._netloc, str(response.status), None)
            if 200 <= response.status <= 299:
                return _Answer(response.status, None, b"", response)
            try:
                data = await response.read()
            finally:
                response.close()
            return _Answer(response.status, response.headers.get("Retry-After"), data)

        answer = await self._retrying("WATCH", path, attempt)
        assert answer.response is not None
        return answer.response

    async def _send(
        self,
        method: str,
        path: str,
        query: Query,
        body: Any,
        content_type: str,
        timeout: float | None,
        *,
        read_timeout: float | None = None,
    ) -> aiohttp.ClientResponse:
        client_timeout = aiohttp.ClientTimeout(
            total=timeout, sock_connect=REQUEST_TIMEOUT, sock_read=read_timeout
        )
        # What ApiClient.call_api(..., _preload_content=False) sends, without its per-request
        # walk of the body (sanitize_for_serialization) and header rebuilding: the body is
        # serialized once, the auth header comes from the same (refreshing) auth settings.
        api = self._api
        config = api.configuration
        headers = {**api.default_headers, "Accept": JSON, "Content-Type": content_type}
        if api.cookie:
            headers["Cookie"] = api.cookie
        auth = (await config.auth_settings()).get("BearerToken")
        if auth:
            headers[auth["key"]] = auth["value"]
        url = f"{config.host}{path}"
        if query:
            url = f"{url}?{urlencode(query)}"
        rest = api.rest_client
        options: dict[str, Any] = {}
        if rest.proxy:
            options["proxy"] = rest.proxy
        if rest.proxy_headers:
            options["proxy_headers"] = rest.proxy_headers
        if rest.server_hostname:
            options["server_hostname"] = rest.server_hostname
        data = None if body is None else json.dumps(body).encode()
        try:
            response: aiohttp.ClientResponse = await rest.pool_manager.request(
                method, url, headers=headers, data=data, timeout=client_timeout, **options
            )
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            raise _connection_error(exc, method, path) from exc
        return response


def _read_environment_once(api_client: Any) -> None:
    """Look the proxy up in the environment once, not on every request.

    kubernetes_asyncio's session trusts the environment (``trust_env=True``), so aiohttp
    reads ``~/.netrc`` and the proxy variables in a worker thread on every request: two
    thread hops that cost more CPU than the rest of the request. The host never changes, so
    its proxy (``HTTPS_PROXY``, ``NO_PROXY`` ...) is resolved here once and given to every
    request, as client-go's http.ProxyFromEnvironment does; netrc, which client-go never
    reads, is left out. A proxy set in the configuration wins, as before.
    """
    rest: Any = getattr(api_client, "rest_client", None)
    session: Any = getattr(rest, "pool_manager", None)
    if not getattr(session, "_trust_env", False):
        return
    if getattr(rest, "proxy", None) is None:
        try:
            proxy, auth = get_env_proxy_for_url(URL(str(api_client.configuration.host)))
        except LookupError:
            pass
        else:
            rest.proxy = str(proxy)
            if auth is not None:
                rest.proxy_headers = {
                    **(getattr(rest, "proxy_headers", None) or {}),
                    "Proxy-Authorization": auth.encode(),
                }
    session._trust_env = False


async def _lines(response: aiohttp.ClientResponse, method: str, path: str) -> AsyncIterator[bytes]:
    try:
        while True:
            line = await response.content.readline()
            if not line:
                return
            line = line.strip()
            if line:
                yield line
    except (TimeoutError, aiohttp.ClientError) as exc:
        raise _connection_error(exc, method, path) from exc


def _retry_wait(
    method: str, error: ApiError, retry_after: str | None, attempt: int, max_retries: int
) -> float | None:
    """Seconds to wait before sending again after `attempt` tries, or None: client-go's
    IsNextRetry (rest/with_retry.go) with Do's and Watch's retryable errors (request.go)."""
    if attempt > max_retries:
        return None
    if error.code == 0:  # no answer
        if method == "GET" and error.network == "eof":
            return GET_RETRY_AFTER  # Do: net.IsConnectionReset or IsProbableEOF, GETs only
        if method == "WATCH" and error.network in ("eof", "timeout"):
            return GET_RETRY_AFTER  # Watch: net.IsProbableEOF or IsTimeout
        return None
    # checkWait: a 429 or any 5xx with a Retry-After of whole seconds
    if error.code != 429 and error.code < 500:
        return None
    try:
        seconds = int((retry_after or "").strip())
    except ValueError:
        return None
    return float(max(0, seconds))


def _connection_error(exc: BaseException, method: str, path: str) -> ApiError:
    """The ApiError (code 0) of a request that got no answer, with what failed."""
    return ApiError(0, "", _describe(exc), method=method, path=path, network=_network(exc))


_RESET = frozenset({errno.ECONNRESET, errno.EPIPE, errno.ECONNABORTED})


def _network(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):  # aiohttp's ServerTimeoutError included
        return "timeout"
    if isinstance(exc, aiohttp.ClientConnectorError):
        refused = exc.os_error.errno == errno.ECONNREFUSED
        return "refused" if refused else ""
    if isinstance(exc, aiohttp.ServerDisconnectedError | aiohttp.ClientPayloadError):
        return "eof"  # closed before the whole answer came: net.IsProbableEOF
    if isinstance(exc, OSError) and exc.errno in _RESET:  # ClientOSError included
        return "eof"  # net.IsConnectionReset
    return ""


def parse_json(data: bytes, status: int, method: str, path: str) -> Any:
    """The JSON of a 2xx answer's body (None when empty); ApiError when it is not JSON."""
    if not data:
        return None
    try:
        return json.loads(data)
    except ValueError as exc:
        raise ApiError(status, "", f"invalid JSON: {exc}", method=method, path=path) from exc


def _error_of(status: int, data: bytes, method: str, path: str) -> ApiError:
    try:
        body = json.loads(data)
    except ValueError:
        body = None
    if isinstance(body, dict) and body.get("kind") == "Status":
        error = error_from_status(body, method=method, path=path)
        error.code = error.code or status
        return error
    text = data.decode("utf-8", "replace").strip()[:200]
    return ApiError(status, "", text, method=method, path=path)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "timed out"
    return str(exc) or type(exc).__name__
