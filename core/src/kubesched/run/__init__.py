"""`kubesched run`: the scheduler against a real API server (needs the `kube` extra).

Layer 4, beside `simulate`: it assembles the `kube` cluster backend, the Scheduler, leader
election over a coordination.k8s.io/v1 Lease, upstream's metrics, the /metrics, /configz,
/healthz and /readyz endpoints, and graceful shutdown on SIGTERM.
"""

from kubesched.run._configz import CONFIGZ_NAME, componentconfig, configz_body
from kubesched.run._exposition import exposition, go_float
from kubesched.run._leader import JITTER_FACTOR, LeaderElector, LeaseLock
from kubesched.run._metrics import EXTENSION_POINT_METHODS, SchedulerMetrics, exponential_buckets
from kubesched.run._metrics_plugins import PLUGIN_METRICS_SAMPLE_PERCENT
from kubesched.run._runner import (
    Runner,
    RunOptions,
    build_runner,
    default_identity,
    run_main,
)
from kubesched.run._server import Check, EndpointServer

__all__ = [
    "CONFIGZ_NAME",
    "EXTENSION_POINT_METHODS",
    "JITTER_FACTOR",
    "PLUGIN_METRICS_SAMPLE_PERCENT",
    "Check",
    "EndpointServer",
    "LeaderElector",
    "LeaseLock",
    "RunOptions",
    "Runner",
    "SchedulerMetrics",
    "build_runner",
    "componentconfig",
    "configz_body",
    "default_identity",
    "exponential_buckets",
    "exposition",
    "go_float",
    "run_main",
]
