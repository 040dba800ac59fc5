"""Every error the API answers is JSON with the shape its schema documents: DRF's own errors,
a body over DATA_UPLOAD_MAX_MEMORY_SIZE (413, not Django's HTML 400), and a URL under /api/ that
matches no route (404, not Django's HTML page)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

API_PREFIX = "/api/"


class ErrorSerializer(serializers.Serializer):
    """The body of every error that is not about particular fields."""

    detail = serializers.CharField(help_text="What went wrong.")


def error_response(description: str) -> OpenApiResponse:
    """An error answer with the `{"detail": ...}` body, for `extend_schema(responses=...)`."""
    return OpenApiResponse(ErrorSerializer, description=description)


class Conflict(exceptions.APIException):
    """A well-formed request the target's current state refuses (a project without items, a kind
    that no longer fits its items, an export that needs a finished quality run)."""

    status_code = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with the current state of the resource."
    default_code = "conflict"


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is larger than this server accepts (DATA_UPLOAD_MAX_MEMORY_SIZE)."
    default_code = "payload_too_large"


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler (settings.REST_FRAMEWORK["EXCEPTION_HANDLER"]), plus Django's refusal of an
    oversized body, which DRF would leave to Django's HTML error page."""
    if isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()
    return exception_handler(exc, context)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler404: JSON under /api/ (a path no route matches, such as a non-numeric id)."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)
