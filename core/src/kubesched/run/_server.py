"""The HTTP endpoints of `kubesched run`: /metrics, /healthz, /livez and /readyz.

Served by aiohttp on the scheduler's own event loop (so scraping reads the queue without
threads), plain HTTP on a loopback address by default. kube-scheduler serves the same paths
over HTTPS with delegated authentication; put kubesched behind a proxy or a NetworkPolicy
before exposing it beyond the pod.

- /healthz and /livez: upstream's checks `ping`, `log` and `leaderElection` (the
  leader-election watchdog: a leader that has not renewed for leaseDuration + 20 s).
- /readyz: those, `sched-handler-sync` (the informers have synced) and `shutdown` (until
  shutdown begins), plus kubesched's `informers` (no informer has been unable to list or
  watch for longer than its grace period: the API server is unreachable).
- each check alone at `/healthz/<name>` (and `/livez/`, `/readyz/`); `?verbose` lists every
  check, `?exclude=<name>` leaves one out, as upstream
  (staging/src/k8s.io/apiserver/pkg/server/healthz/healthz.go). Upstream withholds the
  reason of a failed check from the response and logs it; so does kubesched.
- /metrics: the scheduler's CollectorRegistry in the Prometheus text format, written as
  client_golang writes it (`_exposition`).
- /configz: the configuration in use, as component-base's configz serves it (`_configz`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from aiohttp import web
from prometheus_client import CollectorRegistry

from kubesched.run._configz import configz_body
from kubesched.run._exposition import CONTENT_TYPE, exposition

__all__ = ["Check", "EndpointServer"]

_log = logging.getLogger("kubesched.run")

Check = Callable[[], str | None]
"""A health check: None when healthy, else what is wrong."""


def _ping() -> str | None:
    return None


def _report(
    name: str, checks: dict[str, Check], query: Mapping[str, str], excluded: list[str]
) -> tuple[int, str]:
    """Upstream's handleRootHealth: "ok", or every check listed with `verbose`; on failure
    always listed, the reasons withheld (and logged), with status 500."""
    lines, failed, unmatched = [], [], set(excluded)
    for check_name, check in checks.items():
        if check_name in unmatched:
            unmatched.discard(check_name)
            lines.append(f"[+]{check_name} excluded: ok\n")
            continue
        problem = check()
        if problem is None:
            lines.append(f"[+]{check_name} ok\n")
        else:
            # "don't include the error since this endpoint is public", but log it
            failed.append(check_name)
            _log.info("[-]%s failed: %s", check_name, problem)
            lines.append(f"[-]{check_name} failed: reason withheld\n")
    if unmatched:
        lines.append(
            "warn: some health checks cannot be excluded: no matches for "
            f"{_quoted(sorted(unmatched))}\n"
        )
    if failed:
        # http.Error adds the newline
        return 500, f"{''.join(lines)}{name} check failed\n"
    if "verbose" not in query:
        return 200, "ok"
    return 200, f"{''.join(lines)}{name} check passed\n"


def _quoted(names: list[str]) -> str:
    return ",".join(f'"{n}"' for n in names)


class EndpointServer:
    """Serves the endpoints until `stop()`; `port` is the bound port (useful with 0)."""

    def __init__(
        self,
        registry: CollectorRegistry,
        *,
        host: str = "127.0.0.1",
        port: int = 10251,
        health: dict[str, Check] | None = None,
        ready: dict[str, Check] | None = None,
        configz: Callable[[], Mapping[str, Any]] | None = None,
    ) -> None:
        """`configz`: the configs /configz serves, by name (none: no /configz)."""
        self.registry = registry
        self.configz = configz
        self.host = host
        self.port = port
        # upstream's ping and log checks first (log: the logger accepts writes)
        self.health = {"ping": _ping, "log": _ping, **(health or {})}
        self.ready = dict(ready or {})
        self._runner: web.AppRunner | None = None

    async def start(self) -> int:
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        if self.configz is not None:
            app.router.add_get("/configz", self._configz)
        for path, checks in (
            ("healthz", lambda: self.health),
            ("livez", lambda: self.health),
            ("readyz", lambda: {**self.health, **self.ready}),
        ):
            app.router.add_get(f"/{path}", self._root(path, checks))
            app.router.add_get(f"/{path}/{{check}}", self._single(checks))
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        sockets = getattr(site._server, "sockets", None)
        if sockets:
            self.port = int(sockets[0].getsockname()[1])
        return self.port

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def _metrics(self, request: web.Request) -> web.Response:
        body = exposition(self.registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE})

    async def _configz(self, request: web.Request) -> web.Response:
        assert self.configz is not None
        headers = {"Content-Type": "application/json", "X-Content-Type-Options": "nosniff"}
        return web.Response(body=configz_body(dict(self.configz())), headers=headers)

    @staticmethod
    def _root(
        name: str, checks: Callable[[], dict[str, Check]]
    ) -> Callable[[web.Request], Awaitable[web.Response]]:
        async def handle(request: web.Request) -> web.Response:
            excluded = [
                e for value in request.query.getall("exclude", []) for e in value.split(",")
            ]
            status, text = _report(name, checks(), request.query, excluded)
            return web.Response(status=status, text=text)

        return handle

    @staticmethod
    def _single(
        checks: Callable[[], dict[str, Check]],
    ) -> Callable[[web.Request], Awaitable[web.Response]]:
        async def handle(request: web.Request) -> web.Response:
            check = checks().get(request.match_info["check"])
            if check is None:
                raise web.HTTPNotFound()
            problem = check()
            if problem is not None:  # upstream adaptCheckToHandler
                return web.Response(status=500, text=f"internal server error: {problem}\n")
            return web.Response(text="ok")

        return handle
