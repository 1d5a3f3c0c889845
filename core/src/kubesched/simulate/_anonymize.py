"""Stable renaming of a snapshot's names, namespaces and label values (`kubesched snapshot
--anonymize`), so that a cluster's shape can be shared without what it is called.

What a scheduler compares stays equal where it was equal, because every string is renamed by
one function of the string itself:

- a Node's name becomes `node-` and ten characters, wherever it is written whole (the Node,
  `nodeName`, `nominatedNodeName`, the `kubernetes.io/hostname` label, `matchFields` on
  `metadata.name`, a CSINode) and at the end of a name after a `-` (a static pod's mirror,
  `kube-apiserver-<node>`);
- every other name or label value is split at `-`, `.` and `_`, and each word is replaced by a
  pseudonym of the same length (a lowercase letter, then letters and digits): numbers stay,
  so a StatefulSet's ordinals and the names controllers derive from their owner's
  (`web-7d4b9c-x2x7k`, `data-db-0`) keep their structure; a few Kubernetes words stay
  (`default`, `kube`, `system`, `node`, `critical`, ...), so `kube-system` and
  `system-node-critical` keep their meaning;
- an object's uid, and a label value equal to one (a Job's controller-uid), are kept.

Renamed: every metadata's name, generateName and namespace (templates included), label values
(keys stay), ownerReferences' names, the values of label selectors (`matchLabels`,
`matchExpressions`, `matchLabelExpressions`), node selectors and `matchFields`, the namespaces
of affinity terms, and the references by name (`nodeName`, `serviceName`, `claimName`,
`volumeName`, `storageClassName`, `priorityClassName`, `claimRef`, container, volume and
claim names ...). Dropped: annotations other than the ones a simulation reads
(`simulation.kubesched.io/`, `scheduling.k8s.io/`, `scheduling.x-k8s.io/`,
`kubernetes.io/config.` of static pods, `deployment.kubernetes.io/`,
`cluster-autoscaler.kubernetes.io/`, and the volume ones: `pv.kubernetes.io/`,
`volume.kubernetes.io/` with a claim's selected node renamed, `storageclass.kubernetes.io/`
...), and addresses and machine identities (pod and host IPs, node addresses, nodeInfo,
providerID, pod CIDRs). Images, taints, resources and label keys are left as they are.

Pseudonyms are a hash of the word (and of `salt`, to make them unguessable), taken in a fixed
order with collisions resolved, so the same cluster always gives the same snapshot.
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Iterable
from typing import Any, Final

__all__ = ["KEPT_WORDS", "Anonymizer"]

KEPT_WORDS: Final = frozenset(
    {
        "default",
        "kube",
        "system",
        "public",
        "node",
        "lease",
        "critical",
        "cluster",
        "true",
        "false",
        "linux",
        "windows",
        "amd64",
        "arm64",
    }
)
"""Words that keep their meaning (well-known namespaces, PriorityClasses, label values)."""

_SEPARATORS: Final = re.compile(r"([-._])")
_ALNUM: Final = string.ascii_lowercase + string.digits
_NODE_LENGTH: Final = 10

# references to other objects by name (string fields, wherever they appear)
_NAME_REFS: Final = frozenset(
    {
        "nodeName",
        "nominatedNodeName",
        "serviceName",
        "claimName",
        "volumeName",
        "storageClassName",
        "priorityClassName",
        "resourceClaimName",
        "resourceClaimTemplateName",
        "hostname",
        "subdomain",
    }
)
# lists whose items' `name` is referred to by other names (a pod's volume becomes the PVC
# `<pod>-<volume>`, a claim `<pod>-<claim>-...`)
_NAMED_ITEMS: Final = frozenset(
    {
        "volumes",
        "volumeMounts",
        "resourceClaims",
        "claims",
        "containers",
        "initContainers",
        "ephemeralContainers",
    }
)
_EXPRESSIONS: Final = frozenset({"matchExpressions", "matchFields", "matchLabelExpressions"})
_KEPT_ANNOTATIONS: Final = (
    "simulation.kubesched.io/",
    "scheduling.k8s.io/",
    "scheduling.x-k8s.io/",
    "kubernetes.io/config.",
    "deployment.kubernetes.io/",
    "cluster-autoscaler.kubernetes.io/",
    # what the PV controller and volume binding read (pkg/controller/volume/persistentvolume)
    "pv.kubernetes.io/",
    "volume.kubernetes.io/",
    "volume.beta.kubernetes.io/",
    "storageclass.kubernetes.io/",
    "storageclass.beta.kubernetes.io/",
)
# kept annotations whose value is a name: a node (a delayed-binding claim's selected node),
# a StorageClass
_NAMING_ANNOTATIONS: Final = frozenset(
    {"volume.kubernetes.io/selected-node", "volume.beta.kubernetes.io/storage-class"}
)
_DROPPED: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "Pod": {"status": ("podIP", "podIPs", "hostIP", "hostIPs")},
    "Node": {
        "spec": ("providerID", "podCIDR", "podCIDRs"),
        "status": ("addresses", "nodeInfo", "daemonEndpoints"),
    },
}


class Anonymizer:
    """Renames the objects of one snapshot (see the module). Give it every object first, so
    that it knows the Nodes and the uids."""

    def __init__(self, objects: Iterable[dict[str, Any]], *, salt: str = "") -> None:
        self.salt = salt
        self._uids: set[str] = set()
        node_names: list[str] = []
        for obj in objects:
            meta = obj.get("metadata") or {}
            if meta.get("uid"):
                self._uids.add(str(meta["uid"]))
            if obj.get("kind") == "Node" and meta.get("name"):
                node_names.append(str(meta["name"]))
        self._words: dict[str, str] = {}
        self._used: set[str] = set(KEPT_WORDS)
        self._nodes: dict[str, str] = {}
        for name in sorted(node_names):
            self._nodes[name] = self._pseudonym("node", name, _NODE_LENGTH, prefix="node-")

    # -- strings ------------------------------------------------------------------------
    def value(self, text: str) -> str:
        """A name or label value, renamed."""
        if not text or text in self._uids:
            return text
        node = self._nodes.get(text)
        if node is not None:
            return node
        i = text.find("-")
        while i != -1:
            node = self._nodes.get(text[i + 1 :])
            if node is not None:
                return f"{self._words_of(text[:i])}-{node}"
            i = text.find("-", i + 1)
        return self._words_of(text)

    def _words_of(self, text: str) -> str:
        return "".join(
            part if not part or _SEPARATORS.fullmatch(part) else self._word(part)
            for part in _SEPARATORS.split(text)
        )

    def _word(self, word: str) -> str:
        if word.isdigit() or word.lower() in KEPT_WORDS:
            return word
        pseudonym = self._words.get(word)
        if pseudonym is None:
            pseudonym = self._words[word] = self._pseudonym("word", word, len(word))
        return pseudonym

    def _pseudonym(self, space: str, text: str, length: int, *, prefix: str = "") -> str:
        """`prefix` and `length` characters from the hash of (salt, space, text, attempt):
        the first attempt that is not taken (a crowded length grows by one every 20)."""
        attempt = 0
        while True:
            size = length + attempt // 20
            digest = hashlib.sha256(f"{self.salt}\0{space}\0{text}\0{attempt}".encode()).digest()
            while len(digest) < size:
                digest += hashlib.sha256(digest).digest()
            chars = [string.ascii_lowercase[digest[0] % 26]]
            chars += [_ALNUM[b % len(_ALNUM)] for b in digest[1:size]]
            candidate = prefix + "".join(chars)
            if candidate not in self._used:
                self._used.add(candidate)
                return candidate
            attempt += 1

    # -- objects ------------------------------------------------------------------------
    def apply(self, obj: dict[str, Any]) -> dict[str, Any]:
        """A renamed copy of one object (raw JSON), its identifying addresses dropped."""
        renamed: dict[str, Any] = self._walk(obj, "")
        for part, fields in _DROPPED.get(str(obj.get("kind")), {}).items():
            section = renamed.get(part)
            if isinstance(section, dict):
                for name in fields:
                    section.pop(name, None)
        return renamed

    def _walk(self, node: Any, key: str) -> Any:
        if isinstance(node, list):
            if key in _NAMED_ITEMS:
                return [self._named_item(item) for item in node]
            if key == "namespaces":
                return [self.value(v) if isinstance(v, str) else v for v in node]
            return [self._walk(item, key) for item in node]
        if not isinstance(node, dict):
            return node
        if key == "metadata":
            return self._metadata(node)
        if key in ("matchLabels", "nodeSelector") and all(
            isinstance(v, str) for v in node.values()
        ):
            return {k: self.value(v) for k, v in node.items()}
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k in _NAME_REFS and isinstance(v, str):
                out[k] = self.value(v)
            elif k == "claimRef" and isinstance(v, dict):
                out[k] = self._reference(v)
            elif k in _EXPRESSIONS and isinstance(v, list):
                out[k] = [self._expression(e) for e in v]
            else:
                out[k] = self._walk(v, k)
        return out

    def _named_item(self, item: Any) -> Any:
        walked = self._walk(item, "")
        if isinstance(walked, dict) and isinstance(walked.get("name"), str):
            walked["name"] = self.value(walked["name"])
        return walked

    def _expression(self, expression: Any) -> Any:
        if not isinstance(expression, dict):
            return expression
        out = dict(expression)
        values = out.get("values")
        if isinstance(values, list):
            out["values"] = [self.value(v) if isinstance(v, str) else v for v in values]
        return out

    def _reference(self, ref: dict[str, Any]) -> dict[str, Any]:
        out = dict(ref)
        for name in ("name", "namespace"):
            if isinstance(out.get(name), str):
                out[name] = self.value(out[name])
        return out

    def _metadata(self, meta: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in meta.items():
            if k in ("name", "generateName", "namespace") and isinstance(v, str):
                out[k] = self.value(v)
            elif k == "labels" and isinstance(v, dict):
                out[k] = {lk: self.value(lv) if isinstance(lv, str) else lv for lk, lv in v.items()}
            elif k == "annotations" and isinstance(v, dict):
                kept = {
                    ak: self.value(av) if ak in _NAMING_ANNOTATIONS and isinstance(av, str) else av
                    for ak, av in v.items()
                    if ak.startswith(_KEPT_ANNOTATIONS)
                }
                if kept:
                    out[k] = kept
            elif k == "ownerReferences" and isinstance(v, list):
                out[k] = [self._reference(r) if isinstance(r, dict) else r for r in v]
            else:
                out[k] = v
        return out
