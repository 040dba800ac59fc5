"""Integer query parameters read the same way everywhere: a whole number within the bounds the
schema declares, or a 400 naming the parameter, never a 500 and never silently ignored.

An id beyond 64 bits (`?project=36893488147419103233`) cannot name a row on any database, and
SQLite's driver raises OverflowError on it, so it is refused before it reaches a query."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.request import Request

#: the largest id a BigAutoField holds (signed 64-bit)
MAX_ID = 2**63 - 1


def int_param(request: Request, name: str, *, minimum: int, maximum: int) -> int | None:
    """The query parameter `name` as an integer in [minimum, maximum] (None when absent)."""
    value = request.query_params.get(name)
    if value is None:
        return None
    if not (value.isascii() and value.isdigit()) or not minimum <= int(value) <= maximum:
        raise serializers.ValidationError({name: [f"Must be a whole number from {minimum} to {maximum}."]})
    return int(value)


def id_param(request: Request, name: str) -> int | None:
    """The query parameter `name` as an id (None when absent); a 400 naming it otherwise."""
    return int_param(request, name, minimum=1, maximum=MAX_ID)


def int_schema(*, minimum: int, maximum: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": minimum, "maximum": maximum}


def id_parameter(name: str, description: str) -> OpenApiParameter:
    """How `id_param` reads `name`, for the schema: the bounds it enforces."""
    return OpenApiParameter(name, int_schema(minimum=1, maximum=MAX_ID), description=description)
