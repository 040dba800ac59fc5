"""Adaptive redundancy: after each completed unit, aggregate the batch's labels again and store
per item how sure its label is (and whether it is settled) and per annotator whether the spammer
rule stops them. The hand-out reads these (`selectors.work.next_unit`); nothing here runs in a
request: `adaptive_queue` queues the Celery task once the save commits (inline without a broker,
CELERY_TASK_ALWAYS_EAGER). The rules are `quality.stats.adaptive`'s; docs/adaptive-redundancy.md.
With `Batch.model_votes`, the batch's model's label of each item is one more vote, its
competence fitted with the people's and stored in `ModelEstimate`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from django.db import transaction
from django.db.models import Exists, OuterRef

from annotation.kinds import AGGREGATED_LEVELS, LabelField, kind_of
from annotation.models import (
    AdjudicationSetup,
    AnnotatorEstimate,
    Assignment,
    Batch,
    Item,
    ItemEstimate,
    ModelEstimate,
    Response,
)
from annotation.selectors.model_labels import model_labels
from annotation.selectors.responses import annotation_rows
from annotation.selectors.study import study_of
from quality.stats.adaptive import MIN_JUDGED, Estimates, ModelVote, estimate, settled, settles_from, spammers
from quality.stats.labels import clean_labels

from .adjudication import adjudication_check_on_commit

#: the model behind the item posteriors (quality.stats.adaptive.METHODS); bench/README.md,
#: "Adaptive redundancy", compares them
METHOD = "mace"
#: the spammer rule's threshold in a batch whose study has live quality on and no `min_competence`:
#: below a uniform spammer's or a biased annotator's competence, above a mediocre one's (~0.47 on
#: 4 classes; docs/adaptive-redundancy.md)
LIVE_QUALITY_COMPETENCE = 0.3


def adaptive_queue(*, batch_id: int) -> None:
    """Aggregate the batch again once the current transaction commits (a Celery task)."""
    from annotation import tasks

    transaction.on_commit(lambda: tasks.update_estimates.delay(batch_id), robust=True)


def completion_queue(*, response: Response, unit_done: bool) -> None:
    """After the save that completed `response`'s item: one query for what its batch does next.
    With an adjudication stage, check the item once the save commits; in an adaptive batch, when
    the unit is done, aggregate the batch again. Both are Celery tasks, so the save itself reads
    no more than these two flags."""
    stage = AdjudicationSetup.objects.filter(batch=OuterRef("pk"), enabled=True)
    flags = (
        Batch.objects.filter(units__assignments=response.assignment_id)
        .annotate(adjudicates=Exists(stage))
        .values_list("pk", "adaptive", "adjudicates")
        .first()
    )
    if flags is None:
        return
    batch_id, adaptive, adjudicates = flags
    if adjudicates:
        adjudication_check_on_commit([response.pk])
    if adaptive and unit_done:
        adaptive_queue(batch_id=batch_id)


def adaptive_field(batch: Batch) -> LabelField | None:
    """The label field adaptive redundancy judges: the kind's first nominal or ordinal one."""
    return next((f for f in kind_of(batch.project).label_fields() if f.level in AGGREGATED_LEVELS), None)


def batch_labels(batch: Batch, field: LabelField) -> pd.DataFrame:
    """The long label frame (item, annotator, value) of the batch's completed, counted work."""
    responses = Response.objects.filter(
        assignment__unit__batch=batch,
        assignment__status__in=Assignment.COUNTED,
        completed_at__isnull=False,
        training=False,
    ).values("pk")
    rows = [
        (r["item_id"], r["annotator_id"], field.value(r))
        for r in annotation_rows(batch.project, response_ids=responses)
    ]
    return clean_labels(pd.DataFrame(rows, columns=["item", "annotator", "value"]))


def estimates_update(*, batch: Batch, method: str | None = None) -> int:
    """Aggregate the batch's labels and store the estimates; how many items have one. Idempotent
    (a second run on the same labels writes the same rows), so a retried task is harmless."""
    field = adaptive_field(batch)
    if not batch.adaptive or field is None:
        return 0
    labels = batch_labels(batch, field)
    if labels.empty:
        return 0
    model, gold = model_vote_labels(batch, field, labels)
    threshold = spammer_threshold(batch)
    fitted = estimate(labels, method=method or METHOD, model=model, gold=gold, min_competence=threshold)
    table = fitted.items
    table["settled"] = settled(
        table["posterior"].to_numpy(),
        table["labels"].to_numpy(),
        target=batch.target_confidence,
        min_labels=people_minimum(batch, fitted),
        max_labels=batch.max_annotators,
    )
    with transaction.atomic():
        _write_items(batch, table)
        if not fitted.competence.empty:
            _write_annotators(batch, fitted, labels.groupby("annotator").size(), threshold)
        _write_model(batch, fitted.model)
    return len(table)


#: people an item needs at least before the model's vote may settle it, whatever `min_annotators`
#: says: with one person and the model, MACE cannot tell which of them is right, and on the bench
#: (`min_annotators` 1) it trusted the model entirely (competence 0.998 for a model right 85 % of
#: the time) and settled every item on one label, at the model's own accuracy (bench/README.md)
MODEL_VOTE_PEOPLE = 2


def people_minimum(batch: Batch, fitted: Estimates) -> int:
    """The stop rule's minimum of human labels: the batch's, and with a counted model vote at
    least MODEL_VOTE_PEOPLE."""
    voting = fitted.model is not None and fitted.model.counted
    return max(batch.min_annotators, MODEL_VOTE_PEOPLE) if voting else batch.min_annotators


#: labels a person gives before the spammer rule judges them while the model votes (its labels
#: of the same items are a reference for each of theirs); MIN_JUDGED without a model
MODEL_MIN_JUDGED = MIN_JUDGED


def judged_from(fitted: Estimates) -> int:
    """The spammer rule's minimum of labels: MODEL_MIN_JUDGED with a counted model vote."""
    return MODEL_MIN_JUDGED if fitted.model is not None and fitted.model.counted else MIN_JUDGED


def model_vote_labels(
    batch: Batch, field: LabelField, labels: pd.DataFrame
) -> tuple[pd.Series | None, pd.Series | None]:
    """The model's vote when the batch counts it (`model_votes` and a `model`): item -> the
    model's value of `field` on the batch's labelled items and the project's gold items, and
    item -> the gold items' expected answer (one accepted value; a range or several judge
    nothing). None, None otherwise. The connection's labels are read whole (one query; a batch's
    items as an IN list would outgrow SQLite's parameters) and kept to these items here."""
    if not batch.model_votes or batch.model_id is None:
        return None, None
    checks = Item.objects.filter(project_id=batch.project_id, check_answer__isnull=False)
    gold = {
        pk: one_answer((expected or {}).get(field.name)) for pk, expected in checks.values_list("pk", "check_answer")
    }
    gold = {pk: value for pk, value in gold.items() if value is not None}
    wanted = set(labels["item"]) | set(gold)
    votes = {
        item: values.get(field.name)
        for item, values in model_labels(connection=batch.model_id).items()
        if item in wanted and values.get(field.name) is not None
    }
    return pd.Series(votes, dtype=object), pd.Series(gold, dtype=object)


def one_answer(expected: Any) -> Any:
    """A check item's expected answer as one value, or None: a list of one accepted value is that
    value; several, a range ({"min", "max"}) or nothing tell no single true label."""
    if isinstance(expected, list):
        return expected[0] if len(expected) == 1 else None
    return None if isinstance(expected, dict) else expected


def _write_model(batch: Batch, vote: ModelVote | None) -> None:
    """The model's competence for the batch page, or no row when it had no vote this time."""
    if vote is None or batch.model_id is None:
        ModelEstimate.objects.filter(batch=batch).delete()
        return
    ModelEstimate.objects.update_or_create(
        batch=batch,
        defaults={
            "connection_id": batch.model_id,
            "competence": vote.competence,
            "items": vote.items,
            "gold": vote.gold,
            "counted": vote.counted,
        },
    )


#: a posterior that moved less than this since it was stored is not written again: the hand-out
#: orders by it, and a refit nudges every item's a little
POSTERIOR_STEP = 1e-3


def _write_items(batch: Batch, table: pd.DataFrame) -> None:
    """Upsert the estimates that changed (a new label, label count, settled flag, or a posterior
    moved by POSTERIOR_STEP): most of a large batch's items are settled and stay as they were."""
    stored = {
        item: (label, posterior, labels, done)
        for item, label, posterior, labels, done in ItemEstimate.objects.filter(batch=batch).values_list(
            "item_id", "label", "posterior", "labels", "settled"
        )
    }
    rows = []
    for item, row in zip(table.index, table.itertuples()):
        label, posterior, labels, done = str(row.label)[:200], float(row.posterior), int(row.labels), bool(row.settled)
        old = stored.get(int(item))
        if (
            old is not None
            and old[::2] == (label, labels)
            and old[3] == done
            and abs(old[1] - posterior) < POSTERIOR_STEP
        ):
            continue
        rows.append(
            ItemEstimate(batch=batch, item_id=int(item), label=label, posterior=posterior, labels=labels, settled=done)
        )
    ItemEstimate.objects.bulk_create(
        rows,
        batch_size=2000,
        update_conflicts=True,
        unique_fields=["batch", "item"],
        update_fields=["label", "posterior", "labels", "settled", "updated_at"],
    )


def spammer_threshold(batch: Batch) -> float | None:
    """The competence below which the spammer rule stops an annotator: the batch's
    `min_competence`; unset, LIVE_QUALITY_COMPETENCE when its study has live quality on
    (`attention.stop_below`, docs/study-checks.md); else None, nobody is stopped."""
    if batch.min_competence is not None:
        return batch.min_competence
    attention = study_of(batch).attention
    return LIVE_QUALITY_COMPETENCE if attention is not None and attention.stop_below is not None else None


def _write_annotators(batch: Batch, fitted: Estimates, counts: pd.Series, threshold: float | None) -> None:
    """Each annotator's competence, the posterior from which their label settles an item (the
    hand-out's routing) and, with a spammer threshold (`spammer_threshold`), whether the spammer
    rule stops them."""
    scores = fitted.competence
    stopped = (
        spammers(fitted.competence_beta, counts, min_competence=threshold, min_judged=judged_from(fitted))
        if threshold is not None
        else pd.Series(False, index=scores.index)
    )
    closing = settles_from(scores, classes=fitted.classes, target=batch.target_confidence)
    rows = [
        AnnotatorEstimate(
            batch=batch,
            annotator_id=int(who),
            competence=float(scores[who]),
            labels=int(counts[who]),
            settles_from=float(closing[who]),
            excluded=bool(stopped[who]),
        )
        for who in scores.index
    ]
    AnnotatorEstimate.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["batch", "annotator"],
        update_fields=["competence", "labels", "settles_from", "excluded", "updated_at"],
    )
