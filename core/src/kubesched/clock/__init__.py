"""Clocks (wall and virtual) and the virtual-time event loop simulations run on.

Bottom layer beside `kubesched.api`: imports nothing else from kubesched.
"""

from kubesched.clock._clock import Clock, VirtualClock, WallClock
from kubesched.clock._virtual_loop import IdleCallback, VirtualTimeLoop

__all__ = ["Clock", "IdleCallback", "VirtualClock", "VirtualTimeLoop", "WallClock"]
