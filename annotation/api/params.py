"""Integer query parameters read the same way everywhere: a database id or a 400, never a 500.

An id beyond 64 bits (`?project=36893488147419103233`) cannot name a row on any database, and
SQLite's driver raises OverflowError on it, so it is refused before it reaches a query."""
from __future__ import annotations

from rest_framework import serializers
from rest_framework.request import Request

#: the largest id a BigAutoField holds (signed 64-bit)
MAX_ID = 2**63 - 1


def id_param(request: Request, name: str) -> int | None:
    """The query parameter `name` as an id (None when absent); a 400 naming it otherwise."""
    value = request.query_params.get(name)
    if value is None:
        return None
    if not (value.isascii() and value.isdigit()) or not 1 <= int(value) <= MAX_ID:
        raise serializers.ValidationError({name: f"Must be an id: a whole number from 1 to {MAX_ID}."})
    return int(value)
