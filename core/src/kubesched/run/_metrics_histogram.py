"""A histogram vector that observes one value many times in one update, and cached
label children for prometheus_client's vectors: the metrics updated in every cycle.

The per-plugin durations (`scheduler_plugin_execution_duration_seconds`) get one
observation per node per plugin in a sampled cycle, as upstream's instrumented plugins
give them; kubesched's batch and array forms answer for hundreds of nodes in one call and
share its duration equally, so each such call is hundreds of equal observations.
prometheus_client's Histogram takes them one at a time, each through a label lookup, a
linear scan of the bounds and two locked increments; `HistogramChild.observe(value, n)`
adds `n` to one bucket and to the count and `n * value` to the sum.

Exposed exactly as a prometheus_client Histogram of the same name, labels and buckets is
(cumulative `_bucket{le}` series, `_count`, `_sum`; `_exposition` writes them as
client_golang does). Updated from the scheduler's event loop only, so without locks.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from prometheus_client import CollectorRegistry
from prometheus_client.core import Metric

from kubesched.run._exposition import go_float

__all__ = ["HistogramChild", "HistogramVec", "cached_labels"]


def cached_labels(metric: Any) -> Callable[..., Any]:
    """`metric.labels` of a prometheus_client Counter or Gauge vector, each label set's
    child looked up once (its `labels` validates the values and takes a lock on every
    call); for vectors whose children are never removed."""
    children: dict[tuple[str, ...], Any] = {}

    def labels(*values: str) -> Any:
        child = children.get(values)
        if child is None:
            child = children[values] = metric.labels(*values)
        return child

    return labels


class HistogramChild:
    """One label set's buckets (not cumulative), count and sum."""

    __slots__ = ("_bounds", "counts", "sum")

    def __init__(self, bounds: list[float]) -> None:
        self._bounds = bounds
        self.counts = [0] * len(bounds)
        self.sum = 0.0

    def observe(self, value: float, n: int = 1) -> None:
        """`n` observations of `value` (prometheus Histogram.observe `n` times: the
        first bucket whose upper bound is at least `value`)."""
        self.counts[bisect.bisect_left(self._bounds, value)] += n
        self.sum += value * n


class HistogramVec:
    """A histogram family with labels, registered on `registry` as a collector; the
    attributes prometheus_client's Histogram has for its name and bounds (`_name`,
    `_upper_bounds`, +Inf last) are kept under the same names."""

    def __init__(
        self,
        name: str,
        documentation: str,
        labelnames: Sequence[str],
        *,
        buckets: Sequence[float],
        registry: CollectorRegistry,
    ) -> None:
        bounds = [float(b) for b in buckets]
        if bounds != sorted(bounds):
            raise ValueError(f"{name}: buckets not in sorted order")
        if not bounds or bounds[-1] != math.inf:
            bounds.append(math.inf)
        self._name = name
        self._documentation = documentation
        self._labelnames = tuple(labelnames)
        self._upper_bounds = bounds
        self._le = [go_float(b) for b in bounds]
        self._series: dict[tuple[str, ...], HistogramChild] = {}
        """Label values (as strings) → child, what is exposed."""
        self._children: dict[tuple[Any, ...], HistogramChild] = {}
        """The values `labels` was called with → child, looked up first."""
        registry.register(self)

    def labels(self, *values: Any) -> HistogramChild:
        """The child of one label set, its values taken as `str` of them (created, at
        zero, the first time it is asked for, as prometheus_client's are)."""
        child = self._children.get(values)
        if child is None:
            if len(values) != len(self._labelnames):
                raise ValueError(f"{self._name}: expected labels {self._labelnames}")
            key = tuple(str(v) for v in values)
            child = self._series.get(key)
            if child is None:
                child = self._series[key] = HistogramChild(self._upper_bounds)
            self._children[values] = child
        return child

    def describe(self) -> list[Metric]:
        return [Metric(self._name, self._documentation, "histogram")]

    def collect(self) -> Iterator[Metric]:
        family = Metric(self._name, self._documentation, "histogram")
        names = self._labelnames
        for values, child in list(self._series.items()):
            labels = dict(zip(names, values, strict=True))
            total = 0
            for le, count in zip(self._le, child.counts, strict=True):
                total += count
                family.add_sample(f"{self._name}_bucket", {**labels, "le": le}, total)
            family.add_sample(f"{self._name}_count", labels, total)
            family.add_sample(f"{self._name}_sum", labels, child.sum)
        yield family
