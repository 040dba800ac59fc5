"""OpenAPI descriptions drf-spectacular cannot infer: the annotator key scheme."""
from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class AnnotatorKeyScheme(OpenApiAuthenticationExtension):
    """Registered on import (annotation.api.urls imports this module)."""

    target_class = "annotation.api.auth.AnnotatorKeyAuthentication"
    name = "annotatorKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "An annotator's personal key from their work link: `Annotator <key>`.",
        }
