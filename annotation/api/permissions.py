"""Who may call what: researchers are staff (the default); annotators reach only `me`."""
from __future__ import annotations

from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from .auth import AnnotatorPrincipal


class IsAnnotator(BasePermission):
    """Only a request authenticated by an annotator key; staff sessions do not count, so an
    annotator endpoint can never be used to read somebody else's work."""

    message = "Authenticate with your annotator key: 'Authorization: Annotator <key>'."

    def has_permission(self, request: Request, view: APIView) -> bool:
        return isinstance(request.user, AnnotatorPrincipal)
