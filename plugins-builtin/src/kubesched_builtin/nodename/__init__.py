"""NodeName: a pod with `spec.nodeName` set fits only that node."""

from kubesched_builtin.nodename.plugin import ERR_REASON, NodeName

__all__ = ["ERR_REASON", "NodeName"]
