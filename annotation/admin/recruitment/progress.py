"""What the batch page shows of a batch's recruiting: units published, the publish job's
progress and failures, submissions verified and flagged, and unverified work still pending."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count, Q
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from annotation.models import Batch
from annotation.selectors import publishable_units
from annotation.services.publish import consistency_lead_count, job_stale_minutes
from annotation.services.review import unverified_pending


def recruitment_progress(batch: Batch) -> SafeString | str:
    """The batch page's recruiting field (a dash for a batch that does not recruit on MTurk)."""
    if batch.channel != "mturk":
        return "—"
    job = batch.publish_jobs.first()
    units = publishable_units(batch)
    lines = [format_html("{} of {} units published as HITs.", units.exclude(channel_ref="").count(), units.count())]
    lead = consistency_lead_count(batch)
    if lead:
        lines.append(format_html("The {} consistency items come first in each worker's first HIT.", lead))
    if job is not None:
        lines.append(
            format_html(
                "Publish job #{}: {} ({} of {} units){}",
                job.pk,
                job.get_status_display(),
                job.done,
                job.total,
                f" — {job.error}" if job.error else "",
            )
        )
        stale = job_stale_minutes(job)
        if stale is not None:
            lines.append(
                format_html(
                    "No progress for {} minutes: the watchdog sends the job to the workers again "
                    "(sent {} of {} times), then marks it failed.",
                    stale,
                    job.dispatches,
                    settings.MTURK_PUBLISH_MAX_DISPATCHES,
                )
            )
        if job.failures:
            lines.append(
                format_html(
                    "Failed units: <ul>{}</ul>",
                    format_html_join("", "<li>unit #{}: {}</li>", ((f["position"], f["reason"]) for f in job.failures)),
                )
            )
    counts = batch.submissions.aggregate(
        ok=Count("id", filter=Q(verified=True)), flagged=Count("id", filter=Q(verified=False))
    )
    url = reverse("admin:annotation_submission_changelist") + f"?batch__id__exact={batch.pk}"
    lines.append(
        format_html(
            'Submissions: {} verified, <a href="{}">{} flagged</a>.',
            counts["ok"],
            url + "&verified__exact=0",
            counts["flagged"],
        )
    )
    pending = unverified_pending(batch).count()
    if pending:
        lines.append(
            format_html(
                "<strong>{} unverified submission(s) still Submitted on MTurk</strong>: MTurk approves and pays them "
                "when the auto-approval delay runs out unless you reject them (Review → Reject unverified).",
                pending,
            )
        )
    return format_html_join("", "<div>{}</div>", ((line,) for line in lines))
