"""`kubesched run`: the scheduler against a real API server, as kube-scheduler runs.

Upstream: cmd/kube-scheduler/app/server.go (Run). The order is upstream's:

1. serve /metrics, /healthz, /readyz;
2. start the informers and wait until they have synced (unless `delayCacheUntilActive`
   and leader election are on, in which case this waits for leadership), so a passive
   replica has a warm cache;
3. with leader election, wait for the Lease, then schedule while renewing it; losing the
   Lease stops scheduling at once (binding cycles in flight are cancelled in the same step
   of the event loop as the decision, so none sends a binding after it) and the process
   exits with code 1, as kube-scheduler exits, for its Deployment to restart it;
4. SIGTERM or SIGINT: stop taking pods, reject pods waiting at Permit (their binding
   cycles roll back), let binding cycles, status writes and Events finish within the grace
   period, give the Lease up (kube-scheduler leaves it to expire; releasing lets the other
   replica take over at once, and is safe since nothing is in flight any more), exit 0. A
   second signal stops waiting; so does the Lease lost meanwhile (the cycles are cancelled
   as in 3, and the exit is still 0, as a terminating kube-scheduler's). Events not written
   by the end of the grace period are dropped with one log line counting them.

Events have a client of their own, as do leader election's requests (kube-scheduler's
createClients), so neither queues behind bindings in the scheduling client's rate limiter.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pluggy

from kubesched import __version__
from kubesched.clock import Clock, WallClock
from kubesched.cluster.kube import KubeCluster, KubeLeaseLock, RateLimiter, Transport
from kubesched.cluster.memory import default_kinds
from kubesched.config import (
    ResolvedConfig,
    load_config,
    parse_duration,
    resolve,
)
from kubesched.framework import Plugin
from kubesched.run._configz import CONFIGZ_NAME, componentconfig
from kubesched.run._leader import LeaderElector
from kubesched.run._metrics import SchedulerMetrics
from kubesched.run._server import Check, EndpointServer
from kubesched.runtime import PluginRegistry, make_plugin_manager
from kubesched.scheduler import RUN_RETENTION, new_scheduler

__all__ = [
    "RunOptions",
    "Runner",
    "build_runner",
    "default_identity",
    "run_main",
]

_log = logging.getLogger("kubesched.run")

SHUTDOWN_REJECTION = "scheduler is shutting down"

DEFAULT_SCHEDULER = "default-scheduler"
"""corev1.DefaultSchedulerName."""

INFORMER_OUTAGE_GRACE = 10.0
"""Seconds an informer may fail to list or watch before /readyz reports `informers`."""


@dataclass
class RunOptions:
    """What `kubesched run` was asked for (the command line)."""

    config: str | None = None
    kubeconfig: str | None = None
    in_cluster: bool = False
    context: str | None = None
    bind_address: str = "127.0.0.1"
    port: int | None = 10251
    """None: no endpoints; 0: any free port."""
    leader_elect: bool | None = None
    """None: `leaderElection.leaderElect` of the configuration (default true)."""
    resource_name: str | None = None
    resource_namespace: str | None = None
    identity: str | None = None
    shutdown_grace_period: float = 30.0
    fast_path: bool | None = None
    """False: Filter and Score node by node (`--no-fast-path`); None: KUBESCHED_FAST_PATH."""


class Runner:
    """One `kubesched run` process: endpoints, informers, leader election, the loop."""

    def __init__(
        self,
        cluster: KubeCluster,
        config: ResolvedConfig,
        plugins: Mapping[str, type[Plugin]],
        *,
        elector: LeaderElector | None = None,
        hooks: pluggy.PluginManager | None = None,
        bind_address: str = "127.0.0.1",
        port: int | None = 10251,
        shutdown_grace_period: float = 30.0,
        clock: Clock | None = None,
        seed: int | None = None,
        closers: Sequence[Callable[[], Awaitable[None]]] = (),
        fast_path: bool | None = None,
    ) -> None:
        self.cluster = cluster
        self._closers = list(closers)
        """Closed after the cluster on exit: the events and leader election clients."""
        self.elector = elector
        self.clock = clock or WallClock()
        self.metrics = SchedulerMetrics()
        self.hooks = hooks if hooks is not None else make_plugin_manager(load_entrypoints=False)
        self.hooks.register(self.metrics)
        if elector is not None:
            self.metrics.watch_leader(elector)
        self.scheduler = new_scheduler(
            cluster,
            config,
            plugins,
            clock=self.clock,
            seed=seed,
            hooks=self.hooks,
            observers=[self.metrics.observer],
            framework=self.metrics.framework,
            fast_path=fast_path,
            retention=RUN_RETENTION,
        )
        self.metrics.watch_scheduler(self.scheduler)
        if elector is not None:
            # options.go: leader election's Events name the first profile's schedulerName
            first = config.profiles[0].scheduler_name if config.profiles else DEFAULT_SCHEDULER
            elector.event_recorder = self.scheduler.recorder.legacy(first)
            elector.on_stopped_leading = self._stopped_leading
        self.delay_cache_until_active = config.config.delay_cache_until_active
        self.shutdown_grace_period = shutdown_grace_period
        self.leading = False
        self.shutting_down = False
        health: dict[str, Check] = {}
        if elector is not None:
            health["leaderElection"] = elector.check
        self.server: EndpointServer | None = None
        if port is not None:
            self.server = EndpointServer(
                self.metrics.registry,
                host=bind_address,
                port=port,
                health=health,
                ready={
                    "sched-handler-sync": self._synced,
                    "shutdown": self._not_shutting_down,
                    "informers": self._informers_connected,
                },
                configz=lambda: {CONFIGZ_NAME: componentconfig(config)},
            )
        self._shutdown = asyncio.Event()
        self._force = asyncio.Event()
        self._shutdown_deadline: float | None = None
        self._watching = False

    # -- checks ---------------------------------------------------------------------------
    def _synced(self) -> str | None:
        return None if self._watching and self.cluster.synced else "handlers are not synced"

    def _informers_connected(self) -> str | None:
        # kubesched's own readiness check: an API server outage longer than the grace
        # period shows on /readyz (upstream's readiness stays ok through one)
        return self.cluster.connection_problem(INFORMER_OUTAGE_GRACE)

    def _not_shutting_down(self) -> str | None:
        return "process is shutting down" if self.shutting_down else None

    def _stopped_leading(self) -> None:
        """The Lease is lost: stop scheduling in the same step of the loop, before a binding
        cycle held until now (in Permit, PreBind, or a rate limiter) can send its binding
        (leaderelection.go Run cancels the leading context before OnStoppedLeading)."""
        self.leading = False
        self.scheduler.abort()

    # -- control --------------------------------------------------------------------------
    def request_shutdown(self) -> None:
        """Begin a graceful shutdown (what SIGTERM does); a second call stops waiting."""
        if self._shutdown.is_set():
            self._force.set()
            self._shutdown_deadline = self.clock.now()
        elif self._shutdown_deadline is None:
            self._shutdown_deadline = self.clock.now() + self.shutdown_grace_period
        self.shutting_down = True
        self._shutdown.set()

    async def run(self) -> int:
        """Run until shut down (0) or until the Lease is lost or the loop fails (1)."""
        loop = asyncio.get_running_loop()
        installed = _install_signals(loop, self.request_shutdown)
        # every client's requests, from this task and those it starts (rest_client_*)
        Transport.observe_requests(self.metrics.rest)
        self.scheduler.recorder.start()
        try:
            if self.server is not None:
                port = await self.server.start()
                _log.info("Serving /metrics, /healthz and /readyz on %s:%s", self.server.host, port)
            eager = self.elector is None or not self.delay_cache_until_active
            if eager and not await self._until_shutdown(self._start_informers()):
                return 0
            if self.elector is not None:
                if not await self._until_shutdown(self.elector.acquire()):
                    _log.info("Requested to terminate, exiting")
                    return 0
                self.leading = True
            return await self._schedule()
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)
            if self.server is not None:
                await self.server.stop()
            await self._stop_events()
            await self.cluster.close()
            for close in self._closers:
                await close()

    async def _stop_events(self) -> None:
        """Write what Events are left within the grace period (none after a lost Lease or
        a failure: kube-scheduler exits at once), then drop the rest with a count."""
        deadline = self._shutdown_deadline if self.shutting_down else None
        remaining = 0.0 if deadline is None else max(0.0, deadline - self.clock.now())
        await self.scheduler.recorder.shutdown(remaining)

    async def _start_informers(self) -> None:
        _log.info("Starting informers and waiting for sync...")
        self.scheduler.start_watching()
        self._watching = True
        await self.scheduler.wait_for_sync()
        _log.info("Handlers synced")

    async def _until_shutdown(self, coro: Coroutine[Any, Any, Any]) -> bool:
        """Run `coro` unless shutdown comes first; whether it completed."""
        task = asyncio.ensure_future(coro)
        stop = asyncio.ensure_future(self._shutdown.wait())
        try:
            await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in (task, stop):
                if not t.done():
                    t.cancel()
            await asyncio.gather(task, stop, return_exceptions=True)
        if task.done() and not task.cancelled():
            task.result()  # re-raise what failed
            return True
        return False

    async def _lead(self) -> None:
        if not self._watching:  # delayCacheUntilActive: informers start once leading
            await self._start_informers()
        await self.scheduler.run()

    async def _schedule(self) -> int:
        running = asyncio.ensure_future(self._lead())
        stop = asyncio.ensure_future(self._shutdown.wait())
        renewing = asyncio.ensure_future(self.elector.renew()) if self.elector else None
        waiting: set[asyncio.Future[Any]] = {running, stop}
        if renewing is not None:
            waiting.add(renewing)
        try:
            done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            if renewing is not None and renewing in done:
                # scheduling already stopped (_stopped_leading); server.go OnStoppedLeading
                _log.error("Leaderelection lost")
                return 1
            if stop in done:
                _log.info("Requested to terminate, draining in-flight binding cycles")
                await self._drain()
                if renewing is not None:
                    renewing.cancel()
                    await asyncio.gather(renewing, return_exceptions=True)
                    if self.elector is not None and await self.elector.release():
                        _log.info("Released lease %s", self.elector.lock.describe())
                    self.leading = False
                return 0
            # the scheduling loop ended on its own: only a failure does that
            error = running.exception()
            _log.error("Scheduling loop stopped: %s", error or "no reason")
            return 1
        finally:
            for t in waiting:
                if not t.done():
                    t.cancel()
            await asyncio.gather(*waiting, return_exceptions=True)

    async def _drain(self) -> None:
        sched = self.scheduler
        sched.stop()
        rejected = sched.reject_waiting_pods(SHUTDOWN_REJECTION)
        if rejected:
            _log.info("Rejected %d pod(s) waiting at Permit", rejected)
        draining = asyncio.ensure_future(sched.drain())
        forced = asyncio.ensure_future(self._force.wait())
        done, _ = await asyncio.wait(
            {draining, forced},
            timeout=self.shutdown_grace_period,
            return_when=asyncio.FIRST_COMPLETED,
        )
        if draining not in done and sched.cycles_in_flight:
            _log.warning("Shutdown did not wait for every binding cycle to finish")
            sched.abort()
        for t in (draining, forced):
            if not t.done():
                t.cancel()
        await asyncio.gather(draining, forced, return_exceptions=True)


def _install_signals(loop: asyncio.AbstractEventLoop, handler: Any) -> list[int]:
    installed: list[int] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, handler)
        except (NotImplementedError, RuntimeError, ValueError):
            continue  # not the main thread, or no signals on this platform
        installed.append(sig)
    return installed


def default_identity() -> str:
    """`<hostname>_<uuid>`, as kube-scheduler names a leader-election candidate."""
    return f"{socket.gethostname()}_{uuid.uuid4()}"


async def build_runner(options: RunOptions) -> Runner:
    """Load the configuration and plugins, connect, and assemble the Runner."""
    hooks = make_plugin_manager()
    registry = PluginRegistry.discover()
    loaded = load_config(options.config)
    resolved = resolve(loaded, registry, options.config)
    cfg = resolved.config
    connection = cfg.client_connection

    async def client(purpose: str = "") -> Transport:
        # each client has its own connection pool and rate limiter (clientConnection's qps
        # and burst), as kube-scheduler gives leader election and events clients of their
        # own (cmd/kube-scheduler/app/options: createClients), so that Lease renewals and
        # Events never queue behind bindings and status patches
        return await Transport.connect(
            options.kubeconfig or connection.kubeconfig or None,
            in_cluster=options.in_cluster,
            context=options.context,
            rate_limiter=RateLimiter(connection.qps, connection.burst),
            user_agent=f"kubesched/{__version__}{purpose}",
        )

    transport = await client()
    events_transport = await client(" events")
    closers: list[Callable[[], Awaitable[None]]] = [events_transport.close]
    clock = WallClock()
    cluster = KubeCluster(
        transport, default_kinds(hooks), clock=clock, events_transport=events_transport
    )
    election = cfg.leader_election
    leader_elect = election.leader_elect if options.leader_elect is None else options.leader_elect
    elector = None
    if leader_elect:
        identity = options.identity or default_identity()
        lease_transport = await client(" leader-election")
        closers.append(lease_transport.close)
        lock = KubeLeaseLock(
            lease_transport,
            options.resource_namespace or election.resource_namespace,
            options.resource_name or election.resource_name,
            identity,
        )
        elector = LeaderElector(
            lock,
            lease_duration=parse_duration(election.lease_duration),
            renew_deadline=parse_duration(election.renew_deadline),
            retry_period=parse_duration(election.retry_period),
            clock=clock,
        )
    return Runner(
        cluster,
        resolved,
        registry.plugins,
        elector=elector,
        hooks=hooks,
        bind_address=options.bind_address,
        port=options.port,
        shutdown_grace_period=options.shutdown_grace_period,
        clock=clock,
        closers=closers,
        fast_path=options.fast_path,
    )


def run_main(options: RunOptions) -> int:
    """Build and run on a fresh event loop; the process exit code."""

    async def main() -> int:
        runner = await build_runner(options)
        _log.info(
            "Starting kubesched %s against %s (profiles: %s)",
            __version__,
            runner.cluster.transport.host,
            ", ".join(runner.scheduler.profiles),
        )
        return await runner.run()

    return asyncio.run(main())
