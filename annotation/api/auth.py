"""Annotators authenticate to the API with their personal key: `Authorization: Annotator <key>`.
Researchers use a session or HTTP Basic; credentials that cannot be real (bytes that are not
UTF-8, NUL characters) are refused as wrong before they reach a query (PostgreSQL cannot
compare text holding NUL, and would answer 500)."""

from __future__ import annotations

import re
from typing import Any

from rest_framework import authentication, exceptions

from annotation.models import Annotator

#: what `secrets.token_urlsafe` makes (annotation.models.new_key)
KEY_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")


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

    def authenticate(self, request: Any) -> tuple[AnnotatorPrincipal, None] | None:
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Use 'Authorization: Annotator <key>'.")
        key = header[1].decode("latin-1")
        annotator = None
        if KEY_PATTERN.fullmatch(key):
            annotator = Annotator.objects.select_related("project").filter(access_key=key).first()
        if annotator is None:
            raise exceptions.AuthenticationFailed("Unknown annotator key.")
        return AnnotatorPrincipal(annotator), None

    def authenticate_header(self, request: Any) -> str:
        return self.keyword


class BasicAuthentication(authentication.BasicAuthentication):
    """DRF's HTTP Basic, refusing a user name or password with NUL as wrong credentials."""

    def authenticate_credentials(self, userid: str, password: str, request: Any = None) -> Any:
        if "\x00" in userid or "\x00" in password:
            raise exceptions.AuthenticationFailed("Invalid username/password.")
        return super().authenticate_credentials(userid, password, request)
