"""Reports people would rather look at: the simulation's JSON document with its version and
published JSON Schema, and a self-contained HTML page (`kubesched simulate --report`).

    log = AttemptLog()
    result = simulate(paths, observers=[log])
    page = render_html(html_document(result, attempts=log.attempts, cluster=log.cluster,
                                     title="..."))

Layer: beside `simulate` (it reads a SimulationResult and observes the scheduling loop);
only the CLI is above it.
"""

from kubesched.report._attempts import AttemptLog, ClusterWatch, compact_attempt, expand_attempt
from kubesched.report._document import html_document, json_document
from kubesched.report._format import format_amount
from kubesched.report._html import render_html
from kubesched.report._models import REPORT_VERSION, AttemptRecord, PodDetails, SimulationReport
from kubesched.report._schema import model_schema, published_schema, report_schema, schema_text

__all__ = [
    "REPORT_VERSION",
    "AttemptLog",
    "AttemptRecord",
    "ClusterWatch",
    "PodDetails",
    "SimulationReport",
    "compact_attempt",
    "expand_attempt",
    "format_amount",
    "html_document",
    "json_document",
    "model_schema",
    "published_schema",
    "render_html",
    "report_schema",
    "schema_text",
]
