"""kubesched: the Kubernetes Scheduling Framework (KEP-624) in Python.

The package is built in layers, each importing only from the layers before it:

    api -> framework -> runtime / queue / cache / cluster -> scheduler -> simulate / cli

- ``api``: the Kubernetes objects the scheduler reads, resource quantities, selectors.
- ``framework``: the plugin API (extension points, Code/Status, CycleState, NodeInfo).
- ``runtime``, ``queue``, ``cache``, ``cluster``: what runs plugins, holds pods waiting to be
  scheduled, keeps the scheduler's view of the cluster, and talks to the cluster.
- ``scheduler``: the scheduling loop and binding cycles.
- ``simulate``, ``cli``: the embedded simulator and the ``kubesched`` command.

Nothing imports upward: a module never imports from a layer listed after its own.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
