"""Checks a request against botocore's own MTurk service model (the shapes boto3 was built
from): required members, types, lengths, ranges, patterns and enums, as the real service
would. botocore checks only some of these on the client side (no max, no pattern)."""

from __future__ import annotations

import functools
import re
from typing import Any

import botocore.session
from botocore.model import ListShape, Shape, StructureShape

from .errors import ApiError, invalid


@functools.cache
def service_model():
    return botocore.session.get_session().get_service_model("mturk")


def operation_names() -> frozenset[str]:
    return frozenset(service_model().operation_names)


def validate(operation: str, params: Any) -> None:
    """Raise a RequestError naming the first invalid parameter of ``operation``."""
    if operation not in operation_names():
        raise ApiError("UnknownOperationException", f"Unknown operation {operation}")
    if not isinstance(params, dict):
        raise ApiError("SerializationException", "the request body is not a JSON object")
    shape = service_model().operation_model(operation).input_shape
    if shape is not None:
        _check(shape, params, "")


def _check(shape: Shape, value: Any, path: str) -> None:
    name = path or "the request"
    kind = shape.type_name
    if kind == "structure":
        _check_structure(shape, value, path)
    elif kind == "list":
        if not isinstance(value, list):
            raise invalid(f"{name} must be a list")
        _check_range(shape, len(value), f"the length of {name}")
        assert isinstance(shape, ListShape)
        for i, item in enumerate(value):
            _check(shape.member, item, f"{path}[{i}]")
    elif kind == "string":
        if not isinstance(value, str):
            raise invalid(f"{name} must be a string")
        _check_range(shape, len(value), f"the length of {name}")
        pattern = shape.metadata.get("pattern")
        if pattern and not re.search(pattern, value):
            raise invalid(
                f"Value '{value}' at '{name}' failed to satisfy constraint: "
                f"Member must satisfy regular expression pattern: {pattern}"
            )
        if shape.enum and value not in shape.enum:
            raise invalid(f"{name} must be one of {', '.join(shape.enum)}")
    elif kind in ("integer", "long"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise invalid(f"{name} must be an integer")
        _check_range(shape, value, name)
    elif kind == "boolean" and not isinstance(value, bool):
        raise invalid(f"{name} must be true or false")
    elif kind == "timestamp" and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise invalid(f"{name} must be a timestamp in epoch seconds")


def _check_structure(shape: Shape, value: Any, path: str) -> None:
    assert isinstance(shape, StructureShape)
    if not isinstance(value, dict):
        raise invalid(f"{path or 'the request'} must be an object")
    for member in shape.required_members:
        if value.get(member) is None:
            raise invalid(f"{_join(path, member)} is required")
    for key, item in value.items():
        if key not in shape.members:
            raise invalid(f"{_join(path, key)} is not a parameter of this operation")
        if item is not None:
            _check(shape.members[key], item, _join(path, key))


def _check_range(shape: Shape, number: int, name: str) -> None:
    low, high = shape.metadata.get("min"), shape.metadata.get("max")
    if low is not None and number < low:
        raise invalid(f"{name} must be at least {low}")
    if high is not None and number > high:
        raise invalid(f"{name} must be at most {high}")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
