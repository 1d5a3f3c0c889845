"""Reports people would rather look at: the simulation's JSON document with its version and
published JSON Schema, and a self-contained HTML page (`kubesched simulate --report`).

    log = AttemptLog()
    result = simulate(paths, observers=[log])
    page = render_html(html_document(result, attempts=log.attempts, cluster=log.cluster,
                                     title="..."))

The page's pieces (`render_page`, the report's models, `tile_map`) serve
`kubesched.compare` too.

Layer: beside `simulate` (it reads a SimulationResult and observes the scheduling loop);
only `compare` and the CLI use it.
"""

from kubesched.report._attempts import AttemptLog, ClusterWatch, compact_attempt, expand_attempt
from kubesched.report._charts import tile_map
from kubesched.report._csv import write_csv
from kubesched.report._details import POD_GROUP_LABEL, ZONE_LABEL
from kubesched.report._document import html_document, json_document
from kubesched.report._format import format_amount
from kubesched.report._html import render_html, render_page
from kubesched.report._models import (
    REPORT_VERSION,
    AttemptRecord,
    LatencyRecord,
    NodeRecord,
    PodDetails,
    ReasonRecord,
    ReportModel,
    SimulationReport,
    SummaryRecord,
)
from kubesched.report._schema import model_schema, published_schema, report_schema, schema_text

__all__ = [
    "POD_GROUP_LABEL",
    "REPORT_VERSION",
    "ZONE_LABEL",
    "AttemptLog",
    "AttemptRecord",
    "ClusterWatch",
    "LatencyRecord",
    "NodeRecord",
    "PodDetails",
    "ReasonRecord",
    "ReportModel",
    "SimulationReport",
    "SummaryRecord",
    "compact_attempt",
    "expand_attempt",
    "format_amount",
    "html_document",
    "json_document",
    "model_schema",
    "published_schema",
    "render_html",
    "render_page",
    "report_schema",
    "schema_text",
    "tile_map",
    "write_csv",
]
