"""Read-only admin pages of the recruitment records: publish jobs, postings (HITs, studies) and
submissions."""

from __future__ import annotations

from django.contrib import admin

from annotation.models import Posting, PublishJob, Submission

from ..common import OwnTeamsFilter, TeamScoped, ref_column, time_column
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
        time_column("created_at", "Started"),
        time_column("finished_at", "Finished"),
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

    @admin.display(description="Status", ordering="channel_status")
    def site_status(self, submission: Submission) -> str:
        """The recruiting site's status of the work when last synced."""
        return submission.channel_status


@admin.register(Posting)
class PostingAdmin(TeamScoped, ReadOnlyAdmin):
    project_path = "unit__batch__project"
    list_display = (
        ref_column("ref", "Posting"),
        "unit",
        "round",
        "status",
        "places",
        time_column("expiration", "Expires"),
    )
    list_filter = ("status", ("unit__batch", OwnTeamsFilter))
    list_select_related = ("unit__batch",)
    search_fields = ("ref", "group_ref")
    fields = ("ref", "group_ref", "unit", "round", "status", "places", "expiration", "created_at", "updated_at")
    readonly_fields = fields

    @admin.display(description="Status", ordering="channel_status")
    def site_status(self, submission: Submission) -> str:
        """The recruiting site's status of the work when last synced."""
        return submission.channel_status


@admin.register(Submission)
class SubmissionAdmin(TeamScoped, ReadOnlyAdmin):
    project_path = "batch__project"
    list_display = (
        ref_column("ref", "Id"),  # the site's: MTurk's assignmentId, a Prolific submission
        ref_column("participant_ref", "Participant"),
        "batch",
        "site_status",
        "verified",
        "problem",
        "review",
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

    @admin.display(description="Status", ordering="channel_status")
    def site_status(self, submission: Submission) -> str:
        """The recruiting site's status of the work when last synced."""
        return submission.channel_status
