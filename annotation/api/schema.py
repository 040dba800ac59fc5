"""OpenAPI descriptions drf-spectacular cannot infer: the annotator key scheme, and the error
answers DRF gives for every operation (so each status the API can answer is documented)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ComponentRegistry, ResolvedComponent
from rest_framework.permissions import AllowAny
from rest_framework.settings import api_settings

from .errors import ErrorSerializer
from .fields import NO_NUL

#: DRF's validation errors: field name (or `non_field_errors`, or `detail` for the whole request)
#: -> messages; a nested field or a list item nests the same shape.
VALIDATION_ERROR = {
    "type": "object",
    "description": "Field name (`non_field_errors` or `detail` for the request as a whole) -> what is wrong.",
    "additionalProperties": {},
}


class AnnotatorKeyScheme(OpenApiAuthenticationExtension):
    """Registered on import (annotation.api.urls imports this module), as is BasicScheme."""

    target_class = "annotation.api.auth.AnnotatorKeyAuthentication"
    name = "annotatorKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "An annotator's personal key from their work link: `Annotator <key>`.",
        }


class BasicScheme(OpenApiAuthenticationExtension):
    """The project's HTTP Basic (annotation.api.auth.BasicAuthentication) is DRF's, documented alike."""

    target_class = "annotation.api.auth.BasicAuthentication"
    name = "basicAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "http", "scheme": "basic"}


class ApiAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema (REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"]). Each operation also
    lists the errors DRF answers for it, read from the view's own configuration (authentication,
    permissions, path and query parameters, request body), so a new endpoint is documented
    without repeating them. What a view documents itself (`extend_schema`) is kept."""

    def get_operation(
        self, path: str, path_regex: str, path_prefix: str, method: str, registry: ComponentRegistry
    ) -> dict[str, Any] | None:
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        error = self.resolve_serializer(ErrorSerializer, "response").ref
        invalid = ResolvedComponent(
            "ValidationError", ResolvedComponent.SCHEMA, object="ValidationError", schema=VALIDATION_ERROR
        )
        registry.register_on_missing(invalid)
        for code, (description, schema) in self.error_statuses(operation).items():
            body = invalid.ref if schema == "invalid" else error
            operation["responses"].setdefault(
                code, {"description": description, "content": {"application/json": {"schema": body}}}
            )
        operation["responses"] = dict(sorted(operation["responses"].items()))
        return operation

    def error_statuses(self, operation: dict[str, Any]) -> dict[str, tuple[str, str]]:
        """Status -> (description, body) of what DRF answers before or around the view's own work."""
        view = self.view
        has_body = "requestBody" in operation
        located = {parameter["in"] for parameter in operation.get("parameters", [])}
        errors: dict[str, tuple[str, str]] = {}
        if has_body or "query" in located:
            errors["400"] = ("The request is invalid; the body names each field at fault.", "invalid")
        if not all(isinstance(permission, AllowAny) for permission in view.get_permissions()):
            authenticators = view.get_authenticators()
            if authenticators and authenticators[0].authenticate_header(view.request):
                errors["401"] = ("No credentials, or credentials that are not valid.", "error")
            errors["403"] = (
                "Not allowed: not signed in (no 401 challenge for session clients), wrong "
                "credentials, or without the permission this operation needs.",
                "error",
            )
        if "path" in located:
            errors["404"] = ("Nothing with this id (or not a well-formed id).", "error")
        if view.content_negotiation_class is api_settings.DEFAULT_CONTENT_NEGOTIATION_CLASS:
            errors["406"] = ("The Accept header asks for a media type this operation does not produce.", "error")
        if has_body:
            errors["413"] = ("The request body is larger than the server accepts.", "error")
            errors["415"] = ("The Content-Type is not one this operation reads.", "error")
        return errors


def strings_without_nul(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]: every text field of a request body refuses NUL
    (DRF's CharField has ProhibitNullCharactersValidator; PostgreSQL cannot store it), so the
    schema says so with a pattern. Request bodies are their own components (COMPONENT_SPLIT_REQUEST)."""
    for name, component in result.get("components", {}).get("schemas", {}).items():
        if not name.endswith("Request"):
            continue
        for field in component.get("properties", {}).values():
            if field.get("type") == "string" and not field.keys() & {"format", "enum", "pattern", "readOnly"}:
                field["pattern"] = NO_NUL
    return result
