"""The metrics tests' helpers: a replica to scrape, scraping, and reading a scrape back
(families by name, each with its HELP and TYPE lines and its samples)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from kube_helpers import FAST, plugin_classes, resolved_config

from kubesched.clock import WallClock
from kubesched.cluster.kube import KubeCluster, KubeLeaseLock, RateLimiter, Transport
from kubesched.cluster.memory import default_kinds
from kubesched.config import ResolvedConfig
from kubesched.framework import Plugin
from kubesched.run import LeaderElector, Runner
from kubesched.runtime import make_plugin_manager
from kubesched.testing.apiserver import FakeApiServer

_SAMPLE = re.compile(r"^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?P<labels>.*)\})? (?P<value>\S+)$")
_LABEL = re.compile(r'(?P<key>[a-zA-Z_][a-zA-Z0-9_]*)="(?P<value>(?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class Sample:
    name: str
    labels: dict[str, str]
    value: str
    """As written (`1`, `0.25`, `+Inf` ...)."""

    @property
    def number(self) -> float:
        return float(self.value)


@dataclass
class Family:
    name: str
    help: str = ""
    type: str = ""
    samples: list[Sample] = field(default_factory=list)

    def label_names(self) -> set[str]:
        return {k for s in self.samples for k in s.labels if k != "le"}

    def value(self, sample_name: str, **labels: str) -> float:
        """The one sample named `sample_name` whose labels include `labels`."""
        found = [
            s
            for s in self.samples
            if s.name == sample_name and all(s.labels.get(k) == v for k, v in labels.items())
        ]
        assert len(found) == 1, (sample_name, labels, found)
        return found[0].number


def parse(text: str) -> dict[str, Family]:
    """Families by name; fails on a line that is none of HELP, TYPE or a sample, and on a
    sample outside the family announced before it."""
    families: dict[str, Family] = {}
    current: Family | None = None
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name, _, help_text = line[len("# HELP ") :].partition(" ")
            current = families.setdefault(name, Family(name))
            current.help = help_text
        elif line.startswith("# TYPE "):
            name, _, kind = line[len("# TYPE ") :].partition(" ")
            assert current is not None and current.name == name, line
            current.type = kind
        else:
            match = _SAMPLE.match(line)
            assert match is not None, line
            assert current is not None and match["name"].startswith(current.name), line
            labels = {m["key"]: m["value"] for m in _LABEL.finditer(match["labels"] or "")}
            current.samples.append(Sample(match["name"], labels, match["value"]))
    return families


def metrics_runner(
    server: FakeApiServer,
    identity: str = "a",
    *,
    port: int | None = 0,
    config: ResolvedConfig | None = None,
    plugins: Mapping[str, type[Plugin]] | None = None,
    **cfg: Any,
) -> Runner:
    """A leader-electing replica (lease 1 s, renew 0.5 s, retry 0.2 s) whose client is rate
    limited, as client-go's always is, and whose plugin durations are recorded in every
    cycle. Its configuration: `config` and `plugins`, else the in-test plugins' profile with
    `cfg`'s top-level fields."""
    transport = Transport.for_host(server.url, rate_limiter=RateLimiter(1000.0, 1000))
    cluster = KubeCluster(transport, default_kinds(), settings=FAST)
    lock = KubeLeaseLock(transport, "kube-system", "kubesched", identity)
    elector = LeaderElector(
        lock, lease_duration=1.0, renew_deadline=0.5, retry_period=0.2, clock=WallClock()
    )
    runner = Runner(
        cluster,
        config or resolved_config(cfg or None),
        plugins or plugin_classes(),
        elector=elector,
        hooks=make_plugin_manager(load_entrypoints=False),
        port=port,
        shutdown_grace_period=5.0,
    )
    runner.metrics.plugins.sample_percent = 100
    return runner


async def scrape(runner: Runner, path: str = "/metrics") -> tuple[int, dict[str, str], str]:
    """Status, headers and body of GET `path` on the runner's endpoints."""
    assert runner.server is not None
    url = f"http://127.0.0.1:{runner.server.port}{path}"
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, dict(response.headers), await response.text()
