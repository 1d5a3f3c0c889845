"""blang/semver's Parse and Compare, which the CEL semver library uses."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubesched_dra.cel._semver import SemverError, normalize_and_parse, parse_semver


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Version string empty"),
        ("1.2", "No Major.Minor.Patch elements found"),
        ("01.2.3", 'Major number must not contain leading zeroes "01"'),
        ("1.x.3", 'Invalid character(s) found in minor number "x"'),
        ("1.2.3-", "Prerelease is empty"),
        ("1.2.3-01", 'Numeric PreRelease version must not contain leading zeroes "01"'),
        ("1.2.3-a_b", 'Invalid character(s) found in prerelease "a_b"'),
        ("1.2.3+", "Build meta data is empty"),
        ("1..3", 'strconv.ParseUint: parsing "": invalid syntax'),
    ],
)
def test_parse_errors_are_blangs(text: str, message: str) -> None:
    with pytest.raises(SemverError) as info:
        parse_semver(text)
    assert str(info.value) == message


def test_precedence_follows_semver_2() -> None:
    ordered = [
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0-rc.1",
        "1.0.0",
        "1.0.1",
        "1.1.0",
        "2.0.0",
    ]
    versions = [parse_semver(v) for v in ordered]
    for i, a in enumerate(versions):
        for j, b in enumerate(versions):
            assert a.compare(b) == (i > j) - (i < j), (ordered[i], ordered[j])


def test_normalize() -> None:
    assert normalize_and_parse("v1.02").canonical() == "1.2.0"
    assert normalize_and_parse("1").canonical() == "1.0.0"
    with pytest.raises(SemverError, match="short version cannot contain"):
        normalize_and_parse("1-alpha")


@given(
    st.tuples(*(st.integers(0, 50) for _ in range(3))),
    st.tuples(*(st.integers(0, 50) for _ in range(3))),
)
def test_release_versions_compare_as_tuples(
    a: tuple[int, int, int], b: tuple[int, int, int]
) -> None:
    va, vb = parse_semver(".".join(map(str, a))), parse_semver(".".join(map(str, b)))
    assert va.compare(vb) == (a > b) - (a < b)
    assert vb.compare(va) == -va.compare(vb)
