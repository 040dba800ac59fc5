"""Annotators authenticate to the API with their personal key: `Authorization: Annotator <key>`."""
from __future__ import annotations

from rest_framework import authentication, exceptions

from annotation.models import Annotator


class AnnotatorPrincipal:
    """Stands in for request.user: authenticated, never staff, bound to one annotator."""

    is_authenticated = True
    is_active = True
    is_staff = False
    is_superuser = False

    def __init__(self, annotator: Annotator):
        self.annotator = annotator
        self.pk = None

    def __str__(self) -> str:
        return f"annotator {self.annotator.external_id}"


class AnnotatorKeyAuthentication(authentication.BaseAuthentication):
    keyword = "Annotator"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].decode().lower() != self.keyword.lower():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Use 'Authorization: Annotator <key>'.")
        annotator = Annotator.objects.select_related("project").filter(access_key=header[1].decode()).first()
        if annotator is None:
            raise exceptions.AuthenticationFailed("Unknown annotator key.")
        return AnnotatorPrincipal(annotator), None

    def authenticate_header(self, request) -> str:
        return self.keyword
