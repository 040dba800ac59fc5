"""Who may call what: researchers are staff with the admin's model permissions; annotators reach
only `me`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework.permissions import BasePermission, DjangoModelPermissions

from .auth import AnnotatorPrincipal

if TYPE_CHECKING:  # rest_framework.views loads this module through its settings: no import cycle
    from rest_framework.request import Request
    from rest_framework.views import APIView

VIEW = ["%(app_label)s.view_%(model_name)s"]
CHANGE = ["%(app_label)s.change_%(model_name)s"]


class ModelPermissions(DjangoModelPermissions):
    """The admin's permissions in the API, so `is_staff` alone opens nothing: view to read, add to
    create, change to update, delete to delete (DRF's documented `perms_map` override; the
    default lets anyone read).

    A view without a plain queryset, or an `@action` whose method does not say what it does,
    names its permissions instead: `required_permissions = {"GET": [...], "POST": [...]}` (HEAD
    and OPTIONS need what GET needs; a method it does not name is refused). On a viewset the
    class attribute is `None` and `@action(required_permissions=...)` sets it per route."""

    perms_map = {
        "GET": VIEW,
        "OPTIONS": VIEW,
        "HEAD": VIEW,
        "POST": ["%(app_label)s.add_%(model_name)s"],
        "PUT": CHANGE,
        "PATCH": CHANGE,
        "DELETE": ["%(app_label)s.delete_%(model_name)s"],
    }

    def has_permission(self, request: Request, view: APIView) -> bool:
        required = getattr(view, "required_permissions", None)
        if required is None:
            return super().has_permission(request, view)
        method = "GET" if request.method in ("HEAD", "OPTIONS") else request.method
        user = request.user
        if not (user and user.is_authenticated and method in required):
            return False
        return user.has_perms(required[method])


class IsAnnotator(BasePermission):
    """Only a request authenticated by an annotator key; staff sessions do not count, so an
    annotator endpoint can never be used to read somebody else's work."""

    message = "Authenticate with your annotator key: 'Authorization: Annotator <key>'."

    def has_permission(self, request: Request, view: APIView) -> bool:
        return isinstance(request.user, AnnotatorPrincipal)
