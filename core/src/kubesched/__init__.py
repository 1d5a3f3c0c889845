"""kubesched: the Kubernetes Scheduling Framework (KEP-624) in Python.

The package is built in layers, each importing only from the layers before it (a test,
core/tests/package/test_layers.py, keeps it so):

    api, clock, features -> framework, cluster, hookspecs -> runtime, config, queue, cache,
        cluster.memory, cluster.kube, workloads -> scheduler -> simulate, report, run,
        testing -> cli

- ``api``: the Kubernetes objects the scheduler reads, resource quantities, selectors.
- ``clock``: wall and virtual time, and the asyncio loop simulations run on.
- ``features``: the feature gates (upstream's names and defaults) plugins may read.
- ``framework``: the plugin API (extension points, Code/Status, CycleState, NodeInfo);
  ``framework.preemption`` the preemption evaluator a PostFilter plugin drives.
- ``hookspecs``: the program hooks (pluggy) packages implement: kinds, controllers,
  observers, report sections.
- ``cluster``: the Cluster interface; ``cluster.memory`` the embedded backend and
  ``cluster.kube`` a real API server (the ``kube`` extra).
- ``workloads``: Deployments, ReplicaSets, StatefulSets, DaemonSets and Jobs in the
  embedded cluster: their controllers, garbage collection and pods that finish.
- ``runtime``, ``config``, ``queue``, ``cache``: what runs plugins, reads the
  KubeSchedulerConfiguration, holds pods waiting to be scheduled, and keeps the scheduler's
  view of the cluster.
- ``scheduler``: the scheduling loop, binding cycles and informer handlers.
- ``simulate``, ``report``, ``run``, ``testing``, ``cli``: the simulator, its JSON and HTML
  reports, the real-cluster runner (leader election, metrics), helpers and the conformance
  kit for plugin authors, and the ``kubesched`` command.

This module only re-exports the version and the errors kubesched raises on purpose.
"""

from kubesched._errors import (
    AlreadyExistsError,
    ConfigError,
    ConflictError,
    KubeschedError,
    ManifestError,
    NotFoundError,
    PluginLoadError,
    QuantityError,
)

__version__ = "0.1.0"

__all__ = [
    "AlreadyExistsError",
    "ConfigError",
    "ConflictError",
    "KubeschedError",
    "ManifestError",
    "NotFoundError",
    "PluginLoadError",
    "QuantityError",
    "__version__",
]
