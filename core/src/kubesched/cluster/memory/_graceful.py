"""Graceful pod deletion: how long a deleted pod stays on its node, and the timers that end it.

On a real cluster a DELETE of a pod bound to a node does not remove it: the API server sets
`metadata.deletionTimestamp` (now + the grace period) and `deletionGracePeriodSeconds`, the
kubelet stops the containers within that period and then deletes the pod for good. Until then
the pod keeps its place on the node, and the scheduler keeps counting it there.

The memory cluster plays both parts on its clock: `grace_period_on_delete` and
`shortened_grace_period` are the API server's rules, `Terminations` holds one event-loop timer
per terminating pod and removes the pod when its grace period has elapsed (a kubelet whose
containers always take the whole period to stop). Finalizers are not modelled.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from kubesched.api import Pod

__all__ = [
    "DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS",
    "Terminations",
    "grace_period_on_delete",
    "shortened_grace_period",
]

DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS: Final = 30
"""upstream v1.DefaultTerminationGracePeriodSeconds, set on every pod by API defaulting
(pkg/apis/core/v1/defaults.go SetDefaults_PodSpec); a pod read without the field has it."""


def _requested(grace_period_seconds: int | None) -> int | None:
    # upstream rest.BeforeDelete: a negative DeleteOptions.gracePeriodSeconds counts as 1.
    if grace_period_seconds is not None and grace_period_seconds < 0:
        return 1
    return grace_period_seconds


def grace_period_on_delete(pod: Pod, grace_period_seconds: int | None = None) -> int:
    """The grace period of a first DELETE of `pod`; 0 removes it at once.

    upstream: pkg/registry/core/pod/strategy.go (podStrategy.CheckGracefulDelete). The
    request's gracePeriodSeconds wins over the pod's terminationGracePeriodSeconds; a pod
    not bound to a node, or already Succeeded or Failed, goes at once; a negative period
    counts as 1 s.
    """
    period = _requested(grace_period_seconds)
    if period is None:
        spec_period = pod.spec.termination_grace_period_seconds
        period = DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS if spec_period is None else spec_period
    if not pod.spec.node_name or pod.status.phase in ("Succeeded", "Failed"):
        period = 0
    return 1 if period < 0 else period


def shortened_grace_period(pod: Pod, grace_period_seconds: int | None = None) -> int | None:
    """A DELETE of a pod already terminating: the new, shorter grace period (0 removes it at
    once), or None when the deletion already under way is left as it is.

    upstream: staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go (BeforeDelete): only
    a shorter period may be given, counted from when the deletion started; a pod whose
    deletionGracePeriodSeconds is unset or 0 is removed at once.
    """
    current = pod.metadata.deletion_grace_period_seconds
    if not current:
        return 0
    period = _requested(grace_period_seconds)
    if period is None or period >= current:
        return None
    return period


@dataclass
class _Termination:
    uid: str
    started: float
    """Clock time of the first DELETE: a shortened grace period counts from here."""
    ends: float
    """Clock time the pod is removed."""
    timer: asyncio.TimerHandle | None = None


class Terminations:
    """Pods whose grace period runs, by store key, each with the timer that removes it.

    `remove(key, uid)` is called when a timer fires; it must remove the pod only if the
    stored one still has that uid (a pod deleted and created again under the same name is
    another pod).
    """

    def __init__(self, now: Callable[[], float], remove: Callable[[str, str], None]) -> None:
        self._now = now
        self._remove = remove
        self._pending: dict[str, _Termination] = {}

    def start(self, key: str, uid: str, grace: int) -> None:
        """Remove the pod `grace` seconds from now (on the running loop's clock)."""
        self.cancel(key)
        now = self._now()
        termination = _Termination(uid, now, now + grace)
        self._pending[key] = termination
        self._arm(key, termination)

    def shorten(self, key: str, uid: str, grace: int) -> None:
        """Remove the pod `grace` seconds after its deletion started (at once if that is
        past); a pod whose deletion did not start here counts from now."""
        termination = self._pending.get(key)
        if termination is None or termination.uid != uid:
            self.start(key, uid, grace)
            return
        if termination.timer is not None:
            termination.timer.cancel()
        termination.ends = termination.started + grace
        self._arm(key, termination)

    def cancel(self, key: str) -> None:
        """Forget the pod's timer (it was removed some other way)."""
        termination = self._pending.pop(key, None)
        if termination is not None and termination.timer is not None:
            termination.timer.cancel()

    def ends_at(self, key: str) -> float | None:
        """Clock time the pod will be removed, or None when it is not terminating."""
        termination = self._pending.get(key)
        return None if termination is None else termination.ends

    def __len__(self) -> int:
        return len(self._pending)

    def _arm(self, key: str, termination: _Termination) -> None:
        delay = max(0.0, termination.ends - self._now())
        loop = asyncio.get_running_loop()
        termination.timer = loop.call_later(delay, self._fire, key, termination)

    def _fire(self, key: str, termination: _Termination) -> None:
        if self._pending.get(key) is not termination:
            return
        del self._pending[key]
        self._remove(key, termination.uid)
