"""kubesched-volumebinding: PV/PVC binding and dynamic provisioning.

The package is a placeholder for now: it installs, and its plugin comes in a later release.
"""

__version__ = "0.0.1"

__all__ = ["__version__"]
