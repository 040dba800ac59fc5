"""The adjudication stage on GCRC's hand-checked item (tests/gcrc/test_export.py): two annotators
who differ on option A's error reason and option D's evidence and agree on the rest."""

import json

import pytest

from annotation.models import AdjudicationTask, FinalLabel, Response
from annotation.selectors.adjudication import adjudication_counts, disputed_fields
from annotation.services.adjudication import (
    AdjudicationRefused,
    adjudication_decide,
    adjudication_open_for_item,
    adjudication_setup_set,
    adjudication_task_next,
)
from annotation.services.assignments import InviteClosed, NoWorkLeft, annotator_join_via_invite, assignment_next
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from tests.factories import ProjectFactory, save_answer
from tests.gcrc.test_export import FIRST, RECORD, SECOND

pytestmark = pytest.mark.django_db


def gcrc_batch(*, stage: bool = True):
    project = ProjectFactory(kind="gcrc", language="zh-hans")
    items_import(project=project, data=json.dumps({"data": [RECORD]}, ensure_ascii=False).encode(), filename="g.json")
    batch = batch_create(project=project, name="b", items_per_unit=1, assignments_per_unit=2)
    if stage:
        adjudication_setup_set(batch=batch)
    return project, batch


def annotate(batch, pages: dict) -> Response:
    annotator = annotator_join_via_invite(invite=invite_link_create(batch=batch))
    response = assignment_next(annotator=annotator, batch=batch).responses.get()
    for page, answer in pages.items():
        save_answer(response.pk, page, answer)
    return response


def adjudicator_of(batch):
    return annotator_join_via_invite(invite=invite_link_create(batch=batch, role="adjudicator"))


def two_annotations(batch, django_capture_on_commit_callbacks, second=SECOND):
    with django_capture_on_commit_callbacks(execute=True):
        first = annotate(batch, FIRST)
        annotate(batch, second)
    return first


def test_two_fields_in_dispute_make_one_task_and_the_rest_agree(django_capture_on_commit_callbacks):
    project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    task = AdjudicationTask.objects.get()
    assert task.fields_in_dispute == ["a_error", "d_evidence"]
    agreed = FinalLabel.objects.filter(how="agreed")
    assert agreed.count() == 4 * 4 - 2  # four parts of four options, the item came with its answer
    assert agreed.get(field="c_evidence").value == [0, 2]
    assert [f.name for f in disputed_fields(task)] == ["a_error", "d_evidence"]
    assert adjudication_counts(project) == {
        "adjudication_tasks_open": 1,
        "adjudication_tasks_decided": 0,
        "fields_agreed": 14,
        "fields_adjudicated": 0,
        "fields_unresolved": 0,
    }


def test_checking_again_opens_nothing_more(django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    first = two_annotations(batch, django_capture_on_commit_callbacks)
    task = AdjudicationTask.objects.get()
    assert adjudication_open_for_item(item=first.item, batch=batch) == task
    assert (AdjudicationTask.objects.count(), FinalLabel.objects.count()) == (1, 14)


def test_full_agreement_needs_no_task(django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks, second=FIRST)
    assert not AdjudicationTask.objects.exists()
    assert set(FinalLabel.objects.values_list("how", flat=True)) == {"agreed"}


def test_a_batch_without_the_stage_queues_nothing(django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch(stage=False)
    two_annotations(batch, django_capture_on_commit_callbacks)
    assert not AdjudicationTask.objects.exists() and not FinalLabel.objects.exists()


def test_each_way_to_a_final_label(django_capture_on_commit_callbacks):
    project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    adjudicator = adjudicator_of(batch)
    task = adjudication_task_next(adjudicator=adjudicator)
    # a_error: the second's (two supports); d_evidence: their own set, which neither gave
    assert adjudication_decide(task=task, adjudicator=adjudicator, values={"a_error": "ITQ", "d_evidence": [0]})
    labels = {label.field: label for label in FinalLabel.objects.filter(decided_by=adjudicator)}
    assert (labels["a_error"].how, labels["a_error"].value, labels["a_error"].reason) == ("adjudicated", "ITQ", "")
    # the own value is the adjudicator's decision: it resolves the field, and says whose it is
    assert (labels["d_evidence"].how, labels["d_evidence"].value) == ("adjudicated", [0])
    assert labels["d_evidence"].reason.startswith("the adjudicator's own value, given by neither annotator")
    assert FinalLabel.objects.get(field="a_skill").how == "agreed"
    assert adjudication_counts(project)["fields_unresolved"] == 0
    assert adjudication_counts(project)["fields_adjudicated"] == 2
    assert adjudication_counts(project)["adjudication_tasks_decided"] == 1


def test_a_field_given_no_value_stays_unresolved(django_capture_on_commit_callbacks):
    project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    adjudicator = adjudicator_of(batch)
    task = adjudication_task_next(adjudicator=adjudicator)
    adjudication_decide(task=task, adjudicator=adjudicator, values={"a_error": "ITQ", "d_evidence": None})
    label = FinalLabel.objects.get(field="d_evidence")
    assert (label.how, label.value, label.reason) == ("unresolved", None, "the adjudicator gave no value")
    assert adjudication_counts(project)["fields_unresolved"] == 1


def test_a_set_matches_in_any_order(django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    adjudicator = adjudicator_of(batch)
    task = adjudication_task_next(adjudicator=adjudicator)
    adjudication_decide(task=task, adjudicator=adjudicator, values={"a_error": "DTL", "d_evidence": [2, 1]})
    assert FinalLabel.objects.get(field="d_evidence").how == "adjudicated"


def test_a_double_submit_changes_nothing_and_another_decision_is_refused(django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    adjudicator = adjudicator_of(batch)
    task = adjudication_task_next(adjudicator=adjudicator)
    values = {"a_error": "DTL", "d_evidence": [2]}
    assert adjudication_decide(task=task, adjudicator=adjudicator, values=values) is True
    assert adjudication_decide(task=task, adjudicator=adjudicator, values=values) is False
    with pytest.raises(AdjudicationRefused):
        adjudication_decide(task=task, adjudicator=adjudicator, values={"a_error": "ITQ", "d_evidence": [2]})
    assert FinalLabel.objects.count() == 16
    other = adjudicator_of(batch)
    with pytest.raises(AdjudicationRefused):
        adjudication_decide(task=task, adjudicator=other, values=values)


def test_the_adjudicator_must_be_a_third_person(django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    first = two_annotations(batch, django_capture_on_commit_callbacks)
    annotator = first.assignment.annotator
    with pytest.raises(InviteClosed):  # the first annotator's browser opens the adjudicator's link
        annotator_join_via_invite(
            invite=invite_link_create(batch=batch, role="adjudicator"), known_key=annotator.access_key
        )
    task = AdjudicationTask.objects.get()
    with pytest.raises(AdjudicationRefused):  # an annotator is no adjudicator
        adjudication_decide(task=task, adjudicator=annotator, values={"a_error": "DTL", "d_evidence": [2]})
    annotator.role = "adjudicator"  # nor when made one: they annotated this item
    annotator.save()
    assert adjudication_task_next(adjudicator=annotator) is None
    with pytest.raises(AdjudicationRefused):
        adjudication_decide(task=task, adjudicator=annotator, values={"a_error": "DTL", "d_evidence": [2]})


def test_two_adjudicators_never_share_a_task(django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    one, two = adjudicator_of(batch), adjudicator_of(batch)
    assert adjudication_task_next(adjudicator=one) is not None
    assert adjudication_task_next(adjudicator=two) is None


def test_two_invited_annotators_get_the_same_item_and_never_see_each_others_answers(client):
    _project, batch = gcrc_batch()
    invite = invite_link_create(batch=batch)
    first = annotator_join_via_invite(invite=invite)
    second = annotator_join_via_invite(invite=invite)
    third = annotator_join_via_invite(invite=invite)
    mine = assignment_next(annotator=first, batch=batch).responses.get()
    for page, answer in FIRST.items():
        save_answer(mine.pk, page, answer)
    theirs = assignment_next(annotator=second, batch=batch).responses.get()
    assert theirs.item_id == mine.item_id and theirs.pk != mine.pk and theirs.answers == {}
    html = client.get(f"/a/{second.access_key}/").content.decode()
    assert 'name="evidence"' in html and " checked" not in html.split('name="wrong"')[0]  # nothing of the first's
    with pytest.raises(NoWorkLeft):  # exactly two: a third person gets no slot on the item
        assignment_next(annotator=third, batch=batch)
