"""Adaptive redundancy with the model's vote (`Batch.model_votes`), through the real hand-out:
the model's label of an item is one more vote whose competence is learned with the people's; an
item the model and the minimum number of people settle is handed out no more; a bad model is
learned to be bad and settles nothing wrongly; the batch page shows human labels against fixed
redundancy and the model's competence."""

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.models import Item, ItemEstimate, ModelEstimate, Response
from annotation.services.adaptive import adaptive_field, batch_labels, estimates_update, model_vote_labels
from annotation.services.assignments import NoWorkLeft, assignment_next
from annotation.services.responses import assignment_submit_if_complete
from quality.stats.adaptive import estimate
from tests.annotation.adaptive_helpers import adaptive_batch, first_item, label, person
from tests.annotation.test_admin_adjudication import change_data
from tests.factories import ItemFactory, ModelCallFactory, ModelConnectionFactory

pytestmark = pytest.mark.django_db

ITEMS = 20
#: items the second person gets wrong (the one after the truth): only the first person and, with
#: a vote, the model say otherwise
MISSED = {2, 3, 7, 11, 15, 19}


def truth(position: int) -> int:
    return position % 4


def voting_batch(answer=truth, *, votes: bool = True, **adaptive):
    """An adaptive batch of ITEMS items (target 0.99, 2 to 3 people an item) whose model
    answered each item by `answer(position)`, its vote on (or off)."""
    batch = adaptive_batch(ITEMS, target_confidence=0.99, **adaptive)
    connection = ModelConnectionFactory(team=batch.project.team)
    for position, item in enumerate(Item.objects.filter(project=batch.project).order_by("pk")):
        ModelCallFactory(connection=connection, item=item, labels={"post_choice": answer(position)})
    batch.model, batch.model_votes = connection, votes
    batch.save()
    return batch


def position_of(batch) -> dict[int, int]:
    return {
        pk: n
        for n, pk in enumerate(Item.objects.filter(project=batch.project).order_by("pk").values_list("pk", flat=True))
    }


def two_people_label(batch, *, second_items: int = ITEMS):
    """The first person labels every item rightly; the second `second_items` items, missing MISSED."""
    where = position_of(batch)
    for second, count in ((False, ITEMS), (True, second_items)):
        who = person(batch)
        for _ in range(count):
            assignment = assignment_next(annotator=who, batch=batch)
            n = where[first_item(assignment)]
            choice = (truth(n) + (second and n in MISSED)) % 4
            Response.objects.filter(assignment=assignment).update(
                answers={"post": {"choice": choice}}, completed_at=timezone.now()
            )
            assert assignment_submit_if_complete(assignment)


def open_items(batch) -> set[int]:
    """The positions of the items a newcomer is handed, one after another, until none is left."""
    where, got, newcomer = position_of(batch), set(), person(batch)
    while True:
        try:
            got.add(where[first_item(label(newcomer, batch, 0))])
        except NoWorkLeft:
            return got


def test_items_the_model_and_the_minimum_of_people_settle_get_no_more_labels():
    batch = voting_batch()
    two_people_label(batch)
    assert estimates_update(batch=batch) == ITEMS
    estimate_row = ModelEstimate.objects.get(batch=batch)
    assert estimate_row.competence > 0.9 and (estimate_row.items, estimate_row.gold) == (ITEMS, 0)
    assert ItemEstimate.objects.filter(batch=batch, settled=True).count() == ITEMS
    assert set(ItemEstimate.objects.values_list("labels", flat=True)) == {2}  # people's labels: the model adds none
    assert open_items(batch) == set()  # nothing left to pay for


def test_without_the_models_vote_the_items_people_disagree_on_need_a_third_label():
    batch = voting_batch(votes=False)
    two_people_label(batch)
    estimates_update(batch=batch)
    assert not ModelEstimate.objects.exists()
    assert open_items(batch) == MISSED


@pytest.mark.parametrize("minimum", [1, 2])
def test_the_model_does_not_count_toward_the_minimum_of_people(minimum):
    """Nor does one person and the model settle an item when the batch asks for one person:
    the model's vote asks for two (MODEL_VOTE_PEOPLE)."""
    batch = voting_batch(min_annotators=minimum)
    two_people_label(batch, second_items=10)  # the other ten items: one person and the model, agreeing
    estimates_update(batch=batch)
    where = position_of(batch)
    one_person = {where[e.item_id] for e in ItemEstimate.objects.filter(batch=batch, labels=1)}
    assert len(one_person) == 10
    assert not ItemEstimate.objects.filter(batch=batch, labels=1, settled=True).exists()
    assert ItemEstimate.objects.filter(batch=batch, labels=1, posterior__gte=0.99).count() == 10  # sure, yet open
    assert open_items(batch) == one_person


def test_a_bad_model_is_learned_to_be_bad_and_settles_nothing_wrongly():
    batch = voting_batch(answer=lambda n: (truth(n) + 1) % 4)  # always wrong
    two_people_label(batch)
    estimates_update(batch=batch)
    assert ModelEstimate.objects.get(batch=batch).competence < 0.2
    where = position_of(batch)
    for row in ItemEstimate.objects.filter(batch=batch, settled=True):
        assert int(row.label) == truth(where[row.item_id])
    assert open_items(batch) == MISSED  # as without a model


def test_a_model_the_spammer_rule_stops_has_no_vote_and_the_page_says_so(admin_client):
    batch = voting_batch(answer=lambda n: (truth(n) + 1) % 4, min_competence=0.3)
    two_people_label(batch)
    estimates_update(batch=batch)
    stopped = ModelEstimate.objects.get(batch=batch)
    assert not stopped.counted and stopped.competence < 0.2
    alone = estimate(batch_labels(batch, adaptive_field(batch)))
    stored = dict(ItemEstimate.objects.filter(batch=batch).values_list("item_id", "posterior"))
    assert [stored[item] for item in alone.items.index] == pytest.approx(alone.items["posterior"].tolist())
    page = admin_client.get(reverse("admin:annotation_batch_change", args=[batch.pk])).content.decode()
    assert "Its vote does not count: the spammer rule judged it below the minimum competence." in page


def test_gold_items_judge_the_model_and_the_stored_competence_is_the_fits():
    batch = voting_batch()
    for n in range(5):  # check items of the project, answered by the model: 4 right, 1 wrong
        gold = ItemFactory(project=batch.project, check_answer={"post_choice": [n % 4]})
        ModelCallFactory(connection=batch.model, item=gold, labels={"post_choice": n % 4 if n else 3})
    ItemFactory(project=batch.project, check_answer={"post_choice": {"min": 0, "max": 2}})  # no single answer
    two_people_label(batch)
    estimates_update(batch=batch)
    field = adaptive_field(batch)
    labels = batch_labels(batch, field)
    model, gold = model_vote_labels(batch, field, labels)
    assert len(gold) == 5 and len(model) == ITEMS + 5
    reference = estimate(labels, model=model, gold=gold).model
    stored = ModelEstimate.objects.get(batch=batch)
    assert stored.competence == pytest.approx(reference.competence)
    assert (stored.items, stored.gold) == (ITEMS, 5)


def test_the_batch_page_shows_human_labels_against_fixed_redundancy_and_the_models_competence(admin_client):
    batch = voting_batch()
    url = reverse("admin:annotation_batch_change", args=[batch.pk])
    page = admin_client.get(url).content.decode()
    assert f"The model {batch.model} votes once people have labelled items it labelled." in page
    two_people_label(batch)
    estimates_update(batch=batch)
    competence = ModelEstimate.objects.get(batch=batch).competence
    page = admin_client.get(url).content.decode()
    assert f"{2 * ITEMS} human labels so far; fixed redundancy would cost {5 * ITEMS} (5 an item)." in page
    assert f"{ITEMS} items settled, {3 * ITEMS} labels saved on them." in page
    assert (
        f"its estimated competence {competence:.2f} (MACE" in page
        and f"from {ITEMS} items people labelled too." in page
    )


def test_the_batch_page_turns_the_models_vote_on(admin_client):
    batch = voting_batch(votes=False)
    url = reverse("admin:annotation_batch_change", args=[batch.pk])
    data = change_data(admin_client, batch)
    assert "model_votes" not in data  # shown, unchecked
    data["model_votes"] = "on"
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.context and response.context["errors"]
    batch.refresh_from_db()
    assert batch.model_votes and batch.model is not None
