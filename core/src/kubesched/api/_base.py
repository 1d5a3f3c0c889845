"""The base every Kubernetes object model derives from.

Field names are snake_case in Python and camelCase on the wire, as `kubectl get -o yaml`
writes them. Unknown fields (managedFields, status fields the scheduler never reads ...) are
ignored, so any real manifest loads; fields the scheduler reads are validated, so a wrong type
is an error naming its path.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, PlainSerializer
from pydantic.alias_generators import to_camel

from kubesched.api._quantity import parse_quantity

__all__ = ["K8sModel", "Quantity", "ResourceList", "format_quantity"]


class K8sModel(BaseModel):
    """A Kubernetes API structure: camelCase aliases, unknown fields ignored."""

    model_config: ClassVar[ConfigDict] = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        ser_json_inf_nan="constants",
    )

    def to_dict(self) -> dict[str, Any]:
        """The object as the API server would write it (camelCase, unset fields left out)."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


def format_quantity(value: Fraction) -> str:
    """Write an exact quantity back in a form `parse_quantity` reads: `2`, `500m`, `0.25`."""
    if value.denominator == 1:
        return str(value.numerator)
    milli = value * 1000
    if milli.denominator == 1:
        return f"{milli.numerator}m"
    nano = value * 10**9  # parsed quantities are exact to 1n; float() would round 1e7+1n away
    if nano.denominator == 1:
        return f"{nano.numerator}n"
    return str(float(value))


def _parse(value: Any) -> Fraction:
    if isinstance(value, Fraction):
        return value
    return parse_quantity(value)


Quantity = Annotated[
    Fraction,
    BeforeValidator(_parse),
    PlainSerializer(format_quantity, return_type=str),
]
"""A resource quantity (`500m`, `1.5Gi`), held exactly as a Fraction of base units."""

ResourceList = dict[str, Quantity]
"""Resource name to quantity, as in `resources.requests` or `status.allocatable`."""
