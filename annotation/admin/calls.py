"""What happened on the recruiting site, read-only: the batch page's recruiting status with its
latest calls to the site, and the lists of calls (``ChannelCall``) and bulk bonus orders."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.db.models import Count, Q
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from annotation.channels import get_channel
from annotation.models import Batch, BulkPayment, ChannelCall
from annotation.selectors.batches import publishable_units
from annotation.services.publish import consistency_lead_count, job_stale_minutes
from annotation.services.review import unverified_pending

from .common import TeamScoped, ref_column, time_column
from .work import ReadOnlyAdmin

LATEST_CALLS = 10


class RecruitingStatus:
    """Mixed into BatchAdmin: the read-only fields of a batch recruited on a remote site."""

    @admin.display(description="Recruiting site")
    def recruitment_status(self, batch: Batch) -> SafeString | str:
        channel = get_channel(batch.channel)
        if not channel.recruits_remotely:
            return "—"
        units = publishable_units(batch)
        lines = [
            format_html(
                "{} of {} units {}.", units.exclude(channel_ref="").count(), units.count(), channel.published_as
            )
        ]
        lead = consistency_lead_count(batch)
        if lead:
            lines.append(format_html("The {} consistency items come first in each worker's first unit.", lead))
        lines += _job_lines(batch)
        counts = batch.submissions.aggregate(
            ok=Count("id", filter=Q(verified=True)),
            flagged=Count("id", filter=Q(verified=False)),
            ended=Count("id", filter=~Q(ended="")),
        )
        url = reverse("admin:annotation_submission_changelist") + f"?batch__id__exact={batch.pk}"
        lines.append(
            format_html(
                'Submissions: {} verified, <a href="{}">{} flagged</a>; {} ended by the study (never rejected).',
                counts["ok"],
                url + "&verified__exact=0",
                counts["flagged"],
                counts["ended"],
            )
        )
        pending = unverified_pending(batch).count()
        if pending:
            lines.append(
                format_html(
                    "<strong>{} unverified submission(s) still {} on {}</strong>: {} approves and pays them "
                    "when the auto-approval delay runs out unless you reject them (Review → Reject unverified).",
                    pending,
                    channel.awaiting_review_status,
                    channel.short_title,
                    channel.short_title,
                )
            )
        return format_html_join("", "<div>{}</div>", ((line,) for line in lines))

    @admin.display(description="Calls to the recruiting site")
    def call_log(self, batch: Batch) -> SafeString | str:
        calls = batch.channel_calls.all()
        total = calls.count()
        if not total:
            return "None yet."
        url = reverse("admin:annotation_channelcall_changelist") + f"?batch__id__exact={batch.pk}"
        failed = calls.exclude(outcome=ChannelCall.Outcome.OK).count()
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    f"{c.created_at:%Y-%m-%d %H:%M:%S}",
                    c.operation,
                    c.status or "—",
                    c.get_outcome_display(),
                    c.error[:200],
                )
                for c in calls[:LATEST_CALLS]
            ),
        )
        return format_html(
            '<div><a href="{}">{} call(s)</a>, {} not done. The latest:</div><table class="call-log"><thead><tr>'
            "<th>When</th><th>Operation</th><th>HTTP</th><th>Outcome</th><th>Error</th></tr></thead>"
            "<tbody>{}</tbody></table>",
            url,
            total,
            failed,
            rows,
        )


def _job_lines(batch: Batch) -> list[SafeString]:
    job = batch.publish_jobs.first()
    if job is None:
        return []
    lines = [
        format_html(
            "Publish job #{}: {} ({} of {} units){}",
            job.pk,
            job.get_status_display(),
            job.done,
            job.total,
            f" — {job.error}" if job.error else "",
        )
    ]
    stale = job_stale_minutes(job)
    if stale is not None:
        lines.append(
            format_html(
                "No progress for {} minutes: the watchdog sends the job to the workers again "
                "(sent {} of {} times), then marks it failed.",
                stale,
                job.dispatches,
                settings.PUBLISH_MAX_DISPATCHES,
            )
        )
    if job.failures:
        lines.append(
            format_html(
                "Failed units: <ul>{}</ul>",
                format_html_join("", "<li>unit #{}: {}</li>", ((f["position"], f["reason"]) for f in job.failures)),
            )
        )
    return lines


@admin.register(ChannelCall)
class ChannelCallAdmin(TeamScoped, ReadOnlyAdmin):
    project_path = "batch__project"  # a call made for no batch (the balance) is shown to superusers only
    list_display = (
        time_column("created_at", "Time"),
        "channel",
        ref_column("operation", "Operation"),  # an API's name: CreateHITWithHITType
        "status",
        "outcome",
        "took",
        "batch",
        "error",
    )
    list_filter = ("outcome", "channel", "operation", "batch")
    list_select_related = ("batch",)
    search_fields = ("operation", "request", "error")
    fields = ("created_at", "batch", "channel", "operation", "request", "status", "outcome", "error", "duration_ms")
    readonly_fields = fields

    def has_delete_permission(self, request, obj: ChannelCall | None = None) -> bool:
        return False  # the record of what was sent and paid stays

    @admin.display(description="Took", ordering="duration_ms")
    def took(self, call: ChannelCall) -> str | None:
        """Seconds, retries included."""
        return None if call.duration_ms is None else f"{call.duration_ms / 1000:.1f} s"


@admin.register(BulkPayment)
class BulkPaymentAdmin(TeamScoped, ReadOnlyAdmin):
    project_path = "batch__project"
    list_display = (
        "label",
        "part",
        "batch",
        "state",
        "total",
        ref_column("ref", "Order"),
        time_column("paid_at", "Paid"),
    )
    list_filter = ("state", "batch")
    list_select_related = ("batch",)
    fields = ("batch", "label", "part", "ref", "state", "total", "error", "created_at", "paid_at")
    readonly_fields = fields

    def has_delete_permission(self, request, obj: BulkPayment | None = None) -> bool:
        return False
