"""The metrics every Kubernetes component gets from its client libraries.

- `rest_client_requests_total{code,host,method}`, `rest_client_request_duration_seconds`
  and `rest_client_rate_limiter_duration_seconds{verb,host}`: client-go reports each
  request (k8s.io/client-go/tools/metrics, rest/request.go), component-base defines them
  (staging/src/k8s.io/component-base/metrics/prometheus/restclient/metrics.go);
- `leader_election_master_status{name}`: 0 when the elector is made, 1 once it acquires the
  Lease, 0 when renewing fails (client-go tools/leaderelection/leaderelection.go;
  component-base metrics/prometheus/clientgo/leaderelection); kube-scheduler names its
  election "kube-scheduler" (cmd/kube-scheduler/app/options/options.go);
- `process_*`: client_golang's process collector (prometheus_client's, plus
  `process_virtual_memory_max_bytes`).
"""

from __future__ import annotations

import functools
import resource
from collections.abc import Iterator
from typing import Any, Final

from prometheus_client import CollectorRegistry, Counter, Gauge
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.process_collector import ProcessCollector

from kubesched.run._leader import LeaderElector
from kubesched.run._metrics_collectors import alpha
from kubesched.run._metrics_histogram import HistogramVec, cached_labels

__all__ = ["LEADER_ELECTION_NAME", "LeaderMetrics", "RestClientMetrics", "register_process"]

LEADER_ELECTION_NAME: Final = "kube-scheduler"

_LATENCY_BUCKETS: Final = (0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0)
_UNLIMITED: Final = float(2**64 - 1)
"""What procfs reports for an unlimited rlimit (math.MaxUint64)."""


class RestClientMetrics:
    """A `kubesched.cluster.kube.RequestObserver` recording client-go's request metrics."""

    def __init__(self, registry: CollectorRegistry) -> None:
        histogram = functools.partial(HistogramVec, registry=registry, buckets=_LATENCY_BUCKETS)
        self.requests = Counter(
            "rest_client_requests",
            alpha("Number of HTTP requests, partitioned by status code, method, and host."),
            ["code", "method", "host"],
            registry=registry,
        )
        self.request_duration = histogram(
            "rest_client_request_duration_seconds",
            alpha("Request latency in seconds. Broken down by verb, and host."),
            ["verb", "host"],
        )
        self.rate_limiter_duration = histogram(
            "rest_client_rate_limiter_duration_seconds",
            alpha("Client side rate limiter latency in seconds. Broken down by verb, and host."),
            ["verb", "host"],
        )
        self._requests = cached_labels(self.requests)  # a few children, moved per request

    def rate_limiter_waited(self, verb: str, host: str, seconds: float) -> None:
        self.rate_limiter_duration.labels(verb, host).observe(seconds)

    def request_done(self, verb: str, host: str, code: str, seconds: float | None) -> None:
        self._requests(code, verb, host).inc()
        if seconds is not None:
            self.request_duration.labels(verb, host).observe(seconds)


class LeaderMetrics:
    """`leader_election_master_status` of the electors given to `watch`."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.status = Gauge(
            "leader_election_master_status",
            alpha(
                "Gauge of if the reporting system is master of the relevant lease, 0 "
                "indicates backup, 1 indicates master. 'name' is the string used to identify "
                "the lease. Please make sure to group by name."
            ),
            ["name"],
            registry=registry,
        )

    def watch(self, elector: LeaderElector, name: str = LEADER_ELECTION_NAME) -> None:
        """0 now (NewLeaderElector), 1 when `acquire` succeeds, 0 when `renew` ends by
        itself (the Lease is lost); cancelling `renew` (shutdown) leaves it, as upstream."""
        elector.metrics = _LeaderGauge(self.status.labels(name))


class _LeaderGauge:
    """client-go's leaderMetricsAdapter over one `leader_election_master_status` child."""

    def __init__(self, child: Any) -> None:
        self._child = child
        child.set(0)

    def leader_on(self) -> None:
        self._child.set(1)

    def leader_off(self) -> None:
        self._child.set(0)


class _VirtualMemoryMax:
    """client_golang's `process_virtual_memory_max_bytes` (RLIMIT_AS)."""

    def describe(self) -> list[Metric]:
        return list(self.collect())

    def collect(self) -> Iterator[Metric]:
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        value = _UNLIMITED if soft == resource.RLIM_INFINITY else float(soft)
        yield GaugeMetricFamily(
            "process_virtual_memory_max_bytes",
            "Maximum amount of virtual memory available in bytes.",
            value=value,
        )


def register_process(registry: CollectorRegistry) -> None:
    """The process_* families on `registry`."""
    ProcessCollector(registry=registry)
    registry.register(_VirtualMemoryMax())
