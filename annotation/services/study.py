"""The study steps around a batch's work, for every channel: consent, the comprehension check
(its attempts, the last failure sending the person back the channel's way with no work done) and
the exit survey. Work is held (`Assignment.study_hold`) until the steps before it are passed, so
the save path refuses an answer posted past them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from annotation.kinds import TaskKind, check_passed
from annotation.models import Annotator, Assignment, Batch, Participation, Response
from annotation.selectors.study import WORK, study_of, study_step

from .assignments import assignments_set_status


def _release_held_work(participation: Participation, *, cleared: bool) -> None:
    """Passing the steps opens the person's held work; ending their part releases it (the place
    goes to somebody else and nothing of it is kept)."""
    mine = Assignment.objects.filter(annotator_id=participation.annotator_id, unit__batch_id=participation.batch_id)
    if cleared:
        mine.filter(study_hold=True).update(study_hold=False)
    else:
        # work the person finished (a stop at their assignment's last item) is submitted for review
        done = mine.filter(status=Assignment.Status.ACTIVE).exclude(
            Exists(Response.objects.filter(assignment=OuterRef("pk"), completed_at__isnull=True))
        )
        assignments_set_status(
            assignments=done, status=Assignment.Status.SUBMITTED, submitted_at=timezone.now(), study_hold=True
        )
        assignments_set_status(
            assignments=mine.filter(status=Assignment.Status.ACTIVE), status=Assignment.Status.RELEASED, study_hold=True
        )


def study_consent(*, participation: Participation, agreed: bool) -> Participation:
    """Record the answer to the consent text (the first answer counts; a double submit changes
    nothing). Declining ends the person's part and frees their place."""
    study = study_of(participation.batch)
    with transaction.atomic():
        fresh = Participation.objects.select_for_update().get(pk=participation.pk)
        if fresh.consent == Participation.Consent.NOT_ASKED and study.consent:
            fresh.consent = Participation.Consent.AGREED if agreed else Participation.Consent.DECLINED
            fresh.consent_at = timezone.now()
            fresh.save(update_fields=["consent", "consent_at"])
            cleared = study_step(fresh, study, work_left=True) == WORK
            if cleared or not agreed:
                _release_held_work(fresh, cleared=cleared)
    return fresh


def participation_for(*, annotator: Annotator, batch: Batch) -> Participation:
    participation, _created = Participation.objects.get_or_create(annotator=annotator, batch=batch)
    return participation


@dataclass(frozen=True)
class Attempt:
    """The outcome of one comprehension attempt: passed, how many were used, how many remain."""

    passed: bool
    used: int
    left: int
    recorded: bool


def study_comprehension_attempt(*, participation: Participation, attempt: int, answers: dict[str, Any]) -> Attempt:
    """Mark one attempt at the comprehension check. `attempt` is the number the page was shown
    for: a double submit or a reload posting the same attempt again records nothing. Passing
    opens the work; failing the last attempt ends the person's part (no work, place released)."""
    study = study_of(participation.batch)
    check = study.comprehension
    assert check is not None, "the batch's study has no comprehension check"
    with transaction.atomic():
        fresh = Participation.objects.select_for_update().get(pk=participation.pk)
        used = len(fresh.attempts)
        if fresh.comprehension or attempt != used + 1 or used >= check.attempts:
            passed = fresh.comprehension == Participation.Check.PASSED
            return Attempt(passed=passed, used=used, left=max(0, check.attempts - used), recorded=False)
        marks = check.questions.marks(answers, check.answers)
        passed = all(marks.values())
        fresh.attempts = [
            *fresh.attempts,
            {"answers": answers, "correct": marks, "passed": passed, "at": timezone.now().isoformat()},
        ]
        used += 1
        fields = ["attempts"]
        if passed or used >= check.attempts:
            fresh.comprehension = Participation.Check.PASSED if passed else Participation.Check.FAILED
            fresh.comprehension_at = timezone.now()
            fields += ["comprehension", "comprehension_at"]
        fresh.save(update_fields=fields)
        if fresh.comprehension:
            _release_held_work(fresh, cleared=study_step(fresh, study, work_left=True) == WORK)
    return Attempt(passed=passed, used=used, left=max(0, check.attempts - used), recorded=True)


def study_exit_answers(*, participation: Participation, answers: dict[str, Any]) -> Participation:
    """Keep the exit survey's answers (the first submit counts)."""
    with transaction.atomic():
        fresh = Participation.objects.select_for_update().get(pk=participation.pk)
        if fresh.exit_at is None:
            fresh.exit_answers = answers
            fresh.exit_at = timezone.now()
            fresh.save(update_fields=["exit_answers", "exit_at"])
    return fresh


def check_answered(*, response: Response, kind: TaskKind) -> bool:
    """Judge the completed answer to a check item (with its item and assignment loaded) and, when
    the batch's study asks for live quality, stop the person whose share of right check answers
    fell below the study's threshold after enough checks: their work is released (its place goes
    to somebody else), nothing more is handed out, the rule and the figures are recorded, and
    the researcher may lift it. Payment follows the channel's rules and the researcher's review,
    never an automatic rejection. Whether the person was stopped now."""
    passed = check_passed(kind, response.item.payload, response.answers, response.item.check_answer)
    Response.objects.filter(pk=response.pk).update(check_passed=passed)
    response.check_passed = passed
    if response.training:
        return False  # practice: its feedback is shown, nothing is counted
    batch = Batch.objects.only("id", "project_id", "study").get(units__id=response.assignment.unit_id)
    attention = study_of(batch).attention
    if attention is None or attention.stop_below is None:
        return False
    annotator_id = response.assignment.annotator_id
    judged = Response.objects.filter(
        assignment__annotator_id=annotator_id, assignment__unit__batch=batch, check_passed__isnull=False, training=False
    ).aggregate(total=Count("id"), right=Count("id", filter=Q(check_passed=True)))
    total, right = judged["total"], judged["right"]
    if total < attention.after or right / total >= attention.stop_below:
        return False
    with transaction.atomic():
        participation, _created = Participation.objects.select_for_update().get_or_create(
            annotator_id=annotator_id, batch=batch
        )
        if participation.stopped_at is not None or participation.lifted_at is not None:
            return False  # stopped already, or a researcher decided the person goes on
        participation.stopped_at = timezone.now()
        participation.stop_reason = (
            f"live quality: {right} of {total} check answers right ({right / total:.0%}), below "
            f"{attention.stop_below:.0%} after at least {attention.after} checks"
        )[:300]
        participation.save(update_fields=["stopped_at", "stop_reason"])
        _release_held_work(participation, cleared=False)
    return True


def study_lift_stop(*, participation: Participation) -> Participation:
    """A researcher lifts a live-quality stop: the person may work again (their released work is
    taken back when its place is still free, and new work is handed out as to anybody)."""
    with transaction.atomic():
        fresh = Participation.objects.select_for_update().get(pk=participation.pk)
        if fresh.stopped_at is not None and fresh.lifted_at is None:
            fresh.lifted_at = timezone.now()
            fresh.save(update_fields=["lifted_at"])
            mine = Assignment.objects.filter(annotator_id=fresh.annotator_id, unit__batch_id=fresh.batch_id)
            mine.filter(study_hold=True).update(study_hold=False)
    return fresh
