"""The study steps around the work, the same on every channel's pages: consent, the comprehension
check (the instructions again between attempts), and the exit survey. Each channel's view asks
`study_page` before it shows work or its end, hands a study form's POST to `study_post`, and says
how a person whose part ended goes back (`Way`): Prolific's return code, MTurk's own message, an
invite link's page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.functional import Promise
from django.utils.translation import ngettext

from annotation.kinds import kind_of
from annotation.models import Annotator, Batch, Participation, Response
from annotation.selectors.study import COMPREHENSION, CONSENT, DECLINED, EXIT, FAILED, STOPPED, study_of, study_step
from annotation.services.study import (
    participation_for,
    study_comprehension_attempt,
    study_consent,
    study_exit_answers,
)

from .pages import ENGINE, instructions_of

STEP_FIELD = "study_step"
StrOrPromise = str | Promise


@dataclass(frozen=True)
class Way:
    """How a channel sends back somebody whose part ended before the work: a link (`url`, its
    button text `back`) and what to do there (`how`)."""

    how: StrOrPromise = ""
    url: str = ""
    back: StrOrPromise = ""
    #: the way of somebody live quality stopped, who did work the researcher reviews (default: this way)
    after_work: Way | None = None


def study_page(
    request: HttpRequest,
    *,
    annotator: Annotator,
    batch: Batch,
    work_left: bool,
    way: Way,
    extra: dict[str, Any] | None = None,
) -> HttpResponse | None:
    """The page of the study step the person is at, or None when it is the work (or all is done)."""
    study = study_of(batch)
    live = study.attention is not None and study.attention.stop_below is not None
    if not study.before_work and study.exit_survey is None and not live:
        return None
    participation = Participation.objects.filter(annotator=annotator, batch=batch).first()
    step = study_step(participation, study, work_left=work_left)
    return _render(request, batch, step, participation, way=way, extra=extra or {})


def study_post(
    request: HttpRequest, *, annotator: Annotator, batch: Batch, way: Way, extra: dict[str, Any] | None = None
) -> HttpResponse | None:
    """Handle a study step's form (None: the POST is not one): record it, then show the next step
    by redirecting to the same address (POST/Redirect/GET); a form error is shown in place."""
    posted = request.POST.get(STEP_FIELD)
    if posted not in (CONSENT, COMPREHENSION, EXIT):
        return None
    study = study_of(batch)
    participation = participation_for(annotator=annotator, batch=batch)
    if posted == CONSENT and study.consent:
        study_consent(participation=participation, agreed=request.POST.get("consent") == "yes")
    elif posted == COMPREHENSION and study.comprehension is not None:
        form = study.comprehension.questions.form(request.POST)
        attempt = _number(request.POST.get("attempt"))
        if not form.is_valid():
            context = {"attempt": attempt, **_attempt_notes(study.comprehension.attempts - len(participation.attempts))}
            return _questions(request, batch, "comprehension", form, status=400, extra={**(extra or {}), **context})
        study_comprehension_attempt(participation=participation, attempt=attempt, answers=form.answer())
    elif posted == EXIT and study.exit_survey is not None:
        form = study.exit_survey.form(request.POST)
        if not form.is_valid():
            return _questions(request, batch, "exit", form, status=400, extra=extra or {})
        study_exit_answers(participation=participation, answers=form.answer())
    return redirect(request.get_full_path())


def _attempt_notes(left: int) -> dict[str, str]:
    return {
        "attempts_note": ngettext(
            "Answer these questions about the instructions before you start. You have %(n)s attempt.",
            "Answer these questions about the instructions before you start. You have %(n)s attempts.",
            left,
        )
        % {"n": left},
        "retry_note": ngettext(
            "Not all of your answers were right. Please read the instructions again before you answer; you have "
            "%(n)s more attempt.",
            "Not all of your answers were right. Please read the instructions again before you answer; you have "
            "%(n)s more attempts.",
            left,
        )
        % {"n": left},
    }


def _number(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _render(
    request: HttpRequest,
    batch: Batch,
    step: str,
    participation: Participation | None,
    *,
    way: Way,
    extra: dict[str, Any],
) -> HttpResponse | None:
    study, project = study_of(batch), batch.project
    if step in (DECLINED, FAILED, STOPPED):
        out = (way.after_work or way) if step == STOPPED else way
        context = {"project": project, "step": step, "how": out.how, "url": out.url, "back": out.back}
        return render(request, "surveys/study/ended.html", {**context, **extra}, using=ENGINE)
    if step == CONSENT:
        context = {"project": project, "consent": study.consent, "title": study.consent_title}
        return render(request, "surveys/study/consent.html", {**context, **extra}, using=ENGINE)
    if step == COMPREHENSION:
        assert study.comprehension is not None
        used = len(participation.attempts) if participation is not None else 0
        context = {"attempt": used + 1, **_attempt_notes(study.comprehension.attempts - used), "retry": used > 0}
        return _questions(
            request, batch, "comprehension", study.comprehension.questions.form(), extra={**extra, **context}
        )
    if step == EXIT:
        assert study.exit_survey is not None
        return _questions(request, batch, "exit", study.exit_survey.form(), extra=extra)
    return None


def _questions(
    request: HttpRequest, batch: Batch, which: str, form: Any, *, status: int = 200, extra: dict[str, Any]
) -> HttpResponse:
    study, project = study_of(batch), batch.project
    questions = study.comprehension.questions if which == "comprehension" and study.comprehension else study.exit_survey
    assert questions is not None
    context = {
        "project": project,
        "instructions": instructions_of(project),
        "page": questions.context(),
        "form": form,
        **extra,
    }
    template = "surveys/study/comprehension.html" if which == "comprehension" else "surveys/study/exit_survey.html"
    return render(request, template, context, status=status, using=ENGINE)


def training_feedback(
    request: HttpRequest, response: Response, *, back: str, extra: dict[str, Any] | None = None
) -> HttpResponse:
    """After a training item: whether the answer was right, the answer and the expected one per
    field, and the explanation; then on to the next item (nothing of it is counted)."""
    project, item = response.item.project, response.item
    kind = kind_of(project)
    row = kind.annotation_row(item.payload, response.answers)
    expected = item.check_answer or {}
    fields = [
        {
            "title": kind.adjudication_title(field.name),
            "given": kind.adjudication_display(item.payload, field.name, field.value(row)),
            "expected": _expected_text(kind, item.payload, field.name, expected[field.name]),
        }
        for field in kind.label_fields()
        if field.name in expected
    ]
    context = {
        "project": project,
        "right": bool(response.check_passed),
        "fields": fields,
        "explanation": item.check_explanation,
        "back": back,
        **(extra or {}),
    }
    return render(request, "surveys/study/feedback.html", context, using=ENGINE)


def _expected_text(kind: Any, payload: Any, field: str, want: Any) -> str:
    """An expected answer as a person reads it: a value, accepted values, or a range."""
    if isinstance(want, dict):
        low, high = want.get("min"), want.get("max")
        if low is not None and high is not None:
            return f"{low} – {high}"
        return f"≥ {low}" if low is not None else f"≤ {high}"
    if isinstance(want, list):
        return " / ".join(kind.adjudication_display(payload, field, one) for one in want)
    return kind.adjudication_display(payload, field, want)
