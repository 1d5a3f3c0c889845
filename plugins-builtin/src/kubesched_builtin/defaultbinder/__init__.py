"""DefaultBinder: binds through the cluster's pods/binding subresource."""

from kubesched_builtin.defaultbinder.plugin import DefaultBinder

__all__ = ["DefaultBinder"]
