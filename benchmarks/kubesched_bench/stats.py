"""Statistics over what a run recorded: throughput samples, percentiles, summaries.

upstream: test/integration/scheduler_perf/util.go (throughputCollector): the per-second
samples, the merging of empty seconds, and nearest-rank percentiles. Everything here is a
pure function of timestamps, so it is tested without running a scheduler.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "SAMPLE_INTERVAL",
    "LatencySummary",
    "QuorumSummary",
    "ThroughputSummary",
    "percentile",
    "summarize_latencies",
    "throughput_samples",
]

# upstream: util.go throughputSampleInterval = time.Second
SAMPLE_INTERVAL: Final = 1.0

_MS: Final = 1000.0


def percentile(sorted_values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile of ascending values, as upstream's collector computes it:
    `values[ceil(n*p/100) - 1]`. 0.0 for no values."""
    n = len(sorted_values)
    if n == 0:
        return 0.0
    return sorted_values[max(math.ceil(n * p / 100) - 1, 0)]


def throughput_samples(
    bind_times: Sequence[float], start: float, end: float, interval: float = SAMPLE_INTERVAL
) -> list[float]:
    """Pods per second in each whole `interval` from `start`, from bind timestamps.

    Like upstream's collector, an interval in which nothing was bound is not recorded as 0:
    it is merged with the next interval that bound something, and that rate is recorded once
    per merged interval. The trailing partial interval is dropped (upstream stops sampling
    when the op ends), unless there is no whole interval at all: then the whole run is one
    sample, so short runs still report something.
    """
    whole = int((end - start) // interval)
    if whole == 0:
        duration = end - start
        return [len(bind_times) / duration] if duration > 0 and bind_times else []
    counts = [0] * whole
    for t in bind_times:
        index = int((t - start) // interval)
        if 0 <= index < whole:
            counts[index] += 1
    samples: list[float] = []
    skipped = 0
    for count in counts:
        if count == 0:
            skipped += 1
            continue
        rate = count / (interval * (skipped + 1))
        samples.extend([rate] * (skipped + 1))
        skipped = 0
    return samples


@dataclass(frozen=True)
class ThroughputSummary:
    """SchedulingThroughput in pods/s: `average` is measured pods / measured wall time;
    the percentiles are over the 1-second samples."""

    average: float
    perc50: float
    perc90: float
    perc99: float
    samples: list[float]

    @classmethod
    def of(cls, pods: int, seconds: float, samples: Sequence[float]) -> ThroughputSummary:
        ordered = sorted(samples)
        return cls(
            average=pods / seconds if seconds > 0 else 0.0,
            perc50=percentile(ordered, 50),
            perc90=percentile(ordered, 90),
            perc99=percentile(ordered, 99),
            samples=list(samples),
        )


@dataclass(frozen=True)
class LatencySummary:
    """Wall-clock milliseconds per scheduling attempt (one scheduling cycle)."""

    count: int
    average_ms: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float


def summarize_latencies(seconds: Sequence[float]) -> LatencySummary:
    """Count, mean and nearest-rank percentiles of durations given in seconds, in ms."""
    ordered = sorted(seconds)
    if not ordered:
        return LatencySummary(0, 0.0, 0.0, 0.0, 0.0, 0.0)
    return LatencySummary(
        count=len(ordered),
        average_ms=sum(ordered) / len(ordered) * _MS,
        p50_ms=percentile(ordered, 50) * _MS,
        p90_ms=percentile(ordered, 90) * _MS,
        p99_ms=percentile(ordered, 99) * _MS,
        max_ms=ordered[-1] * _MS,
    )


@dataclass(frozen=True)
class QuorumSummary:
    """Time to quorum of the gangs of a run, in wall-clock milliseconds.

    A gang's time to quorum runs from the creation of its first member (the measured
    phase creates the pods one by one, gang after gang) to the bind of its
    `minMember`-th member (the `kubesched_pod_scheduled` observer, called once the Bind
    plugin returned). It includes the time the gang waited behind the gangs created before
    it. Percentiles are nearest-rank over the gangs.
    """

    gangs: int
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    per_gang_ms: dict[str, float] = field(default_factory=dict)
    """Every gang's time to quorum, by PodGroup `namespace/name`."""

    @classmethod
    def of(cls, seconds_by_gang: Mapping[str, float]) -> QuorumSummary:
        latency = summarize_latencies(list(seconds_by_gang.values()))
        return cls(
            gangs=latency.count,
            p50_ms=latency.p50_ms,
            p90_ms=latency.p90_ms,
            p99_ms=latency.p99_ms,
            max_ms=latency.max_ms,
            per_gang_ms={k: v * _MS for k, v in sorted(seconds_by_gang.items())},
        )
