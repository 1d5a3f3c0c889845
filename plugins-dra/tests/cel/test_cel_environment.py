"""upstream staging/src/k8s.io/dynamic-resource-allocation/cel/compile_test.go (TestCEL),
the cases of v1.34's environment: compile errors, runtime errors, the default domain,
the map-with-default for unknown domains, bind, quantity and semver."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched_dra.api import Device
from kubesched_dra.cel import CELCache, CELDevice, compile_expression

DRIVER = "dra.example.com"

# name: (expression, driver, attributes, capacity, compile error, match error, match)
CASES: dict[str, tuple[str, str, dict[str, Any], dict[str, str], str, str, bool]] = {
    "true": ("true", "", {}, {}, "", "", True),
    "false": ("false", "", {}, {}, "", "", False),
    "syntax-error": ("?!", "", {}, {}, "Syntax error", "", False),
    "type-error": (
        "1",
        "",
        {},
        {},
        "must evaluate to bool or the unknown type, not int",
        "",
        False,
    ),
    "runtime-error-lookup-identifier": (
        'device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))',
        "",
        {},
        {},
        "",
        "no such key: noSuchAttr",
        False,
    ),
    "runtime-error-lookup-map": (
        'device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))',
        "",
        {},
        {},
        "",
        "no such key: noSuchAttr",
        False,
    ),
    "domain-check-negative": ('"no-such-domain" in device.attributes', "", {}, {}, "", "", False),
    "domain-check-positive": (
        '"dra.example.com" in device.attributes',
        "",
        {"dra.example.com/something": {"bool": True}},
        {},
        "",
        "",
        True,
    ),
    "empty-driver-name": ('device.driver == ""', "", {}, {}, "", "", True),
    "real-driver-name": ('device.driver == "dra.example.com"', DRIVER, {}, {}, "", "", True),
    "driver-name-qualifier": (
        'device.attributes["dra.example.com"].name',
        DRIVER,
        {"name": {"bool": True}},
        {},
        "",
        "",
        True,
    ),
    "driver-name-qualifier-map-lookup": (
        'device.attributes["dra.example.com"]["name"]',
        DRIVER,
        {"name": {"bool": True}},
        {},
        "",
        "",
        True,
    ),
    "bind": (
        'cel.bind(dra, device.attributes["dra.example.com"], dra.name)',
        DRIVER,
        {"name": {"bool": True}},
        {},
        "",
        "",
        True,
    ),
    "qualified-attribute-name": (
        'device.attributes["other.example.com"].name',
        DRIVER,
        {"other.example.com/name": {"bool": True}},
        {},
        "",
        "",
        True,
    ),
    "int": (
        'device.attributes["dra.example.com"].name > 0',
        DRIVER,
        {"name": {"int": 1}},
        {},
        "",
        "",
        True,
    ),
    "string": (
        'device.attributes["dra.example.com"].name == "fish"',
        DRIVER,
        {"name": {"string": "fish"}},
        {},
        "",
        "",
        True,
    ),
    "version": (
        'device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))',
        DRIVER,
        {"name": {"version": "1.0.0"}},
        {},
        "",
        "",
        True,
    ),
    "version_v": (
        (
            'device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && '
            'isSemver("v1.0.0", true)'
        ),
        DRIVER,
        {"name": {"version": "1.0.0"}},
        {},
        "",
        "",
        True,
    ),
    "quantity": (
        'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))',
        DRIVER,
        {},
        {"name": "1Mi"},
        "",
        "",
        True,
    ),
    "check-positive": (
        (
            '"name" in device.capacity["dra.example.com"] && '
            'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))'
        ),
        DRIVER,
        {},
        {"name": "1Mi"},
        "",
        "",
        True,
    ),
    "check-negative": (
        (
            '!("name" in device.capacity["dra.example.com"]) || '
            'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))'
        ),
        "",
        {},
        {},
        "",
        "",
        True,
    ),
    "all": (
        """
device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"].bool &&
device.attributes["dra.example.com"].int > 0 &&
device.attributes["dra.example.com"].string == "fish" &&
device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&
device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"]["bool"] &&
device.attributes["dra.example.com"]["int"] > 0 &&
device.attributes["dra.example.com"]["string"] == "fish" &&
device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))
""",
        DRIVER,
        {
            "bool": {"bool": True},
            "int": {"int": 1},
            "string": {"string": "fish"},
            "version": {"version": "1.0.0"},
        },
        {"quantity": "1Mi"},
        "",
        "",
        True,
    ),
    "many": (
        (
            'device.attributes["dra.example.com"].a && '
            'device.attributes["dra.example.com"].b && '
            'device.attributes["dra.example.com"].c'
        ),
        DRIVER,
        {"a": {"bool": True}, "b": {"bool": True}, "c": {"bool": True}},
        {},
        "",
        "",
        True,
    ),
    "check_attribute_domains": (
        'device.attributes.exists_one(x, x == "dra.example.com")',
        DRIVER,
        {"services": {"string": "some_example_value"}},
        {},
        "",
        "",
        True,
    ),
    "check_attribute_ids": (
        'device.attributes["dra.example.com"].exists_one(x, x == "services")',
        DRIVER,
        {"services": {"string": "some_example_value"}},
        {},
        "",
        "",
        True,
    ),
    "split_attribute": (
        'device.attributes["dra.example.com"].services.split("example").size() >= 2',
        DRIVER,
        {"services": {"string": "some_example_value"}},
        {},
        "",
        "",
        True,
    ),
    "regexp_attribute": (
        'device.attributes["dra.example.com"].services.matches("[^a]?sym")',
        DRIVER,
        {"services": {"string": "asymetric"}},
        {},
        "",
        "",
        True,
    ),
    "check_capacity_domains": (
        'device.capacity.exists_one(x, x == "dra.example.com")',
        DRIVER,
        {},
        {"memory": "1Mi"},
        "",
        "",
        True,
    ),
    "check_capacity_ids": (
        'device.capacity["dra.example.com"].exists_one(x, x == "memory")',
        DRIVER,
        {},
        {"memory": "1Mi"},
        "",
        "",
        True,
    ),
    "allow_multiple_allocations_default": (
        "device.allowMultipleAllocations == false",
        DRIVER,
        {},
        {},
        "",
        "",
        True,
    ),
    "list-result-type-causes-match-error": (
        'device.attributes["dra.example.com"].name',
        DRIVER,
        {"name": {"string": "fish"}},
        {},
        "",
        "CEL result of type string could not be converted to bool",
        False,
    ),
}


def _device(attributes: dict[str, Any], capacity: dict[str, str]) -> Device:
    return Device.model_validate(
        {
            "name": "device",
            "attributes": attributes,
            "capacity": {name: {"value": value} for name, value in capacity.items()},
        }
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_cel(name: str) -> None:
    expression, driver, attributes, capacity, compile_error, match_error, match = CASES[name]
    result = compile_expression(expression)
    if compile_error:
        assert result.error is not None
        assert compile_error in str(result.error)
        return
    assert result.error is None, str(result.error)
    device = CELDevice.from_device(driver, _device(attributes, capacity))
    if match_error:
        with pytest.raises(Exception, match=match_error):
            result.device_matches(device)
        return
    assert result.device_matches(device) is match


def test_compile_errors_carry_upstreams_text() -> None:
    result = compile_expression('quantity("1") == 1')
    assert str(result.error) == (
        "compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' "
        "applied to '(kubernetes.Quantity, int)'\n"
        ' | quantity("1") == 1\n'
        " | ..............^"
    )


def test_no_such_key_is_enhanced_as_upstream() -> None:
    result = compile_expression('device.attributes["dra.example.com"].model == "a"')
    device = CELDevice.from_device(DRIVER, _device({"other": {"int": 1}}, {}))
    with pytest.raises(Exception) as info:
        result.device_matches(device)
    assert str(info.value) == (
        "no such key: model. Consider using CEL optional chaining (?), has() macro, "
        "or orValue() for optional fields"
    )


def test_bad_version_attribute_fails_every_evaluation() -> None:
    device = CELDevice.from_device(DRIVER, _device({"v": {"version": "1.02.0"}}, {}))
    with pytest.raises(Exception) as info:
        compile_expression("true").device_matches(device)
    assert str(info.value) == (
        'attribute v: parse semantic version: Minor number must not contain leading zeroes "02"'
    )


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('quantity("1Gi") == quantity("1024Mi")', True),
        ('quantity("1.5").isInteger()', False),
        ('quantity("3").asInteger() == 3', True),
        ('quantity("500m").asApproximateFloat() == 0.5', True),
        ('quantity("1").add(quantity("500m")).compareTo(quantity("1500m")) == 0', True),
        ('quantity("1").sub(2).sign() == -1', True),
        ('isQuantity("1Gi") && !isQuantity("1Gx")', True),
        (
            'quantity("1").isLessThan(quantity("2")) && !quantity("2").isLessThan(quantity("1"))',
            True,
        ),
        (
            (
                'semver("1.2.3").major() == 1 && '
                'semver("1.2.3").minor() == 2 && '
                'semver("1.2.3").patch() == 3'
            ),
            True,
        ),
        ('semver("1.0.0-alpha").isLessThan(semver("1.0.0"))', True),
        ('semver("1.0.0-alpha.1").compareTo(semver("1.0.0-alpha.beta")) == -1', True),
        ('semver("1.0.0+a") == semver("1.0.0+b")', True),
        ('isSemver("1.2.3") && !isSemver("1.2") && !isSemver("v1.2.3")', True),
        ('device.driver.lowerAscii() == "dra.example.com"', True),
    ],
)
def test_library_functions(expression: str, expected: bool) -> None:
    result = compile_expression(expression)
    assert result.error is None, str(result.error)
    device = CELDevice.from_device(DRIVER, _device({}, {}))
    assert result.device_matches(device) is expected


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ('quantity("1Gx") == quantity("1")', "quantities must match the regular expression"),
        ('semver("1.2") == semver("1.2.3")', "No Major.Minor.Patch elements found"),
        ('quantity("1.5").asInteger() == 1', "cannot convert value to integer"),
        ("1 / 0 == 1", "division by zero"),
    ],
)
def test_library_runtime_errors(expression: str, message: str) -> None:
    result = compile_expression(expression)
    assert result.error is None, str(result.error)
    with pytest.raises(Exception, match=message):
        result.device_matches(CELDevice.from_device(DRIVER, _device({}, {})))


def test_cache_compiles_once_and_evicts_least_recently_used() -> None:
    cache = CELCache(max_entries=2)
    first = cache.get_or_compile("true")
    assert cache.get_or_compile("true") is first
    cache.get_or_compile("false")
    cache.get_or_compile("true")  # most recent again
    cache.get_or_compile("1 == 1")  # evicts "false"
    assert cache.get_or_compile("true") is first
    assert cache.get_or_compile("false") is not None
    with pytest.raises(ValueError, match="at least 1"):
        CELCache(max_entries=0)


def test_cache_keeps_results_per_device_and_driver() -> None:
    cache = CELCache()
    compiled = cache.get_or_compile('device.driver == "a"')
    device = _device({}, {})
    assert cache.device_matches(compiled, "a", device) is True
    assert cache.device_matches(compiled, "b", device) is False
    assert cache.cel_device("a", device) is cache.cel_device("a", device)
    failing = cache.get_or_compile('device.attributes["x"].y')
    for _ in range(2):
        with pytest.raises(Exception, match="no such key: y"):
            cache.device_matches(failing, "a", device)


def test_opaque_values_keep_their_type_name() -> None:
    result = compile_expression('device.capacity["dra.example.com"].memory')
    device = CELDevice.from_device(DRIVER, _device({}, {"memory": "1Gi"}))
    with pytest.raises(Exception, match=r"^CEL result of type kubernetes\.Quantity could not"):
        result.device_matches(device)
    field = compile_expression('quantity("1").value == "1"')
    assert "cannot be the operand of a select operation" in str(field.error)
