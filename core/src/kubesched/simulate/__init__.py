"""Simulation: manifests in, the scheduler on virtual time, results and reports out."""

from kubesched.hookspecs import ReportSection
from kubesched.simulate._manifests import LoadedManifests, SkippedObject, load_manifests
from kubesched.simulate._results import NodeAllocation, PodOutcome, PodResult, SimulationResult
from kubesched.simulate._run import Progress, Simulation, simulate
from kubesched.simulate._scenario import Checkpoint, Scenario, load_scenario

__all__ = [
    "Checkpoint",
    "LoadedManifests",
    "NodeAllocation",
    "PodOutcome",
    "PodResult",
    "Progress",
    "ReportSection",
    "Scenario",
    "Simulation",
    "SimulationResult",
    "SkippedObject",
    "load_manifests",
    "load_scenario",
    "simulate",
]
