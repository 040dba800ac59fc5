"""Read-only admin pages of the recruitment records: publish jobs, postings (HITs, studies) and
submissions."""

from __future__ import annotations

from django.contrib import admin

from annotation.models import Posting, PublishJob, Submission

from ..common import OwnTeamsFilter, TeamScoped
from ..work import ReadOnlyAdmin


@admin.register(PublishJob)
class PublishJobAdmin(TeamScoped, ReadOnlyAdmin):
    project_path = "batch__project"
    list_display = (
        "id",
        "batch",
        "status",
        "done",
        "total",
        "dispatches",
        "progress_at",
        "created_by",
        "created_at",
        "finished_at",
    )
    list_filter = ("status", ("batch__project", OwnTeamsFilter))
    list_select_related = ("batch", "created_by")
    fields = (
        "batch",
        "status",
        "done",
        "total",
        "failures",
        "error",
        "base_url",
        "celery_task_id",
        "dispatches",
        "progress_at",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
    )
    readonly_fields = fields


@admin.register(Posting)
class PostingAdmin(TeamScoped, ReadOnlyAdmin):
    project_path = "unit__batch__project"
    list_display = ("ref", "unit", "round", "status", "places", "expiration", "created_at")
    list_filter = ("status", ("unit__batch", OwnTeamsFilter))
    list_select_related = ("unit__batch",)
    search_fields = ("ref", "group_ref")
    fields = ("ref", "group_ref", "unit", "round", "status", "places", "expiration", "created_at", "updated_at")
    readonly_fields = fields


@admin.register(Submission)
class SubmissionAdmin(TeamScoped, ReadOnlyAdmin):
    project_path = "batch__project"
    list_display = (
        "ref",
        "participant_ref",
        "batch",
        "channel_status",
        "verified",
        "problem",
        "ended",
        "review",
        "synced_at",
    )
    list_filter = ("verified", "channel_status", "review", ("batch", OwnTeamsFilter))
    list_select_related = ("batch",)
    search_fields = ("ref", "participant_ref", "posting_ref")
    fields = (
        "ref",
        "posting_ref",
        "participant_ref",
        "batch",
        "assignment",
        "channel_status",
        "verified",
        "problem",
        "ended",
        "submitted_at",
        "review",
        "feedback",
        "reviewed_at",
        "synced_at",
    )
    readonly_fields = fields

    class Media:
        css = {"all": ["annotation/admin.css"]}  # the list fits at 1,400 px (ids break, times wrap)
