"""Sweeps: many variants (clusters x scheduler configurations x seeds) simulated in
parallel, on this machine's cores or a Dask cluster, collected into one table
(`kubesched sweep`).

    spec = load_sweep("sweep.yaml")   # or SweepSpec(cluster_inputs([...]), configs, seeds)
    document = sweep(spec)            # jobs=None: a process per core; scheduler="tcp://..."
    page = render_sweep_html(document)

Runs are deterministic and collected in the sweep's order, so a sweep's document is the
same whatever ran it. Layer: above `compare` (its metrics, its table's cells) and `report`
(the page's pieces); only the CLI is above it.
"""

from kubesched.sweep._csv import SWEEP_COLUMNS, write_sweep_csv
from kubesched.sweep._dask import DaskError
from kubesched.sweep._html import render_sweep_html
from kubesched.sweep._models import SweepReport, SweepRun
from kubesched.sweep._run import Progress, sweep
from kubesched.sweep._schema import sweep_schema
from kubesched.sweep._spec import (
    SWEEP_API_VERSION,
    SWEEP_KIND,
    ClusterInput,
    Run,
    SweepSpec,
    cluster_inputs,
    load_sweep,
)
from kubesched.sweep._table import KEY_METRICS, sweep_rows
from kubesched.sweep._task import TaskResult

__all__ = [
    "KEY_METRICS",
    "SWEEP_API_VERSION",
    "SWEEP_COLUMNS",
    "SWEEP_KIND",
    "ClusterInput",
    "DaskError",
    "Progress",
    "Run",
    "SweepReport",
    "SweepRun",
    "SweepSpec",
    "TaskResult",
    "cluster_inputs",
    "load_sweep",
    "render_sweep_html",
    "sweep",
    "sweep_rows",
    "sweep_schema",
    "write_sweep_csv",
]
