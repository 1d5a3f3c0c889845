"""NodePorts: host-port conflicts (PreFilter, Filter)."""

from kubesched_builtin.nodeports.plugin import (
    ERR_REASON,
    PRE_FILTER_STATE_KEY,
    NodePorts,
    fits_ports,
    host_ports,
)

__all__ = ["ERR_REASON", "PRE_FILTER_STATE_KEY", "NodePorts", "fits_ports", "host_ports"]
