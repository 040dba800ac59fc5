"""Small helpers the annotation admin pages share."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

from django.contrib import admin
from django.db.models import ForeignKey, Model, QuerySet
from django.forms import ModelChoiceField
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.timezone import localtime

from annotation.models import Batch, InviteLink, ModelConnection, Project, Team
from annotation.selectors.batches import invite_url
from annotation.selectors.teams import projects_visible_to, teams_of, visible_to


def adopt(obj: Model, created: Model) -> None:
    """Make the admin's unsaved `obj` the row a service created, so the admin's own
    redirect and change log point at it (save_model calls services, not obj.save())."""
    obj.__dict__.update(created.__dict__)


def pretty_json(value: Any) -> SafeString:
    """JSON as released or answered, readable, never re-encoded (ensure_ascii off)."""
    return format_html("<pre class='json-value'>{}</pre>", json.dumps(value, indent=2, ensure_ascii=False))


def breakable(value: object) -> SafeString:
    """An id, hash, token or URL that may break anywhere to fit its column, in lines of at least
    `BREAKABLE_LINE` characters (ordinary words never do: admin.css gives only `.breakable`
    `overflow-wrap: anywhere`). A value no longer than that has no need to break."""
    text = str(value)
    if len(text) <= BREAKABLE_LINE:
        return format_html("{}", text)
    return format_html('<span class="breakable">{}</span>', text)


#: the shortest line a breakable value breaks into (`min-width: 10ch` in admin.css): ten characters
#: keep a 24-character Prolific id to three lines and two such columns within 1,280 px
BREAKABLE_LINE = 10


#: a list_display column: a row in, what the cell shows out (None: the admin's "-"); typed loosely
#: because django-stubs allows only str or bool there
Column = Callable[[Any], Any]


def ref_column(field: str, description: str, ordering: str | None = None) -> Column:
    """A list column of an id, or of a related row named by one: shown whole, breakable
    anywhere (empty: the admin's "-"). Named `field` for the column's CSS class."""

    @admin.display(description=description, ordering=ordering or field)
    def column(obj: Model) -> SafeString | None:
        value = getattr(obj, field)
        return breakable(value) if value not in (None, "") else None

    column.__name__ = field
    return column


def time_column(field: str, description: str) -> Column:
    """A list column of a date and time in 16 characters ("2026-11-28 10:05", local time; it may
    wrap between the two, never at a hyphen), the whole date in its tooltip: the admin's "Nov. 28, 2026, 10:05 a.m."
    takes half as much again."""

    @admin.display(description=description, ordering=field)
    def column(obj: Model) -> SafeString | None:
        value = getattr(obj, field)
        if value is None:
            return None
        value = localtime(value)
        return format_html(
            '<time datetime="{}" title="{}"><span class="nowrap">{}</span> <span class="nowrap">{}</span></time>',
            value.isoformat(),
            date_format(value, "DATETIME_FORMAT"),
            value.strftime("%Y-%m-%d"),
            value.strftime("%H:%M"),
        )

    column.__name__ = field
    return column


def quality_report_url(project_id: int) -> str | None:
    """The quality app's report page, by URL name only: annotation never imports quality."""
    try:
        return reverse("quality:report", args=[project_id])
    except NoReverseMatch:
        return None


def preview_url(project_id: int) -> str | None:
    """The researcher's preview of the annotator pages (the surveys app), by URL name only."""
    try:
        return reverse("surveys:preview", args=[project_id])
    except NoReverseMatch:
        return None


def request_base_url(request: HttpRequest) -> str:
    """Links shown in the admin use the address the researcher reached the site by."""
    return request.build_absolute_uri("/")


#: the columns made for a request (by description), for as long as the request lives
_INVITE_LINK_COLUMNS: WeakKeyDictionary[HttpRequest, dict[str, Callable[[InviteLink], SafeString]]] = (
    WeakKeyDictionary()
)


def invite_link_column(
    request: HttpRequest, description: str = "Invite link (send this to annotators)"
) -> Callable[[InviteLink], SafeString]:
    """A list/readonly column showing an invite's full URL (breakable: a token has no spaces); it
    needs the request for the host.

    The same function object is returned for the whole request: the admin matches readonly
    fields by identity.
    """
    made = _INVITE_LINK_COLUMNS.setdefault(request, {})
    if description in made:
        return made[description]
    base = request_base_url(request)

    @admin.display(description=description)
    def invite_link(invite: InviteLink) -> SafeString:
        url = invite_url(invite.token, base_url=base)
        return format_html('<a href="{}" target="_blank" rel="noopener">{}</a>', url, breakable(url))

    made[description] = invite_link
    return invite_link


class TeamScoped:
    """Mixed in first into every researcher's ModelAdmin: the rows of other teams' projects are not
    there at all (changelist, change, delete and history pages, actions, the custom pages that use
    `get_object`), so their ids answer like ids that do not exist; and a choice of project, batch
    or team offers only the researcher's own. `project_path` leads from the model to its project."""

    project_path = "project"

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return visible_to(request.user, super().get_queryset(request), project=self.project_path)  # type: ignore[misc]

    def formfield_for_foreignkey(self, db_field: ForeignKey, request: HttpRequest, **kwargs: Any) -> ModelChoiceField:
        if db_field.related_model is Project:
            kwargs["queryset"] = projects_visible_to(request.user)
        elif db_field.related_model is Batch:
            kwargs["queryset"] = visible_to(request.user, Batch.objects.all())
        elif db_field.related_model is Team:
            kwargs["queryset"] = teams_of(request.user)
        elif db_field.related_model is ModelConnection:
            kwargs["queryset"] = ModelConnection.objects.filter(team__in=teams_of(request.user))
        return super().formfield_for_foreignkey(db_field, request, **kwargs)  # type: ignore[misc]


def _project_path(model: type[Model]) -> str:
    """The lookup from `model` to its project: itself, its `project`, or its batch's."""
    names = {f.name for f in model._meta.get_fields()}
    return "" if model is Project else "project" if "project" in names else "batch__project"


class OwnTeamsFilter(admin.RelatedFieldListFilter):
    """A list filter over a project, batch, team or run that offers only the researcher's own (the
    plain one lists every project of the deployment, other teams' names included). Cheaper than
    RelatedOnlyFieldListFilter on large tables: it never scans the listed rows."""

    def field_choices(self, field: Any, request: HttpRequest, model_admin: admin.ModelAdmin) -> list:
        related = field.related_model
        if related is Team:
            mine = teams_of(request.user)
        else:
            mine = visible_to(request.user, related._default_manager.all(), project=_project_path(related))
        ordering = self.field_admin_ordering(field, request, model_admin)
        if related is Batch:  # batches of several projects share names ("Demo batch"): say whose
            batches = Batch.objects.filter(pk__in=mine.values("pk")).select_related("project")
            batches = batches.order_by("project__name", *(ordering or ("name", "pk")))
            return [(batch.pk, f"{batch.project.name} · {batch.name}") for batch in batches]
        return field.get_choices(include_blank=False, ordering=ordering, limit_choices_to={"pk__in": mine.values("pk")})
