"""Reads of a batch's study steps: its study file, and where a person stands in it."""

from __future__ import annotations

from annotation.models import Annotator, Batch, Participation
from annotation.studies import NO_STUDY, StudySpec, study_of_text

#: the steps a page may be at, in order; DECLINED and FAILED end the person's part
CONSENT, COMPREHENSION, WORK, EXIT, DONE = "consent", "comprehension", "work", "exit", "done"
DECLINED, FAILED = "declined", "failed"


def study_of(batch: Batch) -> StudySpec:
    """The batch's study (an empty file: none). The text was checked when it was saved."""
    return study_of_text(batch.study) if batch.study else NO_STUDY


def study_step(participation: Participation | None, study: StudySpec, *, work_left: bool) -> str:
    """Where the person stands: a step before the work still to pass, the work, the exit survey,
    done, or the end of their part (declined, failed)."""
    p = participation
    consent = p.consent if p is not None else ""
    check = p.comprehension if p is not None else ""
    if study.consent and consent == Participation.Consent.DECLINED:
        return DECLINED
    if study.comprehension is not None and check == Participation.Check.FAILED:
        return FAILED
    if study.consent and consent != Participation.Consent.AGREED:
        return CONSENT
    if study.comprehension is not None and check != Participation.Check.PASSED:
        return COMPREHENSION
    if work_left:
        return WORK
    if study.exit_survey is not None and (p is None or p.exit_at is None):
        return EXIT
    return DONE


def study_holds(*, annotator: Annotator, batch: Batch) -> bool:
    """Whether new work of the person's in the batch is held: a step before it is not passed."""
    study = study_of(batch)
    if not study.before_work:
        return False
    participation = Participation.objects.filter(annotator=annotator, batch=batch).first()
    return study_step(participation, study, work_left=True) != WORK
