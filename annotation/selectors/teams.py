"""Which projects a researcher may reach: the one place that says so. Every researcher-facing
surface (admin, API, quality pages, admin actions) filters through these selectors, so two
research groups sharing a deployment never see each other's data. Superusers reach everything;
anybody else reaches the projects of the teams they are a member of, and the rows hanging off
them (batches, items, responses, runs, exports...)."""

from __future__ import annotations

from typing import Any, TypeVar

from django.db.models import Model, QuerySet

from annotation.models import Project, Team

M = TypeVar("M", bound=Model)


def _is_account(user: Any) -> bool:
    """A signed-in Django account: not anonymous, not an annotator's key (which has no pk)."""
    return bool(getattr(user, "is_authenticated", False)) and getattr(user, "pk", None) is not None


def _is_superuser(user: Any) -> bool:
    return _is_account(user) and bool(getattr(user, "is_superuser", False))


def teams_of(user: Any) -> QuerySet[Team]:
    """The teams `user` may put projects in: all of them for a superuser, else their own."""
    if _is_superuser(user):
        return Team.objects.all()
    if not _is_account(user):
        return Team.objects.none()
    return Team.objects.filter(members=user)


def projects_visible_to(user: Any) -> QuerySet[Project]:
    """Projects `user` may see and change; an anonymous user or an annotator reaches none."""
    if _is_superuser(user):
        return Project.objects.all()
    if not _is_account(user):
        return Project.objects.none()
    return Project.objects.filter(team__in=Team.objects.filter(members=user).values("pk"))


def visible_to(user: Any, queryset: QuerySet[M], *, project: str = "project") -> QuerySet[M]:
    """`queryset` narrowed to rows of projects `user` may reach; `project` is the lookup from the
    queryset's model to its project ("project", "batch__project", "run__project", "" for projects).

    A subquery of the project ids rather than a join on the members, so no row is repeated and
    annotations (counts) are unaffected."""
    if _is_superuser(user):
        return queryset
    projects = projects_visible_to(user).values("pk")
    return queryset.filter(**{f"{project}__in" if project else "pk__in": projects})


def default_team_of(user: Any) -> Team | None:
    """The team a new project goes to when none is named: the user's only team, else None (the
    user chooses). A superuser outside any team chooses among all of them."""
    own = list(Team.objects.filter(members=user)[:2]) if _is_account(user) else []
    if len(own) == 1:
        return own[0]
    if not own and _is_superuser(user):
        every = list(Team.objects.all()[:2])
        return every[0] if len(every) == 1 else None
    return None
