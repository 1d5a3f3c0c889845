"""Comparing scheduler configurations: the same input simulated under each configuration
(and seed), their outcomes side by side (`kubesched compare`).

    document = compare(["cluster/"], ["least.yaml", "most.yaml"], seeds=[0, 1])
    page = render_comparison_html(document)

Layer: beside `simulate` and `report` (it runs simulations and reads their results); only
the CLI is above it.
"""

from kubesched.compare._html import allocation_maps, render_comparison_html
from kubesched.compare._metrics import placements, run_metrics, zone_skew
from kubesched.compare._models import ComparisonReport, RunMetrics
from kubesched.compare._run import DEFAULT_CONFIG, Variant, compare, variants
from kubesched.compare._schema import comparison_schema
from kubesched.compare._table import METRICS, comparison_rows

__all__ = [
    "DEFAULT_CONFIG",
    "METRICS",
    "ComparisonReport",
    "RunMetrics",
    "Variant",
    "allocation_maps",
    "compare",
    "comparison_rows",
    "comparison_schema",
    "placements",
    "render_comparison_html",
    "run_metrics",
    "variants",
    "zone_skew",
]
