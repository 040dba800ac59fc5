"""The study steps around a batch's work, for every channel: consent, the comprehension check
(its attempts, the last failure sending the person back the channel's way with no work done) and
the exit survey. Work is held (`Assignment.study_hold`) until the steps before it are passed, so
the save path refuses an answer posted past them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotation.models import Annotator, Assignment, Batch, Participation
from annotation.study_selectors import WORK, study_of, study_step

from .assignments import assignments_set_status


def _release_held_work(participation: Participation, *, cleared: bool) -> None:
    """Passing the steps opens the person's held work; ending their part releases it (the place
    goes to somebody else and nothing of it is kept)."""
    mine = Assignment.objects.filter(annotator_id=participation.annotator_id, unit__batch_id=participation.batch_id)
    if cleared:
        mine.filter(study_hold=True).update(study_hold=False)
    else:
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
