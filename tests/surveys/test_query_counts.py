"""The annotator's hot pages run a small, constant number of queries."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.services.batches import batch_create, invite_link_create
from tests.factories import ItemFactory, ModelCallFactory, ModelConnectionFactory, ProjectFactory
from tests.surveys.test_recam_flow import answer_for, form_fields

pytestmark = pytest.mark.django_db

MAX_VIEW_QUERIES = 2  # the current assignment with its annotator; its first open item
#: the response read and its compare-and-set UPDATE; when an item completes, whether its batch
#: adjudicates or is adaptive; after the unit's last item (or once a minute) the assignment's UPDATE
MAX_SAVE_QUERIES = 4
MAX_SWAPPED_SAVE_QUERIES = 2  # the read and the UPDATE: the next page of the item needs no more


#: the model's labels of every item: each ReCAM page with a label field shows a suggestion
MODEL_LABELS = {
    "pre_choice": 2,
    "post_choice": 1,
    "second_choice": "none",
    "relation": "summarize",
    "difficulty": "easy",
}


def _with_suggestions(batch, mode: str) -> None:
    """The batch shows `mode` suggestions of a model that labeled each of its items."""
    if mode == "off":
        return
    model = ModelConnectionFactory(team=batch.project.team)
    for item in batch.project.items.all():
        ModelCallFactory(connection=model, item=item, labels=MODEL_LABELS)
    batch.model, batch.suggestions = model, mode
    batch.save(update_fields=["model", "suggestions"])


def _walk(client, n_items, suggestions="off"):
    project = ProjectFactory()
    ItemFactory.create_batch(n_items, project=project)
    batch = batch_create(project=project, name="b", items_per_unit=n_items, assignments_per_unit=1)
    _with_suggestions(batch, suggestions)
    url = client.post(reverse("surveys:invite", args=[invite_link_create(batch=batch).token]))["Location"]
    client.get(url)  # first view hands out the unit
    views, saves = [], []
    from annotation.models import Response

    for _ in range(n_items * 7):
        with CaptureQueriesContext(connection) as q:
            html = client.get(url).content.decode()
        views.append(len(q))
        fields = form_fields(html)
        item = Response.objects.get(pk=fields["response"]).item
        with CaptureQueriesContext(connection) as q:
            assert client.post(url, {**fields, **answer_for(fields["page"], item)}).status_code == 302
        saves.append(len(q))
    return views, saves


@pytest.mark.parametrize("suggestions", ["off", "hint", "preselect"])
def test_page_view_and_save_query_counts_are_small_and_constant(client, suggestions):
    """A model's suggestion is read with the item and recorded in the save's own UPDATE."""
    small_views, small_saves = _walk(client, 2, suggestions)
    big_views, big_saves = _walk(client, 6, suggestions)
    assert max(small_views) <= MAX_VIEW_QUERIES
    assert max(small_saves) <= MAX_SAVE_QUERIES
    assert max(big_views) == max(small_views)
    assert max(big_saves) == max(small_saves)


@pytest.mark.parametrize("suggestions", ["off", "preselect"])
def test_a_save_answered_with_the_next_page_reads_nothing_more(client, suggestions):
    project = ProjectFactory()
    ItemFactory.create_batch(2, project=project)
    batch = batch_create(project=project, name="b", items_per_unit=2, assignments_per_unit=1)
    _with_suggestions(batch, suggestions)
    url = client.post(reverse("surveys:invite", args=[invite_link_create(batch=batch).token]))["Location"]
    fields = form_fields(client.get(url).content.decode())
    from annotation.models import Response

    item = Response.objects.get(pk=fields["response"]).item
    with CaptureQueriesContext(connection) as q:
        page = client.post(url, {**fields, **answer_for(fields["page"], item)}, headers={"X-Page-Swap": "1"})
    assert page.status_code == 200 and form_fields(page.content.decode())["page"] == "post"
    assert len(q) <= MAX_SWAPPED_SAVE_QUERIES, [x["sql"][:60] for x in q.captured_queries]
    if suggestions != "off":  # the next page shows its suggestion, the save recorded the first: no query more
        assert "Pre-filled by a model" in page.content.decode()
        assert Response.objects.get(pk=fields["response"]).suggestions["pre"]["pre_choice"]["value"] == 2


#: the view after a unit: who the key is (2), the annotator's assignments, the release sweep, and
#: under the batch's lock: the lock, their current assignment, the next unit, its items, the
#: assignment and its responses written, then the new unit's first open item
MAX_HANDOUT_STATEMENTS = 11
TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


def _handout_statements(client, n_units: int, handout: str = "overlap") -> list[str]:
    """The statements of the view that hands out an annotator's second unit, in a batch of
    `n_units` one-item units, two annotators each, in the `handout` order (transaction control
    left out: BEGIN/COMMIT, or savepoints inside the test's transaction)."""
    project = ProjectFactory()
    ItemFactory.create_batch(n_units, project=project)
    batch = batch_create(project=project, name="b", items_per_unit=1, assignments_per_unit=2, handout=handout)
    url = client.post(reverse("surveys:invite", args=[invite_link_create(batch=batch).token]))["Location"]
    from annotation.models import Response

    for _ in range(7):  # the first unit's item, every page
        fields = form_fields(client.get(url).content.decode())
        item = Response.objects.get(pk=fields["response"]).item
        assert client.post(url, {**fields, **answer_for(fields["page"], item)}).status_code == 302
    with CaptureQueriesContext(connection) as q:
        page = client.get(url)
    assert page.status_code == 200 and form_fields(page.content.decode())["page"] == "pre"
    return [x["sql"] for x in q.captured_queries if x["sql"].split()[0] not in TRANSACTION_CONTROL]


@pytest.mark.parametrize("handout", ["overlap", "spread"])
def test_a_hand_out_costs_the_same_few_statements_in_a_small_and_a_large_batch(client, handout):
    """The unit rule is a fixed number of statements whatever the batch's size or hand-out order
    (an ORDER BY of the same query); a release sweep that finds nothing writes nothing."""
    small, large = _handout_statements(client, 3, handout), _handout_statements(client, 60, handout)
    assert len(small) == len(large) <= MAX_HANDOUT_STATEMENTS, [s[:70] for s in small]
    assert sum(s.startswith("UPDATE") for s in large) == 0
