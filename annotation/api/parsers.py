"""The API's JSON bodies, read by the one loader (annotation.structured_input): a body over
DATA_UPLOAD_MAX_MEMORY_SIZE is a 413 before it is parsed; nesting, NaN, Infinity, 1e309 or an
integer of too many digits is a 400 naming the line and key path, never the 500 of a
RecursionError. Text is each field's to check (its schema says it takes no NUL, and a field the
request does not use is ignored, as the schema allows). A custom parser as DRF documents them."""

from __future__ import annotations

from typing import IO, Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser
from rest_framework.renderers import JSONRenderer

from annotation.structured_input import Refused, load_json

from .errors import PayloadTooLarge


class StructuredJSONParser(BaseParser):
    """application/json, as DRF's JSONParser reads it, under the platform's rules."""

    media_type = "application/json"
    renderer_class = JSONRenderer

    def parse(self, stream: IO[bytes], media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(raw) > limit:
            raise PayloadTooLarge()
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            return load_json(raw.decode(encoding), check_text=False)
        except UnicodeDecodeError as exc:
            raise ParseError(f"JSON parse error - not {encoding} text ({exc.reason} at byte {exc.start})") from None
        except Refused as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
