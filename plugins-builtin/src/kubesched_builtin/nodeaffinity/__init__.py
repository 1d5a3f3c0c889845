"""NodeAffinity: nodeSelector and node affinity (Filter, Score), with the profile's
`addedAffinity`. `required_node_affinity(pod)` is the parsed form other plugins (topology
spreading) use to decide which nodes a pod may land on."""

from kubesched_builtin.nodeaffinity.args import NodeAffinityArgs
from kubesched_builtin.nodeaffinity.plugin import (
    ERR_REASON_CONFLICT,
    ERR_REASON_ENFORCED,
    ERR_REASON_POD,
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    NodeAffinity,
)
from kubesched_builtin.nodeaffinity.selector import (
    NodeSelectorMatcher,
    PreferredTerms,
    RequiredNodeAffinity,
    required_node_affinity,
)

__all__ = [
    "ERR_REASON_CONFLICT",
    "ERR_REASON_ENFORCED",
    "ERR_REASON_POD",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "NodeAffinity",
    "NodeAffinityArgs",
    "NodeSelectorMatcher",
    "PreferredTerms",
    "RequiredNodeAffinity",
    "required_node_affinity",
]
