"""A short soak (`soak.py`, issue 18): half an hour of virtual time, ten pods a minute
created and each deleted five minutes later, with the soak's fault plan firing. The
invariants hold at the end, and the cluster, the cache, the queue and the scheduler's
report (with `kubesched run`'s retention) stay at the steady state (the pods alive at a
time), not growing with the pods processed. The long run is
`soak.py --hours 24` (docs/reliability.md)."""

from __future__ import annotations

from soak import Soak

from kubesched.scheduler import Retention


def test_short_soak_holds_the_invariants_and_stays_flat() -> None:
    # run's retention, with a window of latencies the short run fills several times over
    retention = Retention(deleted_pods=False, latencies=40)
    soak = Soak(
        nodes=5,
        hours=0.5,
        pods_per_minute=10,
        lifetime_minutes=5,
        sample_minutes=10,
        retention=retention,
    )
    summary = soak.run(report=False)
    assert summary["problems"] == []
    assert summary["created"] == 300 and summary["deleted"] == 250
    faults = summary["faults"]
    assert faults.get("bindError", 0) > 0 and faults.get("watch", 0) > 0
    # alive at any time: the last lifetime's pods (5 min x 10), all bound, none queued
    for sample in soak.samples:
        assert (sample.pods, sample.bound, sample.cached, sample.queued) == (50, 50, 50, 0)
        # a record per pod alive (all tried), not per pod ever created; the latest latencies
        assert sample.records == 50
        assert 40 <= sample.latencies < 80
