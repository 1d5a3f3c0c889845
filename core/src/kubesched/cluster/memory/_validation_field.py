"""What the memory cluster's validation needs beyond `kubesched.api.field` and
`kubesched.api.validation`: object-name rules and the canonical text of a quantity.

upstream: pkg/api/validation/objectmeta.go (NameIsDNSSubdomain, NameIsDNSLabel) and
staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go (String).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from kubesched.api.validation import is_dns1123_label, is_dns1123_subdomain

__all__ = ["name_is_dns_label", "name_is_dns_subdomain", "quantity_string"]


# -- resource quantities ---------------------------------------------------------------------

_DECIMAL_SUFFIXES: Final = {
    -9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"
}  # fmt: skip
_BINARY_SUFFIXES: Final = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


def quantity_string(value: Fraction) -> str:
    """The canonical form `resource.Quantity.String()` gives a value: ``500m``, ``1k``,
    ``1536Mi``.

    upstream: staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go
    (CanonicalizeBytes). Deviation: a parsed quantity keeps the format it was written in,
    which our exact values no longer carry; a whole multiple of 1024 (at least 1Ki) is
    written in binary units when that is shorter than in decimal ones (``1Gi``, ``1536Mi``
    but ``2G``).
    """
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    decimal = _decimal_si(magnitude)
    if magnitude.denominator == 1 and magnitude >= 1024 and magnitude % 1024 == 0:
        amount, power = int(magnitude), 0
        while amount % 1024 == 0 and power < len(_BINARY_SUFFIXES) - 1:
            amount, power = amount // 1024, power + 1
        binary = f"{amount}{_BINARY_SUFFIXES[power]}"
        if len(binary) < len(decimal):
            return sign + binary
    return sign + decimal


def _decimal_si(magnitude: Fraction) -> str:
    # mantissa * 10**exponent with the mantissa free of factors of 10, then the exponent
    # lowered to a multiple of 3 (AsCanonicalBytes); values are exact to 1n
    mantissa, exponent = int(magnitude * 10**9), -9
    while mantissa % 10 == 0:
        mantissa, exponent = mantissa // 10, exponent + 1
    while exponent % 3:
        mantissa, exponent = mantissa * 10, exponent - 1
    return f"{mantissa}{_DECIMAL_SUFFIXES.get(exponent, f'e{exponent}')}"


# -- object names ----------------------------------------------------------------------------


def _mask_trailing_dash(name: str) -> str:
    # upstream maskTrailingDash: a generateName prefix may end in '-'
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def name_is_dns_subdomain(name: str, prefix: bool = False) -> list[str]:
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool = False) -> list[str]:
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)
