"""The Prometheus text format as kube-scheduler writes it (client_golang's expfmt, 0.0.4).

prometheus_client's `generate_latest` differs from Go's in ways a scrape shows and a
byte-for-byte comparison with kube-scheduler trips over, so /metrics is written here:

- numbers: Go's `strconv.FormatFloat(f, 'g', -1, 64)` (`1`, `0.25`, `1e-05`,
  `1.234567e+06`), not Python's `1.0`; `le` bounds the same way (expfmt writeFloat);
- no `_created` series (client_golang has none in this format);
- families sorted by name, each family's series by their label values, label names sorted
  with `le` last, a histogram series' buckets then `_sum` then `_count` (registry.Gather,
  internal.NormalizeMetricFamilies);
- a labelled family with no series yet is left out, HELP and TYPE included.

Upstream: prometheus/common expfmt/text_create.go (MetricFamilyToText, writeFloat,
escaping), prometheus/client_golang prometheus/registry.go (Gather).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Final

from prometheus_client import CollectorRegistry
from prometheus_client.core import Metric
from prometheus_client.samples import Sample

__all__ = ["CONTENT_TYPE", "exposition", "go_float"]

CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8; escaping=underscores"
"""What promhttp answers a scrape with (expfmt.Negotiate: FmtText and the name escaping
scheme, prometheus/common v0.55 on)."""

_TYPES: Final = {"unknown": "untyped", "gaugehistogram": "histogram"}
_SUFFIX_ORDER: Final = {"_bucket": 0, "_sum": 1, "_count": 2}


def go_float(value: float) -> str:
    """`value` as Go's expfmt writes a sample value or bucket bound."""
    f = float(value)
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if f == 0:
        return "0"
    # shortest round-trip digits (Python's repr and Go's 'g' with precision -1 agree on
    # them); Go then writes an exponent below 1e-4 and from 1e+06 on
    sign, digits, exponent = Decimal(repr(f)).normalize().as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits))
    point = len(text) + exponent  # digits before the decimal point
    exp10 = point - 1
    minus = "-" if sign else ""
    if exp10 < -4 or exp10 >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{minus}{mantissa}e{'-' if exp10 < 0 else '+'}{abs(exp10):02d}"
    if point <= 0:
        return f"{minus}0.{'0' * -point}{text}"
    if point >= len(text):
        return f"{minus}{text}{'0' * (point - len(text))}"
    return f"{minus}{text[:point]}.{text[point:]}"


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _escape_value(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _series_key(sample: Sample) -> tuple[tuple[str, ...], int, float]:
    names = sorted(k for k in sample.labels if k != "le")
    values = tuple(sample.labels[k] for k in names)
    suffix = next((s for s in _SUFFIX_ORDER if sample.name.endswith(s)), "")
    bound = float(sample.labels["le"]) if "le" in sample.labels else 0.0
    return values, _SUFFIX_ORDER.get(suffix, 0), bound


def _sample_line(sample: Sample) -> str:
    names = sorted(k for k in sample.labels if k != "le")
    pairs = [f'{k}="{_escape_value(sample.labels[k])}"' for k in names]
    if "le" in sample.labels:
        pairs.append(f'le="{go_float(float(sample.labels["le"]))}"')
    labels = "{" + ",".join(pairs) + "}" if pairs else ""
    return f"{sample.name}{labels} {go_float(sample.value)}\n"


def _family_text(family: Metric) -> str:
    name = family.name + "_total" if family.type == "counter" else family.name
    samples: Sequence[Sample] = [s for s in family.samples if not s.name.endswith("_created")]
    if not samples:
        return ""
    ordered = sorted(samples, key=_series_key)
    head = (
        f"# HELP {name} {_escape_help(family.documentation)}\n"
        f"# TYPE {name} {_TYPES.get(family.type, family.type)}\n"
    )
    return head + "".join(_sample_line(s) for s in ordered)


def exposition(registry: CollectorRegistry | Iterable[Metric]) -> bytes:
    """Every family `registry` collects, in the text format kube-scheduler serves."""
    families = registry.collect() if isinstance(registry, CollectorRegistry) else registry
    ordered = sorted(families, key=lambda f: f.name + "_total" if f.type == "counter" else f.name)
    return "".join(_family_text(f) for f in ordered).encode()
