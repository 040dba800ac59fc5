"""Reads of a batch's study steps: its study file, and where a person stands in it."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from django.db.models import Q, QuerySet

from annotation.channels import get_channel
from annotation.models import Annotator, Batch, Item, Participation, Project, Response, Role, Submission
from annotation.studies import NO_STUDY, StudySpec, study_of_text

#: the steps a page may be at, in order; DECLINED and FAILED end the person's part
CONSENT, COMPREHENSION, WORK, EXIT, DONE = "consent", "comprehension", "work", "exit", "done"
DECLINED, FAILED, STOPPED = "declined", "failed", "stopped"
#: the ends of a person's part the study decided, in the words the review and the report use
ENDED_WORDS = {DECLINED: "consent declined", FAILED: "comprehension check failed", STOPPED: "stopped by live quality"}
#: where check items go and which are drawn: not to be guessed from the outside
_RANDOM = random.SystemRandom()


def study_of(batch: Batch) -> StudySpec:
    """The batch's study (an empty file: none; the text was checked when it was saved), without
    the comprehension check where the recruiting site asks it itself (an MTurk qualification test)."""
    if not batch.study:
        return NO_STUDY
    study = study_of_text(batch.study)
    if study.comprehension is not None and get_channel(batch.channel).asks_comprehension_itself(batch):
        return replace(study, comprehension=None)
    return study


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
    if p is not None and p.stopped_at is not None and p.lifted_at is None:
        return STOPPED
    if study.consent and consent != Participation.Consent.AGREED:
        return CONSENT
    if study.comprehension is not None and check != Participation.Check.PASSED:
        return COMPREHENSION
    if work_left:
        return WORK
    if study.exit_survey is not None and (p is None or p.exit_at is None):
        return EXIT
    return DONE


def ended_by_study(batch: Batch) -> dict[int, str]:
    """Annotator id -> why the study ended their part in the batch (consent declined, the
    comprehension check failed, stopped by live quality and not lifted): people who followed the
    rules, whose work no review may reject."""
    study = study_of(batch)
    found = {}
    for participation in Participation.objects.filter(batch=batch):
        step = study_step(participation, study, work_left=True)
        if step in ENDED_WORDS:
            found[participation.annotator_id] = ENDED_WORDS[step]
    return found


def ended_people(batch: Batch) -> list[dict[str, str]]:
    """Who the study ended in the batch, for the review page (never rejected: no review offers
    it): the person's id on the site, why, and what became of their work there at the last sync."""
    reasons = ended_by_study(batch)
    people = {a.pk: a.external_id for a in Annotator.objects.filter(pk__in=reasons)}
    rows: dict[str, dict[str, str]] = {
        people[pk]: {"participant": people[pk], "why": why, "state": "not submitted on the site (returned)"}
        for pk, why in reasons.items()
    }
    for sub in Submission.objects.filter(batch=batch).exclude(ended="").order_by("id"):
        state = sub.get_review_display() if sub.review else (sub.channel_status or "unknown to the site")
        row = rows.setdefault(sub.participant_ref, {"participant": sub.participant_ref, "why": sub.ended})
        row["state"] = state
    return sorted(rows.values(), key=lambda row: row["participant"])


def study_holds(*, annotator: Annotator, batch: Batch) -> bool:
    """Whether new work of the person's in the batch is held: a step before it is not passed, or
    live quality stopped them."""
    study = study_of(batch)
    if not study.before_work and (study.attention is None or study.attention.stop_below is None):
        return False
    participation = Participation.objects.filter(annotator=annotator, batch=batch).first()
    return study_step(participation, study, work_left=True) != WORK


def checks_to_mix(*, annotator: Annotator, batch: Batch, items: int, besides: Sequence[int] = ()) -> list[int]:
    """Ids of the check items to mix into a new assignment of `items` items: the study's share of
    them, drawn at random from the project's check items the person has never had (never twice
    to one annotator; fewer when the pool runs short), nor gets `besides` (their training items)."""
    attention = study_of(batch).attention
    if attention is None or items == 0:
        return []
    wanted = max(1, round(attention.rate * items / (1 - attention.rate)))
    had = Response.objects.filter(assignment__annotator=annotator).values("item_id")
    pool = list(
        Item.objects.filter(project_id=batch.project_id, check_answer__isnull=False)
        .exclude(pk__in=had)
        .exclude(pk__in=list(besides))
        .values_list("pk", flat=True)
    )
    return _RANDOM.sample(pool, min(wanted, len(pool)))


def mixed_in(item_ids: list[int], checks: list[int]) -> list[int]:
    """The items with the checks at random places among them (none first: the person meets the
    work before a check)."""
    order = list(item_ids)
    for check in checks:
        order.insert(_RANDOM.randint(1, len(order)), check)
    return order


def study_batches(project: Project) -> list[tuple[Batch, StudySpec]]:
    """The project's batches whose study file asks something, oldest first, with their studies."""
    return [(batch, study_of(batch)) for batch in project.batches.exclude(study="").order_by("id")]


def _silent(batch: Batch) -> QuerySet[Annotator]:
    """Who entered the batch but answered none of its steps: an invite link's recruits and people
    holding an assignment of it (MTurk and Prolific open one at entry), without a participation."""
    entered = Annotator.objects.filter(Q(batch=batch) | Q(assignments__unit__batch=batch), role=Role.ANNOTATOR)
    return entered.exclude(participations__batch=batch).distinct()


def batch_participations(batch: Batch) -> list[Participation]:
    """Everybody who reached the batch's study steps, by annotator: their participation, or an
    unsaved empty one for who entered and left the first step unanswered (they saw it too)."""
    recorded = list(Participation.objects.filter(batch=batch).select_related("annotator", "batch"))
    silent = [Participation(annotator=a, batch=batch) for a in _silent(batch).order_by("id")]
    return sorted(recorded + silent, key=lambda p: p.annotator_id)


def study_participant_count(project: Project) -> int:
    """How many (annotator, batch) pairs `batch_participations` gives over the project's studies."""
    return sum(
        Participation.objects.filter(batch=batch).count() + _silent(batch).count()
        for batch, _ in study_batches(project)
    )


def training_to_give(*, annotator: Annotator, batch: Batch) -> list[int]:
    """Ids of the study's training items the person has not had yet, in the study's order: they
    lead the person's next assignment."""
    training = study_of(batch).training
    if training is None:
        return []
    had = Response.objects.filter(assignment__annotator=annotator).values("item_id")
    found = dict(
        Item.objects.filter(project_id=batch.project_id, external_id__in=training.items)
        .exclude(pk__in=had)
        .values_list("external_id", "pk")
    )
    return [found[external_id] for external_id in training.items if external_id in found]
