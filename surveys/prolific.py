"""The Prolific participant's side: the study URL lands here, the pages follow, and the end
sends the browser back to Prolific with the batch's completion code.

Prolific opens `/prolific/?PROLIFIC_PID=…&STUDY_ID=…&SESSION_ID=…`. PROLIFIC_PID names the
person but is never trusted alone: STUDY_ID must be the study of one of our batches, and the work
is bound to SESSION_ID (Prolific's submission id) as MTurk work is to its assignmentId: another
session id for the same person starts separate work and never reaches the first.

The pages are keyed by a signed token in the URL that names the one assignment (not the
annotator's access key, which opens whatever the annotator has in the batch, whichever session
asks). Pages are top-level here (not framed), so the site's cookies and CSRF protection apply as
usual; all saves go through the one save path (`surveys.views.save_page`).
"""

from __future__ import annotations

from django.core import signing
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from annotation import prolific
from annotation.channels import get_channel
from annotation.channels.base import money
from annotation.channels.prolific import ProlificChannel, completion_redirect
from annotation.kinds import kind_of
from annotation.models import Assignment, Batch, Unit
from annotation.selectors.work import assignment_with_progress, response_for_save
from annotation.services.assignments import (
    EntryRefused,
    NoWorkLeft,
    annotator_for_channel,
    assignment_open_for_session,
)
from annotation.services.entries import entry_confirm, unconfirmed_reason
from annotation.services.responses import assignment_submit_if_complete

from . import flow
from .pages import ENGINE
from .study import STEP_FIELD, Way, study_page, study_post
from .views import posted_response_id, refuse_post, render_step, save_page

CHANNEL = "prolific"
WORK_SALT = "surveys.prolific.work"


def work_token(assignment_pk: int) -> str:
    """The URL capability for one assignment's pages (and nothing else)."""
    return signing.dumps({"a": assignment_pk}, salt=WORK_SALT)


def work_token_pk(token: str) -> int | None:
    try:
        return int(signing.loads(token, salt=WORK_SALT)["a"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None


def _refuse(request: HttpRequest, reason: str, *, project=None, status: int = 400) -> HttpResponse:
    return render(request, "surveys/closed.html", {"project": project, "reason": reason}, status=status, using=ENGINE)


@never_cache
@require_GET
def entry(request: HttpRequest) -> HttpResponse:
    pid, study_id, session_id = (request.GET.get(k, "") for k in ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID"))
    channel = get_channel(CHANNEL)
    problem = channel.entry_problem(participant=pid, posting=study_id, work=session_id)
    if problem:
        return _refuse(request, problem)
    units = Unit.objects.select_related("batch__project").filter(batch__channel=CHANNEL)
    unit = units.filter(Q(channel_ref=study_id) | Q(postings__ref=study_id)).first()
    if unit is None:
        return _refuse(request, _("This study is not known here. Please return it on Prolific."), status=404)
    batch, project = unit.batch, unit.batch.project
    translation.activate(project.language)
    # Prolific is asked before any work is handed out: a made-up session takes no place
    check = entry_confirm(channel=channel, batch=batch, participant=pid, posting=study_id, work=session_id)
    if check.confirmed is False:
        return _refuse(
            request, f"{check.reason} " + _("Please open the study again from Prolific."), project=project, status=403
        )
    annotator = annotator_for_channel(project=project, channel=CHANNEL, external_id=pid, batch=batch)
    try:
        assignment = assignment_open_for_session(
            batch=batch, annotator=annotator, channel_assignment_id=session_id, unconfirmed=unconfirmed_reason(check)
        )
    except EntryRefused as exc:
        return _refuse(request, str(exc), project=project, status=409)
    except NoWorkLeft as exc:
        return _refuse(request, f"{exc} " + _("Please return the study on Prolific."), project=project, status=410)
    return redirect("surveys:prolific-work", token=work_token(assignment.pk))


@never_cache
@require_http_methods(["GET", "POST"])
def work(request: HttpRequest, token: str) -> HttpResponse:
    assignment_pk = work_token_pk(token)
    if assignment_pk is None:
        raise Http404("Unknown task link")
    if request.method == "POST" and STEP_FIELD in request.POST:
        found = assignment_with_progress(assignment_pk)
        if found is None:
            raise Http404("Unknown task link")
        assignment = found[0]
        translation.activate(assignment.annotator.project.language)
        batch = assignment.unit.batch
        handled = study_post(request, annotator=assignment.annotator, batch=batch, way=prolific_way(batch))
        if handled is not None:
            return handled
    if request.method == "POST":
        response = response_for_save(posted_response_id(request), assignment_id=assignment_pk)
        if response is None:
            return refuse_post(request, back=request.path)
        translation.activate(response.item.project.language)
        return save_page(request, response, back=request.path, next_page=lambda: _page(request, assignment_pk))
    return _page(request, assignment_pk)


def _page(request: HttpRequest, assignment_pk: int) -> HttpResponse:
    """The current step, or (all items saved) the way back to Prolific with the code."""
    found = assignment_with_progress(assignment_pk)
    if found is None:
        raise Http404("Unknown task link")
    assignment, progress = found
    project = assignment.annotator.project
    translation.activate(project.language)
    if assignment.study_hold or progress.current is None:
        batch = assignment.unit.batch
        step_page = study_page(
            request,
            annotator=assignment.annotator,
            batch=batch,
            work_left=progress.current is not None,
            way=prolific_way(batch),
        )
        if step_page is not None:
            return step_page
    if assignment.status in (Assignment.Status.RELEASED, Assignment.Status.REJECTED):
        return _refuse(
            request,
            _("This task can no longer be changed. To take part again, open the study from Prolific."),
            project=project,
            status=410,
        )
    if progress.current is None:
        if assignment.status == Assignment.Status.ACTIVE:
            assignment_submit_if_complete(assignment)
        return redirect(completion_redirect(assignment.unit.batch))
    step = flow.step_for(progress.current, kind_of(project))
    return render_step(request, project, step, progress)


def prolific_way(batch: Batch) -> Way:
    """Back to Prolific with the study's second code, whose action asks the participant to return
    the study (or, where the batch's settings ask for a fixed screen-out, screens them out with
    that payment): their place is freed and nothing counts against them (Prolific's rule for a
    failed comprehension check: a return, never a rejection)."""
    channel = get_channel(CHANNEL)
    paid = channel.settings_for(batch).screen_out_reward if isinstance(channel, ProlificChannel) else None
    how = (
        _(
            "Go back to Prolific with the button below: Prolific screens you out with a payment of %(paid)s, "
            "which frees your place and does not count against you."
        )
        % {"paid": money(paid, channel.currency_code())}
        if paid is not None
        else _(
            "Go back to Prolific with the button below: Prolific will ask you to return the study, which frees "
            "your place and does not count against you."
        )
    )
    return Way(
        how=how,
        url=completion_redirect(batch, prolific.FAILED_ATTENTION_CHECK),
        back=_("Back to Prolific"),
        # stopped by live quality after some work: the completed code; the review approves finished
        # work and asks for unfinished work back, never a rejection (services.ended)
        after_work=Way(
            how=_("Go back to Prolific with the button below: the researcher reviews the work you did."),
            url=completion_redirect(batch),
            back=_("Back to Prolific"),
        ),
    )
