"""The scheduler cache: nodes and the pods on them as the scheduler sees them.

`SchedulerCache` takes informer events and the scheduler's assume/forget decisions and brings a
`kubesched.framework.Snapshot` up to date at the start of each cycle. `NodeTree` gives the node
order (zones interleaved); `ImageStates` tracks which nodes hold which images.
Imports only `kubesched.api` and `kubesched.framework`.
"""

from kubesched.cache._cache import CacheError, SchedulerCache
from kubesched.cache._images import ImageStates
from kubesched.cache._node_tree import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    NodeTree,
    get_zone_key,
)

__all__ = [
    "LABEL_FAILURE_DOMAIN_BETA_REGION",
    "LABEL_FAILURE_DOMAIN_BETA_ZONE",
    "LABEL_TOPOLOGY_REGION",
    "LABEL_TOPOLOGY_ZONE",
    "CacheError",
    "ImageStates",
    "NodeTree",
    "SchedulerCache",
    "get_zone_key",
]
