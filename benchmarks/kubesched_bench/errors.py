"""Why a benchmark run could not produce a result.

`BenchmarkError` is a run that ended without its pods (or gangs, or claims) all bound: the
command line prints it and exits 1. `MissingPackageError` is a workload that cannot run at
all because a plugin package it needs is not installed: the command line exits 2.
"""

from __future__ import annotations

__all__ = ["BenchmarkError", "MissingPackageError"]


class BenchmarkError(RuntimeError):
    """The workload could not complete: some pods, gangs or claims were never bound."""


class MissingPackageError(BenchmarkError):
    """A workload needs a distribution that is not installed; the message names it and
    how to install it."""
