"""The MTurk worker's side: our ExternalQuestion page inside MTurk's frame.

MTurk opens `/mturk/?assignmentId=…&hitId=…&workerId=…&turkSubmitTo=…`. A preview shows the
instructions and an example and records nothing; an accepted assignment is opened on our side
and the worker goes on at `/mturk/work/<signed token>/`. No cookie is needed in the frame (they
are third-party there): the signed token in the URL is the only key, so cookie-based CSRF is not
used on these pages (there is no ambient credential to forge a request with). The finished HIT
is posted to `turkSubmitTo/mturk/externalSubmit` with the assignment id and a completion token
that sync checks before anything is approved or paid.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from urllib.parse import urlsplit

from csp.decorators import csp_replace
from django.conf import settings
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods

from annotation.channels import get_channel
from annotation.kinds import kind_of
from annotation.models import Assignment, Response, Unit
from annotation.mturk.tokens import COMPLETION_FIELD, completion_token, work_token, work_token_data
from annotation.selectors.work import assignment_with_progress, response_for_save
from annotation.services.assignments import EntryRefused, annotator_for_channel, assignment_open_for_channel
from annotation.services.entries import entry_confirm, unconfirmed_reason
from annotation.services.responses import assignment_submit_if_complete

from . import flow
from .pages import ENGINE, instructions_of
from .study import STEP_FIELD, Way, study_page, study_post
from .views import posted_response_id, refuse_post, render_step, save_page

PREVIEW_ID = "ASSIGNMENT_ID_NOT_AVAILABLE"
#: where MTurk frames worker pages and where a finished HIT is posted back
MTURK_WORKER_ORIGINS = ("https://worker.mturk.com", "https://workersandbox.mturk.com", "https://www.mturk.com")
#: MTurk has no way back but returning the HIT, which never counts against the worker
MTURK_WAY = Way(
    how=gettext_lazy(
        "Please return this HIT on Mechanical Turk (do not submit it): returning it does not count against you."
    ),
    after_work=Way(how=gettext_lazy("Submit the task below: the researcher reviews the work you did.")),
)
FRAMED = {"in_frame": True}


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def worker_origins() -> tuple[str, ...]:
    """MTurk's worker hosts, and the local MTurk-compatible endpoint's when it is the one in use."""
    if settings.MTURK_ENDPOINT == "local":
        return (*MTURK_WORKER_ORIGINS, _origin(settings.MTURK_LOCAL_URL))
    return MTURK_WORKER_ORIGINS


def in_mturk_frame(view: Callable) -> Callable:
    """Framing allowed only by MTurk's worker hosts (not by any site), never cached."""

    @wraps(view)
    def framed(request: HttpRequest, *args, **kwargs) -> HttpResponseBase:
        # the site's policy (django-csp), with framing opened to the worker hosts of now
        allow_frame = csp_replace({"frame-ancestors": list(worker_origins())})
        return allow_frame(view)(request, *args, **kwargs)

    return xframe_options_exempt(never_cache(framed))


def _refuse(request: HttpRequest, reason: str, *, project=None, status: int = 400) -> HttpResponse:
    context = {"project": project, "reason": reason}
    return render(request, "surveys/closed.html", context, status=status, using=ENGINE)


@in_mturk_frame
@require_GET
def entry(request: HttpRequest) -> HttpResponse:
    hit_id = request.GET.get("hitId", "")
    # channel_ref is the unit's latest HIT; work on a HIT of an earlier round finds its unit too
    units = Unit.objects.select_related("batch__project").filter(batch__channel="mturk")
    unit = units.filter(Q(channel_ref=hit_id) | Q(postings__ref=hit_id)).first() if hit_id else None
    if unit is None:
        return _refuse(request, _("This task is not known here. Please return it."), status=404)
    project = unit.batch.project
    translation.activate(project.language)
    assignment_id = request.GET.get("assignmentId", "")
    if not assignment_id or assignment_id == PREVIEW_ID:
        return _preview(request, unit)
    worker_id, submit_to = request.GET.get("workerId", ""), _origin(request.GET.get("turkSubmitTo", ""))
    if not worker_id or submit_to not in worker_origins():
        return _refuse(request, _("This page must be opened from the task on Mechanical Turk."), project=project)
    channel = get_channel("mturk")
    problem = channel.entry_problem(participant=worker_id, posting=hit_id, work=assignment_id)
    if problem:
        return _refuse(request, problem, project=project)
    # MTurk knows an assignment only once it is submitted: the work is held apart until sync confirms it
    check = entry_confirm(channel=channel, batch=unit.batch, participant=worker_id, posting=hit_id, work=assignment_id)
    if check.confirmed is False:
        return _refuse(request, check.reason, project=project, status=403)
    annotator = annotator_for_channel(project=project, channel="mturk", external_id=worker_id, batch=unit.batch)
    try:
        assignment = assignment_open_for_channel(
            unit=unit, annotator=annotator, channel_assignment_id=assignment_id, unconfirmed=unconfirmed_reason(check)
        )
    except EntryRefused as exc:
        return _refuse(request, str(exc), project=project, status=409)
    return redirect("surveys:mturk-work", token=work_token(assignment.pk, submit_to))


def _preview(request: HttpRequest, unit: Unit) -> HttpResponse:
    """The instructions and the first page of the unit's first item, read-only; nothing is saved."""
    project = unit.batch.project
    item = unit.items.order_by("unit_items__position").first()
    example, step = None, None
    if item is not None:
        step = flow.step_for(Response(item=item, answers={}), kind_of(project))  # unsaved: only shown
    if step is not None:
        example = {"step": step, "page": flow.page_context(step), "form": flow.build_form(step.page, step.response)}
    context = {
        "project": project,
        "instructions": instructions_of(project),
        "example": example,
        "items": unit.items.count(),
    }
    return render(request, "surveys/mturk_preview.html", context, using=ENGINE)


@csrf_exempt  # see the module docstring: the signed URL is the only credential, not a cookie
@in_mturk_frame
@require_http_methods(["GET", "POST"])
def work(request: HttpRequest, token: str) -> HttpResponse:
    data = work_token_data(token)
    if data is None:
        raise Http404("Unknown task link")
    assignment_pk, submit_to = data
    if request.method == "POST" and STEP_FIELD in request.POST:
        found = assignment_with_progress(assignment_pk)
        if found is None:
            raise Http404("Unknown task link")
        assignment = found[0]
        translation.activate(assignment.annotator.project.language)
        handled = study_post(
            request, annotator=assignment.annotator, batch=assignment.unit.batch, way=MTURK_WAY, extra=FRAMED
        )
        if handled is not None:
            return handled
    if request.method == "POST":
        response = response_for_save(posted_response_id(request), assignment_id=assignment_pk)
        if response is None:
            return refuse_post(request, back=request.path)
        translation.activate(response.item.project.language)
        return save_page(
            request,
            response,
            back=request.path,
            next_page=lambda: _frame_page(request, assignment_pk, submit_to),
            extra=FRAMED,
        )
    return _frame_page(request, assignment_pk, submit_to)


def _frame_page(request: HttpRequest, assignment_pk: int, submit_to: str) -> HttpResponse:
    """The current step in MTurk's frame, or the page that submits the HIT."""
    found = assignment_with_progress(assignment_pk)
    if found is None:
        raise Http404("Unknown task link")
    assignment, progress = found
    project = assignment.annotator.project
    translation.activate(project.language)
    if assignment.study_hold or progress.current is None:
        step_page = study_page(
            request,
            annotator=assignment.annotator,
            batch=assignment.unit.batch,
            work_left=progress.current is not None,
            way=MTURK_WAY,
            extra={**FRAMED, **_submit_fields(assignment, submit_to)},
        )
        if step_page is not None:
            return step_page
    if assignment.status not in (Assignment.Status.ACTIVE, Assignment.Status.SUBMITTED):
        return _refuse(request, _("This task can no longer be changed."), project=project, status=410)
    if progress.current is None:
        if assignment.status == Assignment.Status.ACTIVE:  # a save that died before submitting it
            assignment_submit_if_complete(assignment)
        context = {"project": project, "items": progress.total, **_submit_fields(assignment, submit_to)}
        return render(request, "surveys/mturk_submit.html", context, using=ENGINE)
    step = flow.step_for(progress.current, kind_of(project))
    return render_step(request, project, step, progress, extra=FRAMED)


def _submit_fields(assignment: Assignment, submit_to: str) -> dict[str, str]:
    """What the form that submits the HIT to MTurk posts."""
    return {
        "submit_url": submit_to + "/mturk/externalSubmit",
        "assignment_id": assignment.channel_assignment_id,
        "completion_field": COMPLETION_FIELD,
        "completion_token": completion_token(assignment.channel_assignment_id),
    }
