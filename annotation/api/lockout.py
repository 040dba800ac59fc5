"""A locked-out API login (HTTP Basic) says that the account is locked, as django-axes documents
for Django REST Framework: a `user_locked_out` receiver raises DRF's PermissionDenied. Without it
DRF answers the lockout like a wrong password, and the caller keeps guessing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from axes.signals import user_locked_out
from django.conf import settings
from django.dispatch import receiver
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request


def lockout_message() -> str:
    cooloff = settings.AXES_COOLOFF_TIME
    wait = (
        f"Try again in {int(cooloff.total_seconds() // 60)} minutes"
        if isinstance(cooloff, timedelta)
        else "Try again later"
    )
    return (
        "This account is locked: too many failed logins with this user name from this address. "
        f"{wait}, or ask an administrator to unlock it."
    )


class AccountLocked(PermissionDenied):
    default_code = "account_locked"


@receiver(user_locked_out, dispatch_uid="annotation.api.lockout")
def refuse_locked_api_login(sender: Any, request: Any = None, **kwargs: Any) -> None:
    """Only an API request (a DRF Request) is refused here; the admin login keeps axes' own page."""
    if isinstance(request, Request):
        raise AccountLocked(lockout_message())
