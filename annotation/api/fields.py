"""Request fields whose schema says exactly what they accept, so that schema-valid data is
accepted and anything else is a 400 (or a 404 for an id that names nothing)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Model, QuerySet
from drf_spectacular.utils import extend_schema_field
from rest_framework import exceptions, serializers
from rest_framework.utils import html

from annotation.kinds import AGGREGATION_METHODS, AUTO, MAX_BOOTSTRAP_ROUNDS, UNTIMED_CHOICES, known_settings
from annotation.validators import storable_text

from .params import MAX_ID

#: the largest count or duration a PositiveIntegerField holds on every database (PostgreSQL's integer)
MAX_COUNT = 2**31 - 1
#: JSON Schema for a string without NUL: DRF's CharField refuses NUL (ProhibitNullCharactersValidator),
#: and PostgreSQL cannot store it in text or jsonb
NO_NUL = "^[^\\x00]*$"


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": MAX_ID})
class ExistingId(serializers.PrimaryKeyRelatedField):
    """An id of an existing object: a well-formed id that names nothing is a 404, like the same
    id in a URL (the schema cannot know which ids exist); anything else is a 400."""

    def to_internal_value(self, data: Any) -> Model:
        if (
            isinstance(data, bool)
            or not isinstance(data, (int, str))
            or not str(data).isascii()
            or not str(data).isdigit()
            or not 1 <= int(data) <= MAX_ID
        ):
            self.fail("incorrect_type", data_type=type(data).__name__)
        queryset: QuerySet = self.get_queryset()
        found = queryset.filter(pk=int(data)).first()
        if found is None:
            raise exceptions.NotFound(f"{self.field_name}: no object with id {data}.")
        return found


def _json_type(default: Any) -> dict[str, Any]:
    """The JSON type of a setting, read from its default: the kinds' settings are numbers, booleans,
    text, lists of item ids (text), and thresholds that are off by default (None: a number or null)."""
    if isinstance(default, bool):
        return {"type": "boolean"}
    if isinstance(default, int):
        return {"type": "integer"}
    if isinstance(default, float):
        return {"type": "number"}
    if isinstance(default, str):
        return {"type": "string", "pattern": NO_NUL}
    if isinstance(default, list):
        return {"type": "array", "items": {"type": "string", "pattern": NO_NUL}}
    return {"type": "number", "nullable": True}


_METHOD = {"type": "string", "enum": [AUTO, *AGGREGATION_METHODS]}
#: settings whose type their default does not tell: one method for every label field, or one per field
SCHEMAS: dict[str, dict[str, Any]] = {
    "aggregation_method": {"oneOf": [_METHOD, {"type": "object", "additionalProperties": _METHOD}]},
    "bootstrap_rounds": {"type": "integer", "minimum": 0, "maximum": MAX_BOOTSTRAP_ROUNDS},
    "untimed_saves": {"type": "string", "enum": list(UNTIMED_CHOICES)},
}
#: every setting some task kind has -> its JSON schema
SETTINGS = {name: SCHEMAS.get(name) or _json_type(default) for name, default in known_settings().items()}


def _fits(value: Any, schema: dict[str, Any]) -> bool:
    """Whether `value` is of the type `_json_type` (or `SCHEMAS`) gave, within its enum and bounds."""
    if "oneOf" in schema:
        return sum(_fits(value, one) for one in schema["oneOf"]) == 1
    kind = schema["type"]
    if "enum" in schema and value not in schema["enum"]:
        return False
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if number and not schema.get("minimum", value) <= value <= schema.get("maximum", value):
        return False
    if value is None:
        return bool(schema.get("nullable"))
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "string":
        return isinstance(value, str) and "\x00" not in value
    if kind == "array":
        return isinstance(value, list) and all(_fits(item, schema["items"]) for item in value)
    if kind == "object":
        extra = schema["additionalProperties"]
        return isinstance(value, dict) and all("\x00" not in key and _fits(item, extra) for key, item in value.items())
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return number and (kind == "number" or float(value).is_integer())


def _expected(schema: dict[str, Any]) -> str:
    """What a setting of `schema` must be, in words."""
    if "oneOf" in schema:
        return "must be one of " + ", ".join(schema["oneOf"][0]["enum"]) + ", or an object of field -> one of them"
    if "enum" in schema:
        return "must be one of " + ", ".join(schema["enum"])
    words = f"must be of type {schema['type']}" + (" or null" if schema.get("nullable") else "")
    if "minimum" in schema:
        words += f" from {schema['minimum']} to {schema['maximum']}"
    return words


@extend_schema_field({"type": "object", "properties": SETTINGS, "additionalProperties": False})
class SettingsField(serializers.JSONField):
    """Overrides of a kind's settings: an object of known settings, each of its type (a setting of
    another kind than the project's is for the view to refuse, with a 409)."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        value = super().to_internal_value(data)
        if not isinstance(value, dict):
            raise serializers.ValidationError("Must be an object of setting -> value.")
        unknown = sorted(set(value) - set(SETTINGS))
        if unknown:
            raise serializers.ValidationError(f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(SETTINGS)}")
        wrong = [name for name, item in value.items() if not _fits(item, SETTINGS[name])]
        if wrong:
            raise serializers.ValidationError({name: _expected(SETTINGS[name]) for name in wrong})
        return value


@extend_schema_field(
    {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": MAX_ID}, "minItems": 1, "uniqueItems": True}
)
class IdList(serializers.ListField):
    """Ids in an order that matters, each once."""

    def __init__(self, **kwargs: Any):
        super().__init__(child=serializers.IntegerField(min_value=1, max_value=MAX_ID), allow_empty=False, **kwargs)

    def to_internal_value(self, data: Any) -> list[int]:
        ids = super().to_internal_value(data)
        if len(set(ids)) != len(ids):
            raise serializers.ValidationError("An id is listed twice.")
        return ids


#: the JSON type each DRF field reads (checked in order: BooleanField before IntegerField, since
#: a bool is an int in Python, and ChoiceField before CharField's text)
JSON_TYPES: list[tuple[type[serializers.Field], tuple[type, ...], str]] = [
    (serializers.BooleanField, (bool,), "a boolean"),
    (serializers.IntegerField, (int,), "an integer"),
    (serializers.FloatField, (int, float), "a number"),
    (serializers.CharField, (str,), "a string"),
    (serializers.ChoiceField, (str,), "a string"),
    (serializers.ListField, (list,), "a list"),
    (serializers.PrimaryKeyRelatedField, (int,), "an integer id"),
]


def _unstorable(serializer: serializers.Serializer, data: Any) -> dict[str, list[str]]:
    """{field: [why]} of the writable fields whose raw value `storable_text` refuses."""
    problems: dict[str, list[str]] = {}
    for name, field in serializer.fields.items():
        if field.read_only or name not in data:
            continue
        values = data.getlist(name) if html.is_html_input(data) else [data[name]]
        try:
            for value in values:
                storable_text(value)
        except DjangoValidationError as refused:
            problems[name] = list(refused.messages)
    return problems


class JsonTypes(serializers.Serializer):
    """The base of every serializer that reads a request. A JSON body is held to the types its
    schema gives: DRF would read `"5"` as 5, `5` as "5" and `"yes"` as true. Query strings and
    forms (QueryDicts) are text by nature and keep DRF's reading. Every field's raw value, in a
    body or a form, is first checked by `storable_text`, before a field could quote it back."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unstorable = _unstorable(self, data)
            if unstorable:
                raise serializers.ValidationError(unstorable)
        if isinstance(data, dict) and not html.is_html_input(data):
            wrong = {}
            for name, field in self.fields.items():
                value = data.get(name)
                if field.read_only or value is None or name not in data:
                    continue
                for field_class, types, label in JSON_TYPES:
                    if isinstance(field, field_class):
                        if not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
                            wrong[name] = [f"Must be {label}."]
                        break
            if wrong:
                raise serializers.ValidationError(wrong)
        return super().to_internal_value(data)
