"""The HTTP endpoints of `kubesched run`: /metrics, /healthz, /livez and /readyz.

Served by aiohttp on the scheduler's own event loop (so scraping reads the queue without
threads), plain HTTP on a loopback address by default. kube-scheduler serves the same paths
over HTTPS with delegated authentication; put kubesched behind a proxy or a NetworkPolicy
before exposing it beyond the pod.

- /healthz and /livez: "ok", or 500 naming the failed check (the leader-election watchdog:
  a leader that has not renewed for leaseDuration + 20 s, as upstream).
- /readyz: "ok" once the informers have synced and until shutdown begins.
- /metrics: the scheduler's CollectorRegistry in the Prometheus text format.
"""

from __future__ import annotations

from collections.abc import Callable

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

__all__ = ["Check", "EndpointServer"]

Check = Callable[[], str | None]
"""A health check: None when healthy, else what is wrong."""


def _report(checks: dict[str, Check]) -> tuple[int, str]:
    lines, failed = [], False
    for name, check in checks.items():
        problem = check()
        if problem is None:
            lines.append(f"[+]{name} ok")
        else:
            failed = True
            lines.append(f"[-]{name} failed: {problem}")
    if failed:
        return 500, "\n".join([*lines, "healthz check failed"]) + "\n"
    return 200, "ok"


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
    ) -> None:
        self.registry = registry
        self.host = host
        self.port = port
        self.health = dict(health or {})
        self.ready = dict(ready or {})
        self._runner: web.AppRunner | None = None

    async def start(self) -> int:
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/livez", self._healthz)
        app.router.add_get("/readyz", self._readyz)
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
        body = generate_latest(self.registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _healthz(self, request: web.Request) -> web.Response:
        status, text = _report(self.health)
        return web.Response(status=status, text=text)

    async def _readyz(self, request: web.Request) -> web.Response:
        status, text = _report({**self.health, **self.ready})
        return web.Response(status=status, text=text)
