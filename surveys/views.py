"""Annotator-facing views: parse the request, call one service, render."""
from __future__ import annotations

from typing import Callable

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from annotation import item_cache
from annotation.kinds import UnknownKind, get_kind
from annotation.models import Annotator, Batch, InviteLink, Response
from annotation.selectors import annotator_with_response, response_of_annotator, unit_state, work_state
from annotation.services.assignments import InviteClosed, NoWorkLeft, annotator_join_via_invite, assignment_next
from annotation.services.next_page import can_save_in_one_statement, is_next_page, response_save_next_page
from annotation.services.responses import ProtocolError, assignment_submit_if_complete, response_save_page

from config.jinja2 import LANGUAGE

from . import flow
from .cache_headers import never_cache

SESSION_KEY = "annotator:{project}"
#: the template engine of templates/surveys/** (Jinja2, see config/jinja2.py)
ENGINE = "jinja2"
#: sent by static/surveys/annotate.js: answer a saved page with the next one, not a redirect
SWAP_HEADER = "X-Page-Swap"


def _instructions(project) -> str:
    return project.instructions or get_kind(project.kind).default_instructions


@never_cache
@require_http_methods(["GET", "POST"])
def invite(request: HttpRequest, token: str) -> HttpResponse:
    link = get_object_or_404(InviteLink.objects.select_related("batch__project"), token=token)
    project = link.batch.project
    translation.activate(project.language)
    if request.method == "POST":
        session_key = SESSION_KEY.format(project=project.pk)
        try:
            annotator = annotator_join_via_invite(invite=link, known_key=request.session.get(session_key))
        except InviteClosed as exc:
            return render(
                request, "surveys/closed.html", {"project": project, "reason": str(exc)}, status=410, using=ENGINE
            )
        request.session[session_key] = annotator.access_key
        return redirect("surveys:work", key=annotator.access_key)
    closed = not link.active or link.batch.status != Batch.Status.OPEN
    return render(
        request,
        "surveys/invite.html",
        {"project": project, "link": link, "instructions": _instructions(project), "closed": closed},
        using=ENGINE,
    )


@never_cache
@require_http_methods(["GET", "POST"])
def work(request: HttpRequest, key: str) -> HttpResponse:
    if request.method == "POST":
        saved = _save_next_page(request, key)
        if saved is not None:
            return saved
        annotator, response = annotator_with_response(key, _response_id(request))
        if annotator is None:
            raise Http404(_("Unknown link"))
        translation.activate(annotator.project.language)
        # back to this very page (its address is the annotator's)
        return save_page(request, annotator, back=request.path, next_page=lambda: _work_page(request, key),
                         response=response)
    return _work_page(request, key)


def _work_page(request: HttpRequest, key: str) -> HttpResponse:
    """The annotator's current step (or where they stand when there is none)."""
    state = work_state(key)
    if state is None:
        raise Http404(_("Unknown link"))
    annotator = state.annotator
    project = annotator.project
    translation.activate(project.language)
    if annotator.batch is None:
        return render(request, "surveys/done.html", {"project": project, "reason": ""}, using=ENGINE)
    assignment = state.assignment
    if assignment is not None:  # the common case: no query beyond work_state's
        response, done, total = state.unit_state()
    else:
        try:
            assignment = assignment_next(annotator=annotator, batch=annotator.batch)
        except NoWorkLeft as exc:
            return render(request, "surveys/done.html", {"project": project, "reason": str(exc)}, using=ENGINE)
        response, done, total = unit_state(assignment)
    if response is None:
        # every item answered, the assignment still active: a save that died between its answer
        # and the assignment (two statements) is finished here; the next GET hands out a new unit
        assignment_submit_if_complete(assignment.pk)
        return redirect("surveys:work", key=key)
    return render_step(request, project, flow.step_for(response, project.kind), done, total)


def render_step(request, project, step: flow.Step, done: int, total: int, form=None, status: int = 200, extra=None):
    """The page of the current step; `extra` adds to the context (the MTurk frame's settings)."""
    item_cache.remember(step.response.item)  # its save can then skip reading it
    context = {
        "project": project,
        "instructions": _instructions(project),
        "step": step,
        "form": form or flow.build_form(step.page, step.response),
        "shown": flow.shown_token(step.response.pk, step.page.slug),
        "state": flow.page_state_token(step),
        "item_number": done + 1,
        "item_count": total,
        "page": flow.page_context(step),
        LANGUAGE: translation.get_language(),  # its texts are translated into it (config/jinja2.py)
        **(extra or {}),
    }
    return render(request, "surveys/annotate.html", context, status=status, using=ENGINE)


def _save_next_page(request: HttpRequest, key: str) -> HttpResponse | None:
    """The common save, an item's next page, validated against what the page was rendered from
    and written in one statement (`response_save_next_page`). None when the usual save must take
    it: any other case, an invalid answer (shown with the usual save's page), an item this
    process has not rendered lately, or a claim the database denies."""
    if not can_save_in_one_statement():
        return None
    response_id = _response_id(request)
    state = flow.page_state(request.POST.get("state", ""), response_id)
    item = state and item_cache.recall(state.item_id)
    if item is None:
        return None
    page_slug = request.POST.get("page", "")
    try:
        page = get_kind(state.kind).page(item.payload, page_slug)
    except (UnknownKind, KeyError):
        return None
    if not is_next_page(state.kind, item.payload, state.answers, page_slug):
        return None
    form = flow.page_form(page, item.payload, state.answers, request.POST)
    if not form.is_valid():
        return None
    saved = response_save_next_page(
        access_key=key, response_id=response_id, item=item, kind_slug=state.kind, answers_before=state.answers,
        page_slug=page_slug, answer=form.answer(), shown_at=flow.shown_at(request.POST.get("shown", ""), response_id, page_slug),
    )
    if saved is None:
        return None
    project = saved.annotator.project
    translation.activate(project.language)
    swap = request.headers.get(SWAP_HEADER) == "1"
    if saved.item_completed and saved.next_response is None:  # the unit's last item: submit it, as the usual save does
        if assignment_submit_if_complete(saved.response.assignment_id):
            _thank_for_the_unit(request)
        return _work_page(request, key) if swap else redirect(request.path)
    step = flow.step_for(saved.next_response if saved.item_completed else saved.response, project.kind)
    if not swap or step is None:
        return redirect(request.path)
    return render_step(request, project, step, saved.done, saved.total)


def _thank_for_the_unit(request: HttpRequest) -> None:
    """The message after a save that submitted the annotator's unit (shown on the next page)."""
    messages.success(request, _("Thank you! That set of items is saved."))


def _response_id(request: HttpRequest) -> int | None:
    try:
        return int(request.POST.get("response", ""))
    except ValueError:
        return None


def save_page(request: HttpRequest, annotator: Annotator, *, back: str, next_page: Callable[[], HttpResponse],
              assignment_id: int | None = None, extra=None, response: Response | None | object = ...) -> HttpResponse:
    """Validate and save one page, then redirect to `back` (POST/Redirect/GET), or answer
    the page's script (`SWAP_HEADER`) with `next_page()` itself: one request per saved page.
    A form error on the current page is shown in place. `assignment_id` narrows which
    responses qualify; `response` is the posted response if the caller read it already
    (`annotator_with_response`, which also says how far its unit is: `unit_progress`)."""
    def then(saved: Response | None = None) -> HttpResponse:
        if request.headers.get(SWAP_HEADER) != "1":
            return redirect(back)
        progress = getattr(saved, "unit_progress", None)
        if saved is not None and progress is not None:
            # the save completed no item: the next page is the next step of the same item, and
            # the unit's progress is as read before the save (what `next_page()` would read again)
            step = flow.step_for(saved, annotator.project.kind)
            if step is not None:
                return render_step(request, annotator.project, step, *progress, extra=extra)
        return next_page()

    response_id = _response_id(request)
    if response_id is None:
        messages.error(request, _("The form was incomplete; please answer again."))
        return then()
    page_slug = request.POST.get("page", "")
    if response is ...:
        response = response_of_annotator(response_id, annotator)
    if response is None or (assignment_id is not None and response.assignment_id != assignment_id):
        raise Http404(_("Not your item"))
    kind = get_kind(annotator.project.kind)
    try:
        page = kind.page(response.item.payload, page_slug)
    except KeyError:
        raise Http404(_("Unknown page")) from None
    form = flow.build_form(page, response, request.POST)
    if not form.is_valid():
        current = flow.step_for(response, annotator.project.kind)
        if current is None or current.page.slug != page_slug:
            errors = "; ".join(e for errs in form.errors.values() for e in errs)
            messages.error(request, _("That answer was not saved: %(errors)s") % {"errors": errors})
            return then()
        done, total = getattr(response, "unit_progress", None) or unit_state(response.assignment)[1:]
        return render_step(request, annotator.project, current, done, total, form=form, status=400, extra=extra)
    try:
        result = response_save_page(
            response_id=response.pk,
            annotator_id=annotator.pk,
            page_slug=page_slug,
            answer=form.answer(),
            shown_at=flow.shown_at(request.POST.get("shown", ""), response.pk, page_slug),
            seen=response,
        )
    except ProtocolError as exc:
        messages.error(request, str(exc))
    else:
        if result.changed and result.assignment_submitted:
            _thank_for_the_unit(request)
        elif result.changed and not result.item_completed:
            return then(result.response)
    return then()
