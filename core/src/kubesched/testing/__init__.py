"""Testing helpers shipped for plugin authors: builders for pods and nodes.

(The conformance kit, a pytest plugin, will live here too.)
"""

from kubesched.testing._builders import NodeBuilder, PodBuilder, make_node, make_pod

__all__ = ["NodeBuilder", "PodBuilder", "make_node", "make_pod"]
