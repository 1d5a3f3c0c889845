"""Resource quantities parse exactly, with upstream's grammar and rounding.

Cases follow upstream's TestQuantityParse and TestQuantityParseEmit
(pkg/api/resource/quantity_test.go in kubernetes/apimachinery).
"""

from __future__ import annotations

import pickle
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubesched._errors import KubeschedError, QuantityError
from kubesched.api._quantity import int_value, milli_value, parse_quantity

MULTIPLIERS = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
    "Ki": Fraction(2**10),
    "Mi": Fraction(2**20),
    "Gi": Fraction(2**30),
    "Ti": Fraction(2**40),
    "Pi": Fraction(2**50),
    "Ei": Fraction(2**60),
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", Fraction(0)),
        ("1", Fraction(1)),
        ("100m", Fraction(1, 10)),
        ("0.1", Fraction(1, 10)),
        ("1.5Gi", Fraction(3 * 2**29)),
        ("2Ki", Fraction(2048)),
        (".5", Fraction(1, 2)),
        ("5.", Fraction(5)),
        ("1.", Fraction(1)),
        ("-1", Fraction(-1)),
        ("+1", Fraction(1)),
        ("-.5m", Fraction(-1, 2000)),
        ("007", Fraction(7)),
        ("1.5k", Fraction(1500)),
        ("128974848", Fraction(128974848)),
        ("129e6", Fraction(129 * 10**6)),
        ("129M", Fraction(129 * 10**6)),
        ("123Mi", Fraction(123 * 2**20)),
        ("1E", Fraction(10**18)),  # exa, not an exponent
        ("1e3", Fraction(1000)),
        ("1E3", Fraction(1000)),
        ("1e+3", Fraction(1000)),
        ("1E-3", Fraction(1, 1000)),
        ("1.5e-3", Fraction(3, 2000)),
        ("18446744073709551616", Fraction(2**64)),  # decimal values are not capped at int64
        ("1.2345", Fraction(12345, 10000)),  # no limit to three decimal places
        (" 1Gi\n", Fraction(2**30)),  # surrounding whitespace is stripped
    ],
)
def test_parse_quantity_text(text: str, expected: Fraction) -> None:
    assert parse_quantity(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1n", Fraction(1, 10**9)),
        ("0.9n", Fraction(1, 10**9)),
        ("-0.9n", Fraction(-1, 10**9)),
        ("1e-12", Fraction(1, 10**9)),
        (".000000001Ki", Fraction(1024, 10**9)),
        (".000000000001Ki", Fraction(2, 10**9)),
        ("1.0000000001", Fraction(1_000_000_001, 10**9)),
    ],
)
def test_parse_quantity_rounds_below_nano_away_from_zero(text: str, expected: Fraction) -> None:
    assert parse_quantity(text) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, Fraction(0)),
        (3, Fraction(3)),
        (-2, Fraction(-2)),
        (0.1, Fraction(1, 10)),
        (0.5, Fraction(1, 2)),
        (1e20, Fraction(10**20)),
        (2.5e-3, Fraction(1, 400)),
    ],
)
def test_parse_quantity_yaml_numbers(value: int | float, expected: Fraction) -> None:
    assert parse_quantity(value) == expected


@pytest.mark.parametrize(
    "text",
    [
        "1.5.3Gi",
        "",
        "   ",
        "abc",
        "1Gb",
        "1 Gi",  # no space between number and suffix
        "1.1.M",
        "1+1.0M",
        "0.1mi",
        "0.1am",
        ".5i",
        "1i",
        "-3.01i",
        "-3.01e-",
        "1e",
        "1e3.5",
        "1Ee3",
        "1ki",
        "1K",
        "Ki",
        ".",
        "-",
        "+",
        "1_000",
        "\u0661",  # ARABIC-INDIC DIGIT ONE: only ASCII digits are digits
        "nan",
        "inf",
    ],
)
def test_parse_quantity_rejects(text: str) -> None:
    with pytest.raises(QuantityError) as info:
        parse_quantity(text)
    assert info.value.text == text
    assert f'quantity "{text}" is not valid: expected a number' in str(info.value)


def test_quantity_error_message_names_the_text_and_the_grammar() -> None:
    with pytest.raises(QuantityError) as info:
        parse_quantity("1.5.3Gi")
    assert str(info.value) == (
        'quantity "1.5.3Gi" is not valid: expected a number with an optional suffix'
        " (Ki, Mi, Gi, Ti, Pi, Ei, n, u, m, k, M, G, T, P, E) or exponent,"
        ' e.g. "500m", "1.5Gi", "2e3"'
    )


def test_quantity_error_is_a_value_error_and_a_kubesched_error() -> None:
    with pytest.raises(ValueError):
        parse_quantity("abc")
    with pytest.raises(KubeschedError):
        parse_quantity("abc")


@pytest.mark.parametrize("value", [True, False])
def test_parse_quantity_rejects_bool(value: bool) -> None:
    with pytest.raises(QuantityError, match="not a boolean"):
        parse_quantity(value)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_parse_quantity_rejects_non_finite_floats(value: float) -> None:
    with pytest.raises(QuantityError):
        parse_quantity(value)


@pytest.mark.parametrize("value", [None, [1], Fraction(1, 2)])
def test_parse_quantity_rejects_other_types(value: object) -> None:
    with pytest.raises(QuantityError, match="expected a string or a number"):
        parse_quantity(value)  # type: ignore[arg-type]


def test_parse_quantity_bounds_the_exponent() -> None:
    with pytest.raises(QuantityError, match="exponent must be between"):
        parse_quantity("1e999999999")


def test_parse_quantity_rejects_too_many_digits() -> None:
    with pytest.raises(QuantityError, match="too many digits") as info:
        parse_quantity("9" * 10_000)
    assert len(str(info.value)) < 200


def test_quantity_error_survives_pickling() -> None:
    error = QuantityError("1Gb")
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is QuantityError
    assert (copy.text, str(copy)) == (error.text, str(error))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("100m", 100),
        ("1", 1000),
        ("1.5", 1500),
        ("0.0001", 1),  # a fraction of a milli rounds up
        ("1n", 1),
        ("0", 0),
        ("-0.0001", -1),  # away from zero, as upstream
        (2, 2000),
        (0.25, 250),
        (Fraction(1, 3), 334),
    ],
)
def test_milli_value(value: str | int | float | Fraction, expected: int) -> None:
    assert milli_value(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1.5", 2),
        ("100m", 1),
        ("1Gi", 2**30),
        ("1.5Gi", 3 * 2**29),
        ("0", 0),
        ("-1.5", -2),  # away from zero, as upstream
        (110, 110),
        (Fraction(7, 2), 4),
    ],
)
def test_int_value(value: str | int | float | Fraction, expected: int) -> None:
    assert int_value(value) == expected


SUFFIXES = sorted(MULTIPLIERS)
INTEGERS = st.integers(min_value=-(10**30), max_value=10**30)


@given(n=INTEGERS, suffix=st.sampled_from(SUFFIXES))
def test_integer_with_suffix_is_integer_times_multiplier(n: int, suffix: str) -> None:
    assert parse_quantity(f"{n}{suffix}") == n * MULTIPLIERS[suffix]


@given(n=INTEGERS, exponent=st.integers(-9, 40))
def test_integer_with_exponent_is_integer_times_power_of_ten(n: int, exponent: int) -> None:
    expected = n * Fraction(10) ** exponent
    assert parse_quantity(f"{n}e{exponent}") == expected
    assert parse_quantity(f"{n}E{exponent}") == expected


@given(
    whole=st.integers(min_value=0, max_value=10**12),
    frac=st.text(alphabet="0123456789", min_size=1, max_size=9),
    suffix=st.sampled_from(SUFFIXES),
)
def test_decimal_point_is_exact(whole: int, frac: str, suffix: str) -> None:
    value = (whole + Fraction(int(frac), 10 ** len(frac))) * MULTIPLIERS[suffix]
    if (value * 10**9).denominator == 1:  # otherwise upstream rounds it to nano
        assert parse_quantity(f"{whole}.{frac}{suffix}") == value


@given(INTEGERS)
def test_int_and_its_text_agree(n: int) -> None:
    assert parse_quantity(n) == parse_quantity(str(n)) == n
