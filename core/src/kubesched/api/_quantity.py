"""Kubernetes resource quantities ("500m", "1.5Gi", "2e3"), parsed exactly.

The grammar and rounding follow upstream's ``resource.Quantity``
(``pkg/api/resource/quantity.go`` in kubernetes/apimachinery)::

    <quantity>        ::= <signedNumber><suffix>
    <signedNumber>    ::= <number> | <sign><number>
    <number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
    <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
    <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
    <decimalSI>       ::= n | u | m | "" | k | M | G | T | P | E
    <decimalExponent> ::= "e" <signedInteger> | "E" <signedInteger>

Values are :class:`fractions.Fraction` in base units (cores, bytes, pods), never floats.
"""

from __future__ import annotations

import functools
import math
import re
from fractions import Fraction
from typing import Final

from kubesched._errors import QuantityError

__all__ = ["int_value", "milli_value", "parse_quantity"]

# Suffix -> exponent: of 1024 for binary SI, of 10 for decimal SI.
_BINARY_SI: Final = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL_SI: Final = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}

# Alternatives are tried in order, so "1E3" is an exponent while "1E" is exa.
# Upstream's scanner also takes a number without digits ("", ".", "-", "Ki") as zero; the
# documented grammar does not, and neither do we.
_QUANTITY_RE: Final = re.compile(
    r"""
    (?P<sign>[+-])?
    (?:(?P<whole>[0-9]+)(?:\.(?P<frac>[0-9]*))? | \.(?P<frac_only>[0-9]+))
    (?:
        (?P<binary>Ki|Mi|Gi|Ti|Pi|Ei)
      | [eE](?P<exponent>[+-]?[0-9]+)
      | (?P<decimal>[numkMGTPE]?)
    )
    """,
    re.VERBOSE | re.ASCII,
)

# Far beyond any real quantity; keeps "1e999999999" from making us compute 10**999999999.
_MAX_EXPONENT: Final = 1000

# Upstream keeps a parsed value only down to nano, rounding finer values away from zero
# ("0.9n" is 1n, ".000000000001Ki" is 2n): "if you want some resources, you should get some".
_NANO: Final = 10**9


def _round_away_from_zero(value: Fraction) -> int:
    # Upstream's Value/MilliValue/RoundUp round away from zero: 1.1 -> 2, -1.1 -> -2.
    magnitude = math.ceil(abs(value))
    return magnitude if value >= 0 else -magnitude


@functools.lru_cache(maxsize=4096)
def _parse_text(text: str) -> Fraction:
    match = _QUANTITY_RE.fullmatch(text.strip())
    if match is None:
        raise QuantityError(text)
    whole = match["whole"] or ""
    frac = match["frac"] or match["frac_only"] or ""
    try:
        value = Fraction(int(whole + frac or "0"), 10 ** len(frac))
    except ValueError:  # more digits than int() accepts (sys.get_int_max_str_digits)
        raise QuantityError(text, "the number has too many digits") from None
    if match["sign"] == "-":
        value = -value

    if match["binary"] is not None:
        value *= 1024 ** _BINARY_SI[match["binary"]]
    else:
        if match["exponent"] is not None:
            exponent = int(match["exponent"])
            if abs(exponent) > _MAX_EXPONENT:
                raise QuantityError(
                    text, f"the exponent must be between -{_MAX_EXPONENT} and {_MAX_EXPONENT}"
                )
        else:
            exponent = _DECIMAL_SI[match["decimal"]]
        value *= Fraction(10) ** exponent

    # Upstream also caps binary-suffixed values at 2**63 - 1 ("8Ei"); we keep them exact, as
    # upstream does for decimal ones, and leave overflow checks to whoever needs an int64.
    if (value * _NANO).denominator != 1:
        value = Fraction(_round_away_from_zero(value * _NANO), _NANO)
    return value


def parse_quantity(value: str | int | float) -> Fraction:
    """Return the exact value of a Kubernetes quantity, in base units.

    ``value`` is quantity text (``"100m"``, ``"1.5Gi"``, ``"1e3"``; surrounding whitespace is
    ignored) or a YAML number (``int`` or ``float``; a float is read from its shortest decimal
    form, ``str(value)``, so ``0.1`` is exactly 1/10). Values finer than 1n are rounded away
    from zero to 1n, as upstream does.

    Raises :class:`~kubesched._errors.QuantityError` (a ``ValueError``) for anything else,
    including ``bool``.
    """
    # bool is an int subclass, but `cpu: true` in a manifest is a mistake, not 1 core.
    if isinstance(value, bool):
        raise QuantityError(str(value), "expected a string or a number, not a boolean")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return _parse_text(str(value))
    if isinstance(value, str):
        return _parse_text(value)
    raise QuantityError(
        repr(value), f"expected a string or a number, not {type(value).__qualname__}"
    )


def _as_fraction(value: str | int | float | Fraction) -> Fraction:
    if isinstance(value, Fraction):
        return value
    return parse_quantity(value)


def milli_value(value: str | int | float | Fraction) -> int:
    """Return ``value`` in thousandths (millicores for cpu), rounded away from zero.

    ``value`` is anything :func:`parse_quantity` accepts, or a value it returned. As upstream's
    ``Quantity.MilliValue``, a fraction of a milli rounds up: ``"0.0001"`` is 1.
    """
    return _round_away_from_zero(_as_fraction(value) * 1000)


def int_value(value: str | int | float | Fraction) -> int:
    """Return ``value`` as an integer (bytes, pods), rounded away from zero.

    ``value`` is anything :func:`parse_quantity` accepts, or a value it returned. As upstream's
    ``Quantity.Value``, a fraction rounds up: ``"1.5"`` is 2 and ``"100m"`` is 1.
    """
    return _round_away_from_zero(_as_fraction(value))
