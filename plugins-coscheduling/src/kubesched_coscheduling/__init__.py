"""kubesched-coscheduling: gang scheduling (PodGroup and the Coscheduling plugin).

The package is a placeholder for now: it installs, and its plugin comes in a later release.
"""

__version__ = "0.0.1"

__all__ = ["__version__"]
