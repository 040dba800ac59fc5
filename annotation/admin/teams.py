"""Teams in the admin: a superuser makes them and puts researchers in them; a researcher sees
(and, with the permissions, changes) only the teams they are in."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db.models import Count, ManyToManyField, QuerySet
from django.http import HttpRequest

from annotation.models import Team
from annotation.selectors.teams import teams_of
from annotation.services.teams import team_ensure


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "member_count", "project_count", "created_at")
    search_fields = ("name",)
    filter_horizontal = ("members",)
    fields = ("name", "members", "created_at")
    readonly_fields = ("created_at",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Team]:
        return teams_of(request.user).annotate(
            n_members=Count("members", distinct=True), n_projects=Count("projects", distinct=True)
        )

    def formfield_for_manytomany(
        self, db_field: ManyToManyField, request: HttpRequest, **kwargs: Any
    ) -> forms.ModelMultipleChoiceField:
        """Members are researchers: staff accounts (annotators' logins are not staff)."""
        if db_field.name == "members":
            kwargs["queryset"] = get_user_model().objects.filter(is_staff=True).order_by("username")
        return super().formfield_for_manytomany(db_field, request, **kwargs)  # type: ignore[return-value]

    def save_related(self, request: HttpRequest, form: forms.ModelForm, formsets: Any, change: bool) -> None:
        """Whoever makes a team is in it (a superuser sees every team anyway), so it never
        vanishes from its maker's list."""
        super().save_related(request, form, formsets, change)
        if not change and not request.user.is_superuser:
            team_ensure(name=form.instance.name, members=[request.user])  # type: ignore[list-item]

    @admin.display(description="Members", ordering="n_members")
    def member_count(self, team: Team) -> int:
        return team.n_members  # type: ignore[attr-defined]

    @admin.display(description="Projects", ordering="n_projects")
    def project_count(self, team: Team) -> int:
        return team.n_projects  # type: ignore[attr-defined]
