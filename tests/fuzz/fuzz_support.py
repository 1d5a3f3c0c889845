"""Budgets and mutation strategies shared by the fuzz tests.

Each fuzz test runs `FUZZ_EXAMPLES` examples (small by default, so tox stays fast); set
``KUBESCHED_FUZZ_EXAMPLES=5000`` to search longer. Documents are mutated one step at a time
from valid ones: a key deleted, a value's type changed, an unknown key inserted, a value
nested deep, a huge number, odd unicode or a malformed quantity put in its place.
"""

from __future__ import annotations

import copy
import os
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

__all__ = ["FUZZ_SETTINGS", "mutated", "odd_scalars", "odd_text"]

FUZZ_EXAMPLES = int(os.environ.get("KUBESCHED_FUZZ_EXAMPLES", "40"))

FUZZ_SETTINGS = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=FUZZ_EXAMPLES <= 100,  # the default budget is a fixed, repeatable sample
)

# Texts that have broken parsers before: quantities with two dots or a dangling suffix,
# huge exponents, unicode digits and separators, NULs, YAML-special words.
_NASTY = [
    "1.5.3Gi",
    "1e99999999",
    "Ki",
    "-",
    ".",
    "1Gi ",
    "\u0663",  # arabic-indic digit three
    "\uff11",  # fullwidth digit one
    "1\u00a0Gi",
    "\x00",
    "\u202e",
    "\ud7ff",
    "🚀",
    "yes",
    "null",
    "~",
    "NaN",
    "inf",
    "-.inf",
    "0x10",
    "9" * 5000,
    "a" * 300,
    "${HOME}",
    "{{ x }}",
]

odd_text = st.one_of(
    st.sampled_from(_NASTY),
    st.text(max_size=20),
    st.from_regex(
        r"[+-]?[0-9]{0,4}(\.[0-9]{0,3}){0,2}([eE][+-]?[0-9]{1,4}|[numkMGTPE]|[KMGTPE]i)?",
        fullmatch=True,
    ),
)

odd_scalars = st.one_of(
    odd_text,
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([2**63, -(2**63) - 1, 10**40, 2**64]),
    st.floats(allow_nan=True, allow_infinity=True),
)


def _deep(value: Any, depth: int) -> Any:
    for _ in range(depth):
        value = {"x": [value]}
    return value


_replacements = st.one_of(
    odd_scalars,
    st.lists(odd_scalars, max_size=3),
    st.dictionaries(odd_text, odd_scalars, max_size=3),
    st.integers(min_value=20, max_value=150).map(lambda depth: _deep(1, depth)),
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _apply(doc: Any, path: tuple[Any, ...], action: str, new: Any, key: str) -> Any:
    if not path:
        return new if action == "replace" else doc
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if action == "delete":
        del parent[last]
    elif action == "replace":
        parent[last] = new
    elif action == "insert" and isinstance(parent[last], dict):
        parent[last][key] = new
    elif action == "insert" and isinstance(parent[last], list):
        parent[last].append(new)
    else:
        parent[last] = new
    return doc


@st.composite
def mutated(draw: st.DrawFn, original: Any, max_steps: int = 3) -> Any:
    """`original` (left untouched) after 1..max_steps random mutations."""
    doc = copy.deepcopy(original)
    for _ in range(draw(st.integers(min_value=1, max_value=max_steps))):
        path = draw(st.sampled_from(_paths(doc)))
        action = draw(st.sampled_from(["delete", "replace", "insert"]))
        new = draw(_replacements)
        key = draw(st.one_of(odd_text, st.sampled_from(["spec", "metadata", "kind", "zz"])))
        doc = _apply(doc, path, action, new, key)
    return doc
