"""Semantic versions as the Kubernetes CEL semver library reads them.

upstream: github.com/blang/semver/v4 (Parse, Version.Compare), which
k8s.io/apiserver/pkg/cel/library/semverlib.go uses, and its normalizeAndParse for
``semver(s, true)``. Messages are blang's, so a CEL runtime error reads as upstream's.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Final

__all__ = ["SemverError", "Version", "normalize_and_parse", "parse_semver"]

_NUMBERS: Final = frozenset("0123456789")
_ALPHANUM: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")
_UINT64_MAX: Final = 2**64 - 1


class SemverError(ValueError):
    """A version string blang/semver rejects; the message is blang's."""


def _quote(text: str) -> str:
    # Go's %q for the ASCII text a version holds.
    return json.dumps(text)


def _has_leading_zeroes(text: str) -> bool:
    return len(text) > 1 and text[0] == "0"


def _parse_uint(text: str, what: str) -> int:
    if not set(text) <= _NUMBERS:
        raise SemverError(f"Invalid character(s) found in {what} number {_quote(text)}")
    if _has_leading_zeroes(text):
        raise SemverError(
            f"{what.capitalize()} number must not contain leading zeroes {_quote(text)}"
        )
    if not text or int(text) > _UINT64_MAX:
        reason = "invalid syntax" if not text else "value out of range"
        raise SemverError(f"strconv.ParseUint: parsing {_quote(text)}: {reason}")
    return int(text)


def _prerelease_part(text: str) -> int | str:
    if not text:
        raise SemverError("Prerelease is empty")
    if set(text) <= _NUMBERS:
        if _has_leading_zeroes(text):
            raise SemverError(
                f"Numeric PreRelease version must not contain leading zeroes {_quote(text)}"
            )
        return int(text)
    if not set(text) <= _ALPHANUM:
        raise SemverError(f"Invalid character(s) found in prerelease {_quote(text)}")
    return text


@dataclass(frozen=True, slots=True)
class Version:
    """A parsed version; build metadata is kept but, as in blang, never compared."""

    major: int
    minor: int
    patch: int
    pre: tuple[int | str, ...] = ()
    build: tuple[str, ...] = ()

    def compare(self, other: Version) -> int:
        """-1, 0 or 1 as blang's Version.Compare (semver 2.0.0 precedence)."""
        mine = (self.major, self.minor, self.patch)
        theirs = (other.major, other.minor, other.patch)
        if mine != theirs:
            return -1 if mine < theirs else 1
        if not self.pre or not other.pre:
            # A version without prerelease ranks above one with it.
            return (not self.pre) - (not other.pre)
        for a, b in zip(self.pre, other.pre, strict=False):
            if a == b:
                continue
            if isinstance(a, int) != isinstance(b, int):
                # Numeric identifiers rank below alphanumeric ones.
                return -1 if isinstance(a, int) else 1
            return -1 if a < b else 1  # type: ignore[operator]  # same type, checked above
        return (len(self.pre) > len(other.pre)) - (len(self.pre) < len(other.pre))

    def canonical(self) -> str:
        """The version without build metadata: equal strings mean equal versions."""
        core = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            core += "-" + ".".join(str(p) for p in self.pre)
        return core


@functools.lru_cache(maxsize=4096)
def parse_semver(text: str) -> Version:
    """blang/semver's strict Parse: ``MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]``."""
    if not text:
        raise SemverError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise SemverError("No Major.Minor.Patch elements found")
    major = _parse_uint(parts[0], "major")
    minor = _parse_uint(parts[1], "minor")
    patch_text = parts[2]
    build: list[str] = []
    prerelease: list[str] = []
    if "+" in patch_text:
        patch_text, build_text = patch_text.split("+", 1)
        build = build_text.split(".")
    if "-" in patch_text:
        patch_text, pre_text = patch_text.split("-", 1)
        prerelease = pre_text.split(".")
    patch = _parse_uint(patch_text, "patch")
    pre = tuple(_prerelease_part(p) for p in prerelease)
    for part in build:
        if not part:
            raise SemverError("Build meta data is empty")
        if not set(part) <= _ALPHANUM:
            raise SemverError(f"Invalid character(s) found in build meta data {_quote(part)}")
    return Version(major, minor, patch, pre, tuple(build))


def normalize_and_parse(text: str) -> Version:
    """``semver(s, true)``: without a leading ``v``, with missing minor and patch as 0 and
    leading zeros dropped (upstream semverlib.go, normalizeAndParse)."""
    text = text.removeprefix("v")
    parts = text.split(".", 2)
    for i, part in enumerate(parts):
        if len(part) > 1:
            part = part.lstrip("0")
            if not part or part[0] not in _NUMBERS:
                part = "0" + part
            parts[i] = part
    if len(parts) < 3:
        if "+" in parts[-1] or "-" in parts[-1]:
            raise SemverError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return parse_semver(".".join(parts))
