"""kubesched-builtin: the default plugin set, ported from kube-scheduler's in-tree plugins.

Every plugin here is registered through the ``kubesched.plugins`` entry point group and uses
only kubesched's public API, like any third-party plugin package.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
