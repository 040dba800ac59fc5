"""What a request may store, one rule set (annotation.structured_input's) for every way in: the
validator every API serializer runs on each field (`annotation.api.fields.JsonTypes`), and the
decoder of a form's JSON field (the admin's project settings). A form's text fields need neither:
Django's CharField refuses NUL, and a form's bytes are decoded with bad sequences replaced, so no
lone surrogate arrives that way."""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import ValidationError

from annotation.structured_input import Refused, load_json, value_problem


def storable_text(value: Any) -> None:
    """No NUL and no lone surrogate in any text of `value` (a text, or the items, keys and values
    of a list or an object, however nested): PostgreSQL refuses NUL in text and jsonb, and a lone
    surrogate cannot be written as UTF-8 at all. The message escapes what it quotes, so a refusal
    can always be sent back."""
    if not isinstance(value, str | list | dict):
        return
    found = value_problem(value)
    if found is not None:
        problem, path = found
        message = f"{path}: {problem}" if path else problem
        raise ValidationError(message.encode("utf-8", "backslashreplace").decode("utf-8"), code="unstorable")


class LoaderDecoder(json.JSONDecoder):
    """For a form's `forms.JSONField(decoder=LoaderDecoder)`: the text read by the one loader
    (annotation.structured_input), so what it refuses (NUL, a lone surrogate, NaN, 1e309, deep
    nesting) is the field's "Enter a valid JSON." and is shown back as the text typed, never as a
    decoded value the page could not encode."""

    def decode(self, s: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return load_json(s)
        except Refused as refused:
            raise json.JSONDecodeError(str(refused).encode("utf-8", "backslashreplace").decode("utf-8"), s, 0) from None
