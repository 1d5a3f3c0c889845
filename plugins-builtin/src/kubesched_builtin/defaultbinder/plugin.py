"""DefaultBinder binds the pod to its node through the cluster.

Upstream: pkg/scheduler/framework/plugins/defaultbinder/default_binder.go, which posts a
Binding to `pods/<name>/binding`; here that is `Cluster.bind`.
"""

from __future__ import annotations

from typing import ClassVar

from kubesched.api import Pod
from kubesched.framework import BindPlugin, CycleState, Status
from kubesched_builtin.names import DEFAULT_BINDER

__all__ = ["DefaultBinder"]


class DefaultBinder(BindPlugin):
    """Bind: success when the cluster accepted the binding, Error carrying the failure else."""

    name: ClassVar[str] = DEFAULT_BINDER

    async def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        try:
            await self.handle.cluster.bind(pod, node_name)
        except Exception as exc:  # any failure of the API call is this pod's Error
            return Status.as_error(exc)
        return None
