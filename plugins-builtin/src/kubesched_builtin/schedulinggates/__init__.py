"""SchedulingGates: keeps pods with `spec.schedulingGates` out of the active queue."""

from kubesched_builtin.schedulinggates.plugin import SchedulingGates

__all__ = ["SchedulingGates"]
