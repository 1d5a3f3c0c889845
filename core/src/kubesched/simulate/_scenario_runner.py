"""Running a scenario: its steps through the cluster's API at their virtual times, and its
checkpoints of the cluster's state (`kubesched simulate --scenario FILE`; the file's format
and checks are in `_scenario`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Final

from kubesched._errors import ConflictError, KubeschedError, ManifestError, NotFoundError
from kubesched.api import Pod, apply_merge_patch
from kubesched.cluster import Cluster
from kubesched.cluster.memory import AdmissionError
from kubesched.simulate._scenario import Checkpoint, Scenario, Step, missing_object
from kubesched.simulate._timeline import count_pods, pod_state

__all__ = ["ScenarioRunner"]

_RETRIES: Final = 5


def _is_daemon_pod(pod: Pod) -> bool:
    return any(o.controller and o.kind == "DaemonSet" for o in pod.metadata.owner_references)


class ScenarioRunner:
    """Runs a scenario's steps on the cluster at their virtual times (a cluster controller:
    busy while steps remain, so the run goes on until the last one and then to
    quiescence). A step that fails calls `on_error` with a ManifestError."""

    name = "scenario"

    def __init__(self, scenario: Scenario, on_error: Callable[[BaseException], None]) -> None:
        self.scenario = scenario
        self.on_error = on_error
        self.checkpoints: list[Checkpoint] = []
        self._cluster: Cluster | None = None
        self._task: asyncio.Task[None] | None = None
        self._start = 0.0

    def start(self, cluster: Cluster) -> None:
        self._cluster = cluster
        loop = asyncio.get_running_loop()
        self._start = loop.time()
        self._task = loop.create_task(self._run())

    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        for step in self.scenario.steps:
            delay = self._start + step.at - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            try:
                await self._apply(step)
            except ManifestError as error:
                self.on_error(error)
                return
            except KubeschedError as error:
                # the cluster refused the step (an object created twice, say)
                self.on_error(ManifestError(str(error), file=self.scenario.file, path=step.where()))
                return

    async def _apply(self, step: Step) -> None:
        cluster = self._cluster
        assert cluster is not None
        action, value = step.action, step.value
        if action in ("create", "addNode"):
            for i, obj in enumerate(value):
                try:
                    await cluster.create(obj.model_copy(deep=True))
                except AdmissionError as error:
                    where = (i,) if len(value) > 1 else ()
                    raise ManifestError(
                        str(error), file=self.scenario.file, path=step.where(*where)
                    ) from error
        elif action == "delete":
            ref = value[0]
            self._require(step, ref.kind, ref.name, ref.namespace)
            await cluster.delete(ref.kind, ref.name, ref.namespace)
        elif action in ("scale", "patch"):
            ref, arg = value
            patch = {"spec": {"replicas": arg}} if action == "scale" else arg
            await self._patch(step, ref.kind, ref.name, ref.namespace, patch)
        elif action in ("cordon", "uncordon"):
            patch = {"spec": {"unschedulable": True if action == "cordon" else None}}
            for node in value:
                await self._patch(step, "Node", node, None, patch)
        elif action == "drain":
            for node in value:
                await self._patch(step, "Node", node, None, {"spec": {"unschedulable": True}})
                await self._drain(node)
        elif action == "deleteNode":
            for node in value:
                self._require(step, "Node", node, None)
                await cluster.delete("Node", node)
        elif action in ("taint", "untaint"):
            nodes, taint = value
            for node in nodes:
                await self._edit(step, "Node", node, None, _taint_edit(action, taint))
        else:
            self.checkpoints.append(self._checkpoint(step))

    def _require(self, step: Step, kind: str, name: str, namespace: str | None) -> Any:
        assert self._cluster is not None
        obj = self._cluster.get(kind, name, namespace)
        if obj is None:
            key = f"{namespace}/{name}" if namespace else name
            raise missing_object(self.scenario.file, step, kind, key, "name")
        return obj

    async def _patch(
        self, step: Step, kind: str, name: str, namespace: str | None, patch: dict[str, Any]
    ) -> None:
        await self._edit(step, kind, name, namespace, lambda data: apply_merge_patch(data, patch))

    async def _edit(
        self,
        step: Step,
        kind: str,
        name: str,
        namespace: str | None,
        edit: Callable[[dict[str, Any]], dict[str, Any]],
    ) -> None:
        """Read, change and write back one object (again when a controller wrote it
        meanwhile)."""
        cluster = self._cluster
        assert cluster is not None
        for _ in range(_RETRIES):
            obj = self._require(step, kind, name, namespace)
            data = edit(obj.to_dict())
            try:
                new = type(obj).model_validate(data)
            except ValueError as error:
                raise ManifestError(
                    f"Invalid value: the object is not valid after the change: {error}",
                    file=self.scenario.file,
                    path=step.where(),
                ) from error
            try:
                await cluster.update(new)
                return
            except ConflictError:
                continue
            except AdmissionError as error:
                raise ManifestError(
                    str(error), file=self.scenario.file, path=step.where()
                ) from error
        raise ManifestError(
            f"{kind} {name} kept changing; the step could not be written",
            file=self.scenario.file,
            path=step.where(),
        )

    async def _drain(self, node: str) -> None:
        cluster = self._cluster
        assert cluster is not None
        for pod in cluster.list("Pod"):
            if pod.spec.node_name != node or pod.is_terminal or _is_daemon_pod(pod):
                continue
            try:
                await cluster.delete("Pod", pod.metadata.name, pod.metadata.namespace)
            except NotFoundError:
                continue

    def _checkpoint(self, step: Step) -> Checkpoint:
        cluster = self._cluster
        assert cluster is not None
        pods = cluster.list("Pod")
        placements: dict[str, str] = {}
        pending: list[str] = []
        for pod in pods:
            state = pod_state(pod)
            if state == "bound":
                placements[pod.key] = pod.spec.node_name
            elif state == "pending":
                pending.append(pod.key)
        return Checkpoint(
            name=step.value,
            step=step.index,
            at=step.at,
            placements=dict(sorted(placements.items())),
            pending=sorted(pending),
            counts=count_pods(pods, len(cluster.list("Node"))),
        )


def _taint_edit(action: str, taint: dict[str, str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The change a taint or untaint step makes to a Node's dict: a taint replaces the
    node's taint of the same key and effect (as `kubectl taint --overwrite`)."""

    def edit(data: dict[str, Any]) -> dict[str, Any]:
        spec = dict(data.get("spec") or {})
        taints = [
            t
            for t in spec.get("taints") or []
            if t.get("key") != taint["key"]
            or ("effect" in taint and t.get("effect") != taint["effect"])
        ]
        if action == "taint":
            taints.append(dict(taint))
        spec["taints"] = taints
        return {**data, "spec": spec}

    return edit
