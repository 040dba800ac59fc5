"""Annotator-facing views: parse the request, call one service, render."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from annotation.kinds import kind_of
from annotation.kinds.suggestions import initial_of
from annotation.models import Batch, InviteLink, Project, Response, Role
from annotation.selectors.work import (
    UnitProgress,
    annotator_by_key,
    response_for_save,
    unit_progress,
    work_state,
)
from annotation.services.assignments import (
    InviteClosed,
    InviteUsedUp,
    NoWorkLeft,
    annotator_join_via_invite,
    assignment_next,
)
from annotation.services.responses import (
    ProtocolError,
    TooSoon,
    assignment_submit_if_complete,
    response_save_page,
)

from . import flow
from .pages import ENGINE, instructions_of
from .study import STEP_FIELD, Way, study_page, study_post, training_feedback

SESSION_KEY = "annotator:{project}"
#: sent by static/surveys/annotate.js: answer a saved page with the next one, not a redirect
SWAP_HEADER = "X-Page-Swap"


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
            # a used-up link tells its own user how to get back to their work, and others whom to ask
            template = "surveys/invite_used.html" if isinstance(exc, InviteUsedUp) else "surveys/closed.html"
            return render(request, template, {"project": project, "reason": str(exc)}, status=410, using=ENGINE)
        request.session[session_key] = annotator.access_key
        target = "surveys:adjudicate" if annotator.role == Role.ADJUDICATOR else "surveys:work"
        return redirect(target, key=annotator.access_key)
    closed = not link.active or link.batch.status != Batch.Status.OPEN
    return render(
        request,
        "surveys/invite.html",
        {
            "project": project,
            "link": link,
            "instructions": instructions_of(project),
            "adjudicator": link.role == Role.ADJUDICATOR,
            "closed": closed,
        },
        using=ENGINE,
    )


#: how an invited person whose part ended goes on: there is nowhere to go back to
INVITE_WAY = Way(how=gettext_lazy("You may close this page."))


@never_cache
@require_http_methods(["GET", "POST"])
def work(request: HttpRequest, key: str) -> HttpResponse:
    if request.method == "POST" and STEP_FIELD in request.POST:
        annotator = annotator_by_key(key)
        if annotator is None or annotator.batch is None:
            raise Http404(_("Unknown link"))
        translation.activate(annotator.project.language)
        handled = study_post(request, annotator=annotator, batch=annotator.batch, way=INVITE_WAY)
        if handled is not None:
            return handled
    if request.method == "POST":
        response = response_for_save(posted_response_id(request), access_key=key)
        if response is None:
            annotator = annotator_by_key(key)
            if annotator is None:
                raise Http404(_("Unknown link"))
            translation.activate(annotator.project.language)
            return refuse_post(request, back=request.path)
        translation.activate(response.item.project.language)
        return save_page(request, response, back=request.path, next_page=lambda: _work_page(request, key))
    state = work_state(key)
    if state is None:
        raise Http404(_("Unknown link"))
    translation.activate(state.annotator.project.language)
    return _work_page(request, key, state)


def _work_page(request: HttpRequest, key: str, state: Any = None) -> HttpResponse:
    """The annotator's current step (or where they stand when there is none)."""
    state = state or work_state(key)
    annotator, project = state.annotator, state.annotator.project
    if annotator.role == Role.ADJUDICATOR:
        return redirect("surveys:adjudicate", key=key)
    if annotator.batch is None:
        return render(request, "surveys/done.html", {"project": project, "reason": ""}, using=ENGINE)
    assignment, progress = state.assignment, state.progress
    if assignment is None or assignment.study_hold:
        # a step before the work (consent, the comprehension check) comes first; work a person
        # holds unheld has passed them, so a page of work asks nothing more
        step_page = study_page(request, annotator=annotator, batch=annotator.batch, work_left=True, way=INVITE_WAY)
        if step_page is not None:
            return step_page
    if assignment is None:
        try:
            assignment = assignment_next(annotator=annotator, batch=annotator.batch)
        except NoWorkLeft as exc:
            step_page = study_page(request, annotator=annotator, batch=annotator.batch, work_left=False, way=INVITE_WAY)
            if step_page is not None:  # the exit survey
                return step_page
            return render(request, "surveys/done.html", {"project": project, "reason": str(exc)}, using=ENGINE)
        progress = unit_progress(assignment, project)
    if progress.current is None:
        # every item answered, the assignment still active: a save that died between its answer
        # and the assignment is finished here; the next view hands out a new unit
        assignment_submit_if_complete(assignment)
        return redirect("surveys:work", key=key)
    return render_step(request, project, flow.step_for(progress.current, kind_of(project)), progress)


def render_step(
    request: HttpRequest,
    project: Project,
    step: flow.Step | None,
    progress: UnitProgress,
    form: Any = None,
    status: int = 200,
    extra: dict[str, Any] | None = None,
    shown: str | None = None,
) -> HttpResponse:
    """The page of the current step; `extra` adds to the context (a recruiting site's frame).
    `shown`: the page's note of when it was first shown (a refused early save keeps it: the wait
    left counts from then); None: shown now. `wait_seconds`: what the page's minimum time leaves."""
    assert step is not None, "render_step needs an item with a page left"
    shown = shown or flow.shown_token(step.response.pk, step.page.slug)
    mode = flow.suggestion_mode(step.response)
    page_form = form or flow.build_form(step.page, step.response)
    suggested = flow.suggestions_for(step.kind, step.page, page_form, step.response)
    if suggested and form is None and mode == "preselect":  # a refused answer stays as it was posted
        page_form = flow.build_form(step.page, step.response, initial=initial_of(suggested))
    context = {
        "project": project,
        "instructions": instructions_of(project),
        "step": step,
        "form": page_form,
        "suggestions": {s.question: s for s in suggested},
        "suggestion_mode": mode,
        "shown": shown,
        "wait_seconds": flow.wait_seconds(step.page, flow.shown_at(shown, step.response.pk, step.page.slug)),
        "item_number": progress.done + 1,
        "item_count": progress.total,
        "page": flow.page_context(step),
        **(extra or {}),
    }
    return render(request, "surveys/annotate.html", context, status=status, using=ENGINE)


def posted_response_id(request: HttpRequest) -> int | None:
    try:
        return int(request.POST.get("response", ""))
    except ValueError:
        return None


def refuse_post(request: HttpRequest, *, back: str) -> HttpResponse:
    """A save that names no response of the poster's: a form that lost its fields gets a message
    and the current page again; a response of somebody else's is not found."""
    if posted_response_id(request) is None:
        messages.error(request, _("The form was incomplete; please answer again."))
        return redirect(back)
    raise Http404(_("Not your item"))


def save_page(
    request: HttpRequest,
    response: Response,
    *,
    back: str,
    next_page: Callable[[], HttpResponse],
    extra: dict[str, Any] | None = None,
) -> HttpResponse:
    """Validate and save one page of `response` (read with `response_for_save`): the one save
    path of every annotator page. Then redirect to `back` (POST/Redirect/GET), or answer the
    page's script (`SWAP_HEADER`) with the next page itself: one request per saved page. A form
    error on the current page is shown in place."""
    swap = request.headers.get(SWAP_HEADER) == "1"
    project, page_slug = response.item.project, request.POST.get("page", "")
    try:
        page = kind_of(project).page(response.item.payload, page_slug, response.answers)
    except KeyError:
        raise Http404(_("Unknown page")) from None
    form = flow.build_form(page, response, request.POST)
    if not form.is_valid():
        current = flow.step_for(response, kind_of(project))
        if current is None or current.page.slug != page_slug:
            errors = "; ".join(str(e) for errs in form.errors.values() for e in errs)
            messages.error(request, _("That answer was not saved: %(errors)s") % {"errors": errors})
            return next_page() if swap else redirect(back)
        progress = UnitProgress(response, response.assignment.item_count)
        return render_step(request, project, current, progress, form=form, status=400, extra=extra)
    shown_at, untimed = flow.read_shown(request.POST.get("shown", ""), response.pk, page_slug)
    try:
        result = response_save_page(
            response=response,
            kind=kind_of(project),
            page_slug=page_slug,
            answer=form.answer(),
            shown_at=shown_at,
            from_page=True,
            untimed=untimed,
            # what the page showed, read again on the server with the response: never the client's word
            suggestions=flow.suggestions_for(kind_of(project), page, form, response),
            model=getattr(response, "suggestion_model", None) or "",
        )
    except TooSoon as exc:  # the page again as answered, its wait counted from its first showing
        messages.error(request, str(exc))
        current = flow.step_for(response, kind_of(project))
        if current is None or current.page.slug != page_slug:
            return next_page() if swap else redirect(back)
        first = request.POST.get("shown", "") if shown_at is not None else None
        progress = UnitProgress(response, response.assignment.item_count)
        return render_step(request, project, current, progress, form=form, status=400, extra=extra, shown=first)
    except ProtocolError as exc:
        messages.error(request, str(exc))
        return next_page() if swap else redirect(back)
    if result.stopped:  # live quality: the next page says the person's part has ended
        return next_page() if swap else redirect(back)
    if result.changed and result.item_completed and result.response.training:
        return training_feedback(request, result.response, back=back, extra=extra)
    if result.changed and result.assignment_submitted:
        messages.success(request, _("Thank you! That set of items is saved."))
    if not swap:
        return redirect(back)
    if result.changed and not result.assignment_submitted:
        # the same item's next page (no read), or the first page of the assignment's next item
        progress = (
            UnitProgress(result.response, response.assignment.item_count)
            if not result.item_completed
            else unit_progress(response.assignment, project)
        )
        step = None if progress.current is None else flow.step_for(progress.current, kind_of(project))
        if step is not None:
            return render_step(request, project, step, progress, extra=extra)
    return next_page()
