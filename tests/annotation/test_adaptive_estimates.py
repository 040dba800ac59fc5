"""Adaptive redundancy's estimates: the stop and spammer rules on plain numbers, the service that
aggregates a batch's labels into `ItemEstimate`/`AnnotatorEstimate`, and the Celery task queued
when a unit completes (inline without a broker; in a real worker too)."""

import os

import numpy as np
import pandas as pd
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.models import AnnotatorEstimate, Batch, ItemEstimate, Response
from annotation.selectors.batches import labels_saved
from annotation.services.adaptive import (
    LIVE_QUALITY_COMPETENCE,
    adaptive_field,
    batch_labels,
    completion_queue,
    estimates_update,
    spammer_threshold,
)
from annotation.services.assignments import assignment_next
from annotation.services.responses import assignment_submit_if_complete
from quality.stats.adaptive import STOP_CREDIBILITY, estimate, settled, settles_from, spammers
from quality.stats.mace import mace
from tests.annotation.adaptive_helpers import adaptive_batch, label, person
from tests.worker import broker_reachable, celery_worker


def test_the_stop_rule_needs_the_minimum_and_the_target_or_the_maximum():
    posterior = np.array([0.99, 0.99, 0.5, 0.5, 0.95])
    labels = np.array([1, 2, 2, 4, 3])
    assert settled(posterior, labels, target=0.95, min_labels=2, max_labels=4).tolist() == [
        False,
        True,
        False,
        True,
        True,
    ]


def test_the_spammer_rule_judges_only_after_enough_labels_and_only_on_clear_evidence():
    # MACE's Beta posteriors of competence: (knowing, spamming) labels, each with the 0.5 prior
    beta = pd.DataFrame(
        {"knowing": [1.0, 1.0, 24.5, 8.0, 1.0], "spamming": [15.0, 4.5, 6.5, 8.0, 5.0]},
        index=["spammer", "new", "good", "unsure", "short"],
    )
    counts = pd.Series({"spammer": 15, "new": 5, "good": 30, "unsure": 15, "short": 5})
    got = spammers(beta, counts, min_competence=0.3, min_judged=15)
    assert got.tolist() == [True, False, False, False, False]
    # "unsure" has a point estimate of 0.5 (8 of 16): a floor of 0.5 or even 0.55 does not stop them,
    # for MACE is not 90 % sure they are below it; the reference is Beta(1, b)'s closed-form CDF
    assert not spammers(beta, counts, min_competence=0.55, min_judged=15)["unsure"]
    assert spammers(beta, counts, min_competence=0.7, min_judged=15)["unsure"]
    # the spammer's Beta(1, 15) has the closed-form CDF 1 - (1 - x) ** 15, which reaches 0.9 at
    # x = 1 - 0.1 ** (1 / 15) = 0.1423: a floor just above stops them, one just below does not
    edge = 1 - (1 - STOP_CREDIBILITY) ** (1 / 15)
    assert spammers(beta, counts, min_competence=edge + 0.002, min_judged=15)["spammer"]
    assert not spammers(beta, counts, min_competence=edge - 0.002, min_judged=15)["spammer"]


def test_maces_competence_is_the_mean_of_its_beta_posterior():
    rng = np.random.default_rng(4)
    truth = rng.integers(4, size=80)
    rows = [(i, w, int(t) if w < 3 else int(rng.integers(4))) for i, t in enumerate(truth) for w in range(4)]
    fitted = mace(pd.DataFrame(rows, columns=["item", "annotator", "value"]))
    beta = fitted.competence_beta
    assert (beta["knowing"] / (beta["knowing"] + beta["spamming"])).to_numpy() == pytest.approx(
        fitted.competence.to_numpy()
    )
    assert beta.sum(axis=1).to_numpy() == pytest.approx(
        np.full(4, 81.0)
    )  # each label knowing or spamming, plus the prior


def test_the_estimates_are_maces_posteriors_and_competence():
    rng = np.random.default_rng(3)
    truth = rng.integers(4, size=60)
    rows = [(i, w, int(t) if w < 3 else int(rng.integers(4))) for i, t in enumerate(truth) for w in range(4)]
    frame = pd.DataFrame(rows, columns=["item", "annotator", "value"])
    got, reference = estimate(frame), mace(frame)
    assert got.items["posterior"].to_numpy() == pytest.approx(reference.labels["posterior"].to_numpy())
    assert (got.items["labels"] == 4).all()
    assert got.competence.idxmin() == 3 and got.competence[3] < 0.3 < got.competence[0]


@pytest.mark.parametrize("theta", [0.0, 0.2, 0.47, 0.8, 0.97])
@pytest.mark.parametrize("others", [(1.0, 0.0, 0.0), (0.5, 0.3, 0.2)])
@pytest.mark.parametrize("target", [0.9, 0.98])
def test_one_agreeing_label_lifts_settles_from_to_the_target_by_bayes_rule(theta, others, target):
    """The reference is Bayes' rule on MACE's likelihood written out (P(label a | true t) =
    theta [a = t] + (1 - theta) / K), whatever the other labels' shares of the rest."""
    classes = 4
    start = settles_from(pd.Series({"a": theta}), classes=classes, target=target)["a"]
    prior = np.array([start, *(np.array(others) * (1 - start))])
    likelihood = np.array([theta + (1 - theta) / classes] + [(1 - theta) / classes] * (classes - 1))
    after = prior * likelihood / (prior * likelihood).sum()
    assert after[0] == pytest.approx(target)
    assert start <= target


def test_a_better_annotator_settles_from_lower_and_nobody_reaches_certainty():
    competence = pd.Series({"spammer": 0.0, "mediocre": 0.47, "good": 0.8, "perfect": 1.0})
    got = settles_from(competence, classes=4, target=0.98)
    assert got["spammer"] == pytest.approx(0.98)
    assert got["spammer"] > got["mediocre"] > got["good"] > got["perfect"] >= 0
    assert got["good"] == pytest.approx(49 / 66)  # likelihood ratio 1 + 4 * 0.8 / 0.2 = 17: 49 / (49 + 17)
    assert (settles_from(competence, classes=4, target=1.0) == 1.0).all()


@pytest.mark.django_db
def test_the_service_stores_estimates_and_settles_agreed_items():
    batch = adaptive_batch(2, target_confidence=0.6, min_competence=0.3)
    people = [person(batch) for _ in range(3)]
    for annotator in people:  # each labels both items: 1 always
        label(annotator, batch, 1)
        label(annotator, batch, 1)
    assert estimates_update(batch=batch) == 2
    frame = batch_labels(batch, adaptive_field(batch))
    reference = estimate(frame).items
    stored = {e.item_id: e for e in ItemEstimate.objects.filter(batch=batch)}
    for item, row in reference.iterrows():
        assert stored[item].posterior == pytest.approx(row.posterior) and stored[item].labels == 3
        assert stored[item].settled and stored[item].label == "1"
    assert AnnotatorEstimate.objects.filter(batch=batch, excluded=False).count() == 3  # too few labels to judge
    fitted = estimate(frame)
    closing = settles_from(fitted.competence, classes=fitted.classes, target=batch.target_confidence)
    for row in AnnotatorEstimate.objects.filter(batch=batch):
        assert row.settles_from == pytest.approx(closing[row.annotator_id])
        assert row.competence == pytest.approx(fitted.competence[row.annotator_id])
    assert labels_saved(batch) == {"labels_given": 6, "fixed_labels": 10, "items_settled": 2, "saved_on_settled": 4}
    assert estimates_update(batch=batch) == 2 and ItemEstimate.objects.filter(batch=batch).count() == 2


@pytest.mark.django_db
def test_a_batch_that_is_not_adaptive_gets_no_estimates():
    batch = adaptive_batch(1, adaptive=False)
    label(person(batch), batch, 1)
    assert estimates_update(batch=batch) == 0 and not ItemEstimate.objects.exists()


@pytest.mark.django_db
def test_a_completed_unit_queues_the_update_once_the_save_commits(django_capture_on_commit_callbacks):
    batch = adaptive_batch(2)
    assignment = label(person(batch), batch, 2)
    response = Response.objects.get(assignment=assignment)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with CaptureQueriesContext(connection) as queries:
            completion_queue(response=response, unit_done=True)
    assert len(queries) == 1  # the batch's two flags; the aggregation waits for the commit
    assert len(callbacks) == 1
    assert ItemEstimate.objects.get(batch=batch).labels == 1
    with django_capture_on_commit_callbacks() as callbacks:
        completion_queue(response=response, unit_done=False)
    assert callbacks == []


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    not broker_reachable() and os.environ.get("REQUIRE_SERVICES") != "1", reason="no Celery broker on 127.0.0.1:6379"
)
def test_the_task_runs_in_a_real_worker():
    from annotation.tasks import update_estimates

    batch = adaptive_batch(2)
    for _ in range(2):
        label(person(batch), batch, 3)
    with celery_worker() as queue:
        assert update_estimates.apply_async(args=[batch.pk], queue=queue).get(timeout=90) == 2
    assert sorted(ItemEstimate.objects.filter(batch=batch).values_list("labels", flat=True)) == [1, 1]


@pytest.mark.django_db
def test_a_spammer_is_stopped_after_enough_labels_and_the_others_are_not():
    batch = adaptive_batch(20, max_annotators=4, min_competence=0.3)
    rng = np.random.default_rng(5)
    truth = {}
    good, spammer = [person(batch) for _ in range(3)], person(batch)
    for annotator in [*good, spammer]:
        for _ in range(20):
            assignment = assignment_next(annotator=annotator, batch=batch)
            item = Response.objects.get(assignment=assignment).item_id
            right = truth.setdefault(item, int(rng.integers(4)))
            choice = int(rng.integers(4)) if annotator == spammer else right
            Response.objects.filter(assignment=assignment).update(
                answers={"post": {"choice": choice}}, completed_at=timezone.now()
            )
            assignment_submit_if_complete(assignment)
    estimates_update(batch=batch)
    stopped = set(AnnotatorEstimate.objects.filter(batch=batch, excluded=True).values_list("annotator_id", flat=True))
    assert stopped == {spammer.pk}


@pytest.mark.django_db
def test_without_a_spammer_rule_annotators_are_estimated_for_routing_and_nobody_is_stopped():
    batch = adaptive_batch(20, max_annotators=4)
    assert spammer_threshold(batch) is None
    people = [person(batch) for _ in range(3)]
    for annotator in people:
        for _ in range(16):  # past MIN_JUDGED; the third always answers 0
            label(annotator, batch, 0 if annotator == people[2] else 1)
    estimates_update(batch=batch)
    rows = {row.annotator_id: row for row in AnnotatorEstimate.objects.filter(batch=batch)}
    assert set(rows) == {p.pk for p in people} and not any(row.excluded for row in rows.values())
    assert rows[people[2].pk].settles_from > rows[people[0].pk].settles_from


@pytest.mark.django_db
def test_live_quality_turns_the_spammer_rule_on_without_a_threshold():
    batch = adaptive_batch(1)
    assert spammer_threshold(batch) is None
    Batch.objects.filter(pk=batch.pk).update(study="attention:\n  rate: 0.2\n  stop_below: 0.5\n")
    batch.refresh_from_db()
    assert spammer_threshold(batch) == LIVE_QUALITY_COMPETENCE
    batch.min_competence = 0.1
    assert spammer_threshold(batch) == 0.1
