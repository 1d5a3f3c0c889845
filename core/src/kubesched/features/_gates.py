"""Parsing gates as kube-scheduler's `--feature-gates` does, and the values in force.

Upstream: staging/src/k8s.io/component-base/featuregate/feature_gate.go (Set,
unsafeSetFromMap, SetFromMap, setUnsetAlphaGates / setUnsetBetaGates): the same syntax
(`Name=bool,...`, an optional `kube:` component prefix), the same checks in the same order
and the same messages, each prefixed with where the text came from. Gates are checked in the
order written (upstream walks a Go map, in no fixed order).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from functools import lru_cache
from typing import Final

from kubesched._errors import KubeschedError
from kubesched.api.field import aggregate
from kubesched.features._table import FEATURE_GATES

__all__ = [
    "ENV_VAR",
    "FLAG",
    "FeatureGateError",
    "feature_enabled",
    "feature_gates",
    "parse_feature_gates",
    "set_feature_gates",
]

ENV_VAR: Final = "KUBESCHED_FEATURE_GATES"
FLAG: Final = "--feature-gates"

_log = logging.getLogger("kubesched.features")

_COMPONENT: Final = "kube:"
_TRUE: Final = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE: Final = frozenset({"0", "f", "F", "FALSE", "false", "False"})
_SPECIAL: Final = {"AllAlpha": "ALPHA", "AllBeta": "BETA"}

_flag_raw = ""
"""The gates `set_feature_gates` was last given (the command line's `--feature-gates`)."""


class FeatureGateError(KubeschedError, ValueError):
    """A feature-gate list that kube-scheduler would refuse; `source` says where it was
    written (`--feature-gates` or the environment variable)."""

    def __init__(self, source: str, message: str) -> None:
        super().__init__(source, message)
        self.source = source
        self.message = message

    def __str__(self) -> str:
        return f"{self.source}: {self.message}"


def parse_feature_gates(raw: str, source: str = ENV_VAR) -> dict[str, bool]:
    """The gates `raw` sets (`Name=true,Other=false`), in order, after upstream's checks: a
    value Go's strconv.ParseBool rejects, an unknown gate, or a locked gate set away from
    its default is a FeatureGateError. Setting a GA gate logs upstream's warning."""
    values = _split(raw, source)
    _check(values, source)
    return values


def set_feature_gates(raw: str) -> None:
    """Set the gates as `--feature-gates` does: they win, gate by gate, over those of the
    environment variable, which is checked too. An empty string clears them."""
    global _flag_raw
    _values(os.environ.get(ENV_VAR, ""), raw)  # raises if either is wrong
    _flag_raw = raw


def feature_gates() -> dict[str, bool]:
    """Every known gate's value in force: `--feature-gates`, else the environment variable,
    else AllAlpha / AllBeta when set, else the v1.34 default."""
    return dict(_values(os.environ.get(ENV_VAR, ""), _flag_raw))


def feature_enabled(name: str) -> bool:
    """Whether gate `name` is on. A name missing from FEATURE_GATES is a programming error
    (KeyError), as upstream's Enabled panics on an unknown gate."""
    gate = FEATURE_GATES[name]
    return _values(os.environ.get(ENV_VAR, ""), _flag_raw).get(gate.name, gate.default)


@lru_cache(maxsize=16)
def _values(env_raw: str, flag_raw: str) -> Mapping[str, bool]:
    explicit = parse_feature_gates(env_raw, ENV_VAR)
    explicit.update(parse_feature_gates(flag_raw, FLAG))
    values = {name: gate.default for name, gate in FEATURE_GATES.items()}
    for special, stage in _SPECIAL.items():
        if special in explicit:
            # upstream setUnsetAlphaGates / setUnsetBetaGates
            for name, gate in FEATURE_GATES.items():
                if gate.stage == stage and name not in _SPECIAL and name not in explicit:
                    values[name] = explicit[special]
    values.update(explicit)
    return values


def _split(raw: str, source: str) -> dict[str, bool]:
    # upstream: featureGate.Set
    values: dict[str, bool] = {}
    for item in raw.split(","):
        if not item:
            continue
        key, sep, value = item.partition("=")
        key = key.strip().removeprefix(_COMPONENT)
        if not sep:
            raise FeatureGateError(source, f"missing bool value for {key}")
        value = value.strip()
        if value in _TRUE or value in _FALSE:
            values[key] = value in _TRUE
            continue
        err = f"strconv.ParseBool: parsing {json.dumps(value, ensure_ascii=False)}: invalid syntax"
        raise FeatureGateError(source, f"invalid value of {key}={value}, err: {err}")
    return values


def _check(values: Mapping[str, bool], source: str) -> None:
    # upstream: featureGate.unsafeSetFromMap; errors aggregated as utilerrors does
    errors: list[str] = []
    for name, value in values.items():
        gate = FEATURE_GATES.get(name)
        if gate is None:
            errors.append(f"unrecognized feature gate: {name}")
            break
        if gate.locked and value != gate.default:
            errors.append(
                f"cannot set feature gate {name} to {_go(value)}, "
                f"feature is locked to {_go(gate.default)}"
            )
            continue
        if gate.stage == "GA":
            _log.warning(
                "Setting GA feature gate %s=%s. It will be removed in a future release.",
                name,
                _go(value),
            )
        elif gate.stage == "DEPRECATED":
            _log.warning(
                "Setting deprecated feature gate %s=%s. It will be removed in a future release.",
                name,
                _go(value),
            )
    if errors:
        raise FeatureGateError(source, aggregate(errors))


def _go(value: bool) -> str:
    return "true" if value else "false"
