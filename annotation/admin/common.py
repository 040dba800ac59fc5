"""Small helpers the annotation admin pages share."""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from annotation.models import InviteLink
from annotation.selectors import invite_url


def adopt(obj: Model, created: Model) -> None:
    """Make the admin's unsaved `obj` the row a service created, so the admin's own
    redirect and change log point at it (save_model calls services, not obj.save())."""
    obj.__dict__.update(created.__dict__)


def pretty_json(value: Any) -> SafeString:
    """JSON as released or answered, readable, never re-encoded (ensure_ascii off)."""
    return format_html("<pre class='json-value'>{}</pre>", json.dumps(value, indent=2, ensure_ascii=False))


def quality_report_url(project_id: int) -> str | None:
    """The quality app's report page, by URL name only: annotation never imports quality."""
    try:
        return reverse("quality:report", args=[project_id])
    except NoReverseMatch:
        return None


def request_base_url(request: HttpRequest) -> str:
    """Links shown in the admin use the address the researcher reached the site by."""
    return request.build_absolute_uri("/")


def invite_link_column(request: HttpRequest) -> Callable[[InviteLink], SafeString]:
    """A list/readonly column showing an invite's full URL; it needs the request for the host.

    The same function object is returned for the whole request: the admin matches readonly
    fields by identity.
    """
    cached = getattr(request, "_invite_link_column", None)
    if cached is not None:
        return cached
    base = request_base_url(request)

    @admin.display(description="Invite link (send this to annotators)")
    def invite_link(invite: InviteLink) -> SafeString:
        url = invite_url(invite.token, base_url=base)
        return format_html('<a href="{}" target="_blank" rel="noopener">{}</a>', url, url)

    request._invite_link_column = invite_link
    return invite_link
