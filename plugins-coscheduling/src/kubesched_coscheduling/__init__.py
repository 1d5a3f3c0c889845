"""kubesched-coscheduling: gang scheduling for kubesched, compatible with scheduler-plugins.

- `PodGroup` (`scheduling.x-k8s.io/v1alpha1`): pods join with the label
  `scheduling.x-k8s.io/pod-group: <name>`; registered by the `kubesched` hook module
  `kubesched_coscheduling.hooks`, which also contributes the PodGroup status controller.
- `Coscheduling`: the plugin (QueueSort, PreEnqueue, PreFilter, PostFilter, Reserve,
  Permit), entry point `kubesched.plugins` name `Coscheduling`.

Layers: `names` -> `podgroup` (the kind, member index, status controller) ->
`coscheduling` (the plugin) -> `hooks`.
"""

from kubesched_coscheduling.coscheduling import Coscheduling, CoschedulingArgs
from kubesched_coscheduling.names import API_VERSION, COSCHEDULING, POD_GROUP_LABEL
from kubesched_coscheduling.podgroup import (
    POD_GROUP_KIND_INFO,
    PodGroup,
    PodGroupCondition,
    PodGroupController,
    PodGroupSpec,
    PodGroupStatus,
)

__version__ = "0.0.1"

__all__ = [
    "API_VERSION",
    "COSCHEDULING",
    "POD_GROUP_KIND_INFO",
    "POD_GROUP_LABEL",
    "Coscheduling",
    "CoschedulingArgs",
    "PodGroup",
    "PodGroupCondition",
    "PodGroupController",
    "PodGroupSpec",
    "PodGroupStatus",
    "__version__",
]
