"""Simulation: manifests in, the scheduler on virtual time, results and reports out."""

from kubesched.hookspecs import ReportSection
from kubesched.simulate._manifests import LoadedManifests, SkippedObject, load_manifests
from kubesched.simulate._results import NodeAllocation, PodOutcome, PodResult, SimulationResult
from kubesched.simulate._run import Progress, Simulation, simulate

__all__ = [
    "LoadedManifests",
    "NodeAllocation",
    "PodOutcome",
    "PodResult",
    "Progress",
    "ReportSection",
    "Simulation",
    "SimulationResult",
    "SkippedObject",
    "load_manifests",
    "simulate",
]
