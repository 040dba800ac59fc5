"""The recruiting actions of the batch admin (publish with a cost confirmation, sync, expire,
extend, pause, resume, add assignments, review). Thin: every action
parses a form (`forms.py`) and calls a service."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils import timezone

from annotation import tasks
from annotation.channels import (
    ChannelError,
    ChannelNotSupported,
    get_channel,
    money,
)
from annotation.models import Batch
from annotation.selectors.study import ended_people
from annotation.services.postings import (
    PostingsReport,
    places_add,
    postings_expire,
    postings_extend,
    postings_pause,
    postings_resume,
)
from annotation.services.publish import (
    PublishRefused,
    batch_publish_request,
    channel_balance,
    cost_estimate,
)
from annotation.services.review import (
    Decisions,
    ReviewError,
    decisions_for,
)

from ..common import request_base_url
from .forms import AddAssignmentsForm, BatchSettingsForm, ExtendForm, ReviewForm
from .review import review_apply

FORM_TEMPLATE = "admin/annotation/batch/recruiting_form.html"
CONFIRM_TEMPLATE = "admin/annotation/batch/recruiting_publish_confirm.html"


def postings_on(batches: Iterable[Batch]) -> str:
    """What the chosen batches' postings are, in their channels' words ("HITs on MTurk")."""
    channels = {batch.channel: get_channel(batch.channel) for batch in batches}
    return " / ".join(sorted(f"{c.posting_noun} on {c.short_title}" for c in channels.values())) or "postings"


class RecruitmentActions(admin.ModelAdmin):
    """Mixed into BatchAdmin: the actions on the batch's recruiting site, whichever it is (the
    batch page's recruiting field is `calls.RecruitingStatus`)."""

    form = BatchSettingsForm
    recruiting_actions = [
        "publish_postings",
        "sync_open_batches",
        "expire_postings",
        "extend_postings",
        "add_places",
        "review_submissions",
        "pause_postings",
        "resume_postings",
    ]

    def has_spend_permission(self, request: HttpRequest) -> bool:
        """For `@admin.action(permissions=["spend"])`: actions that cost money on a recruiting site
        need the batch's change permission and `spend_on_channel`."""
        opts = self.opts
        return request.user.has_perms(
            [f"{opts.app_label}.change_{opts.model_name}", f"{opts.app_label}.spend_on_channel"]
        )

    def _page(
        self, request: HttpRequest, queryset: QuerySet, action: str, title: str, **extra: Any
    ) -> TemplateResponse:
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": title,
            "action": action,
            "selected": [str(pk) for pk in queryset.values_list("pk", flat=True)],
            "batches": list(queryset.select_related("project")),
            **extra,
        }
        return TemplateResponse(request, extra.pop("template", FORM_TEMPLATE), context)

    def _recruiting_only(self, request: HttpRequest, queryset: QuerySet) -> list[Batch]:
        """The chosen batches that recruit on a remote site; others are left alone."""
        chosen = []
        for batch in queryset.select_related("project"):
            channel = get_channel(batch.channel)
            if not channel.recruits_remotely:
                messages.warning(
                    request, f"“{batch}” is recruited by {channel.title}, not on a recruiting site: left alone."
                )
            else:
                chosen.append(batch)
        return chosen

    def _postings_change(
        self, request: HttpRequest, queryset: QuerySet, change: Callable[..., PostingsReport], verb: str
    ) -> None:
        for batch in self._recruiting_only(request, queryset):
            title = get_channel(batch.channel).title
            try:
                report = change(batch=batch)
            except (PublishRefused, ChannelNotSupported) as exc:
                messages.error(request, f"“{batch}”: {exc}")
            else:
                messages.success(request, f"“{batch}” on {title}: {report.summary(verb)}.")

    @admin.action(description="Pause recruiting (where the recruiting site can)", permissions=["change"])
    def pause_postings(self, request: HttpRequest, queryset: QuerySet[Batch]) -> None:
        self._postings_change(request, queryset, postings_pause, "Paused")

    @admin.action(description="Resume recruiting (where the recruiting site can)", permissions=["spend"])
    def resume_postings(self, request: HttpRequest, queryset: QuerySet[Batch]) -> None:
        self._postings_change(request, queryset, postings_resume, "Resumed")

    @admin.action(description="Publish on the recruiting site (shows the cost first)", permissions=["spend"])
    def publish_postings(self, request: HttpRequest, queryset: QuerySet[Batch]) -> TemplateResponse | None:
        first = queryset.first()
        if first is None:  # ids of batches the researcher does not see select nothing
            return None
        rows, problems = [], []
        for batch in queryset.select_related("project"):
            try:
                rows.append((batch, cost_estimate(batch=batch, with_balance=False)))
            except PublishRefused as exc:
                problems.append(f"{batch}: {exc}")
        try:
            balance = channel_balance(batch=first)
        except ChannelError as exc:
            balance = None
            problems.append(f"{get_channel(first.channel).title} did not tell the account balance: {exc}")
        total = sum((e.total for _, e in rows), start=0)
        currencies = {e.currency for _, e in rows}
        if len(currencies) > 1:
            problems.append(
                f"The chosen batches are paid in different currencies ({', '.join(sorted(currencies))}): "
                "publish one recruiting site's batches at a time."
            )
        enough = len(currencies) == 1 and balance is not None and balance >= total
        if request.POST.get("post") == "yes" and enough:
            for batch, _ in rows:
                try:
                    job = batch_publish_request(batch=batch, base_url=request_base_url(request), by=request.user)
                except PublishRefused as exc:
                    messages.error(request, f"“{batch}” was not published: {exc}")
                else:
                    messages.success(
                        request,
                        f"Publishing “{batch}” (job #{job.pk}); its page shows the progress and any unit that failed.",
                    )
            return None
        channels = {get_channel(b.channel).slug: get_channel(b.channel) for b, _ in rows}
        titles = sorted(c.title for c in channels.values()) or [get_channel(first.channel).title]
        return self._page(
            request,
            queryset,
            "publish_postings",
            f"Publish to {' / '.join(titles)}",
            template=CONFIRM_TEMPLATE,
            notes=[c.cost_note for c in channels.values()],
            sign=money("", min(currencies) if currencies else "USD"),
            rows=rows,
            problems=problems,
            balance=balance,
            total=total,
            enough=enough,
            rewards_total=sum((e.rewards_total for _, e in rows), start=0),
            fees_total=sum((e.fees_total for _, e in rows), start=0),
        )

    @admin.action(
        description="Sync submissions from the recruiting site now", permissions=["change"]
    )  # every recruiting site
    def sync_open_batches(self, request: HttpRequest, queryset: QuerySet[Batch]) -> None:
        for batch in self._recruiting_only(request, queryset):
            result = tasks.sync_batch.delay(batch.pk)
            if result.ready() and result.successful():
                r = result.result
                messages.success(
                    request,
                    f"“{batch}” on {get_channel(batch.channel).title}: {r['hits']} posting(s), {r['listed']} submission(s): "
                    f"{r['verified']} verified, {r['flagged']} flagged.",
                )
            elif result.ready():
                messages.error(request, f"“{batch}”: sync failed: {result.result}")
            else:
                messages.info(request, f"“{batch}”: sync started; refresh the batch page in a moment.")

    @admin.action(description="Close the postings (expire HITs, stop studies)", permissions=["change"])
    def expire_postings(self, request: HttpRequest, queryset: QuerySet[Batch]) -> None:
        for batch in self._recruiting_only(request, queryset):
            report = postings_expire(batch=batch)
            messages.success(request, f"“{batch}” on {get_channel(batch.channel).title}: {report.summary('Closed')}.")

    @admin.action(description="Extend the postings (HITs, studies)…", permissions=["change"])
    def extend_postings(self, request: HttpRequest, queryset: QuerySet[Batch]) -> TemplateResponse | None:
        form = ExtendForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            for batch in self._recruiting_only(request, queryset):
                report = postings_extend(batch=batch, hours=form.cleaned_data["hours"])
                messages.success(request, f"“{batch}”: {report.summary('Extended')}.")
            return None
        return self._page(request, queryset, "extend_postings", f"Extend the {postings_on(queryset)}", form=form)

    @admin.action(description="Add assignments to the postings (re-annotate a block)…", permissions=["spend"])
    def add_places(self, request: HttpRequest, queryset: QuerySet[Batch]) -> TemplateResponse | None:
        initial = {"label": f"added {timezone.now():%Y-%m-%d %H:%M:%S}"}
        form = AddAssignmentsForm(request.POST if "apply" in request.POST else None, initial=initial)
        if form.is_valid():
            data = form.cleaned_data
            for batch in self._recruiting_only(request, queryset):
                try:
                    report = places_add(
                        batch=batch, number=data["number"], label=data["label"], positions=data["positions"]
                    )
                except PublishRefused as exc:
                    messages.error(request, f"“{batch}”: {exc}")
                else:
                    messages.success(request, f"“{batch}”: {report.summary('Added assignments to')}.")
            return None
        notes = {get_channel(batch.channel).added_places_note for batch in queryset}
        return self._page(
            request,
            queryset,
            "add_places",
            f"Add assignments to the {postings_on(queryset)}",
            form=form,
            note=" ".join(sorted(note for note in notes if note)),
        )

    @admin.action(description="Review the recruiting site's work from the quality run…", permissions=["spend"])
    def review_submissions(self, request: HttpRequest, queryset: QuerySet[Batch]) -> TemplateResponse | None:
        batches = self._recruiting_only(request, queryset)
        channels = [get_channel(batch.channel) for batch in batches]
        form = ReviewForm(request.POST if "apply" in request.POST else None, channels=channels)
        found: dict[int, Decisions] = {}
        sources: list[str] = []
        for batch in batches:
            try:
                found[batch.pk] = decisions_for(batch)
                sources.append(f"“{batch}”: {found[batch.pk].source}")
            except ReviewError as exc:
                sources.append(f"“{batch}”: {exc}")
        if form.is_valid():
            for batch in batches:
                try:
                    text = review_apply(batch, found.get(batch.pk), form.cleaned_data)
                except (ReviewError, ChannelError) as exc:
                    messages.error(request, f"“{batch}”: {exc}")
                else:
                    messages.success(request, f"“{batch}”: {text}")
            return None
        return self._page(
            request,
            queryset,
            "review_submissions",
            f"Review the work of the {postings_on(queryset)}",
            form=form,
            sources=sources,
            ended=[(batch, ended_people(batch)) for batch in batches],
            note="Only verified submissions are approved, rejected or paid; a sync runs first.",
        )
