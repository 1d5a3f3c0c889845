"""Building a Scheduler: cache, snapshot, profiles, queue, informer handlers, observers.

Upstream: pkg/scheduler/scheduler.go (New): the profiles from the configuration
(profile.NewMap), the scheduling queue over their QueueSort, PreEnqueue plugins and
queueing hints, the event handlers, and each profile's handle wired to the queue (its
PodNominator and activator) and to the handlers (plugin-reported cluster events).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import pluggy

from kubesched.cache import SchedulerCache
from kubesched.clock import Clock
from kubesched.cluster import Cluster
from kubesched.config import ResolvedConfig
from kubesched.features import fast_path_enabled
from kubesched.framework import Plugin, Snapshot
from kubesched.queue import QueueProfile, SchedulingQueue
from kubesched.runtime import Framework, FrameworkFactory, build_profiles
from kubesched.scheduler._algorithm import SchedulingAlgorithm
from kubesched.scheduler._event_handlers import EventHandlers
from kubesched.scheduler._observers import ObserverList, SchedulerObserver
from kubesched.scheduler._recorder import ClusterEventRecorder
from kubesched.scheduler._report import KEEP_ALL, Retention, SchedulingReport
from kubesched.scheduler._scheduler import Scheduler

__all__ = ["new_scheduler"]


def new_scheduler(
    cluster: Cluster,
    config: ResolvedConfig,
    plugins: Mapping[str, type[Plugin]],
    *,
    clock: Clock,
    seed: int | None = None,
    hooks: pluggy.PluginManager | None = None,
    observers: Sequence[SchedulerObserver] = (),
    framework: FrameworkFactory = Framework,
    fast_path: bool | None = None,
    retention: Retention = KEEP_ALL,
) -> Scheduler:
    """A Scheduler of every profile in `config` on `cluster`, its plugins taken from
    `plugins` (name → class). Its `report` (attempt records, stats, explanations) is the
    first observer, `observers` (metrics, say) come after it. `framework` builds each
    profile (`kubesched run` gives an instrumented one). `fast_path` False keeps the
    per-node Filter/Score path, in the node search and in the plugins (their handle's
    `fast_path`); None: KUBESCHED_FAST_PATH decides, on by default.
    `retention`: what the report keeps (`kubesched run` keeps it bounded)."""
    cache = SchedulerCache()
    snapshot = Snapshot()
    recorder = ClusterEventRecorder(cluster, clock)
    cfg = config.config
    fast = fast_path_enabled(fast_path)
    algorithm = SchedulingAlgorithm(
        snapshot, random.Random(seed), cfg.percentage_of_nodes_to_score, fast
    )
    profiles = build_profiles(
        config,
        plugins,
        cluster=cluster,
        clock=clock,
        snapshot=snapshot,
        recorder_factory=recorder.for_profile,
        framework=framework,
        fast_path=fast,
    )
    first = next(iter(profiles.values()))
    queue = SchedulingQueue(
        clock,
        first.queue_sort_less(),
        {
            name: QueueProfile(
                pre_enqueue=list(fwk.pre_enqueue_plugins), hints=fwk.events_to_register()
            )
            for name, fwk in profiles.items()
        },
        initial_backoff=float(cfg.pod_initial_backoff_seconds),
        max_backoff=float(cfg.pod_max_backoff_seconds),
    )
    report = SchedulingReport(clock, retention)
    watching = ObserverList([report, *observers])
    handlers = EventHandlers(cache, queue, profiles, watching)
    for fwk in profiles.values():
        fwk.nominator = queue
        fwk.activator = queue.activate
        fwk.event_reporter = handlers.on_plugin_event
    return Scheduler(
        cluster,
        clock=clock,
        cache=cache,
        snapshot=snapshot,
        algorithm=algorithm,
        profiles=profiles,
        queue=queue,
        handlers=handlers,
        recorder=recorder,
        observers=watching,
        report=report,
        hooks=hooks,
    )
