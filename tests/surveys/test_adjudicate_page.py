"""The adjudicator's page: only the disputed fields, both annotations side by side, Chinese for
a zh-hans project; a decision posted twice (reload, back button) is stored once. And a ReCAM
project adjudicates the same way, its annotators walking the ordinary pages."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import AdjudicationTask, FinalLabel
from annotation.services.adjudication import adjudication_setup_set
from annotation.services.batches import batch_create, invite_link_create
from tests.annotation.test_adjudication import gcrc_batch, two_annotations
from tests.factories import ItemFactory, ProjectFactory
from tests.surveys.test_recam_flow import answer_for, form_fields, join

pytestmark = pytest.mark.django_db


def adjudicator_url(client, batch) -> str:
    url = client.post(reverse("surveys:invite", args=[invite_link_create(batch=batch, role="adjudicator").token]))
    assert "/adj/" in url["Location"]
    return url["Location"]


def task_id(html: str) -> str:
    return re.search(r'name="task" value="(\d+)"', html).group(1)


def test_the_page_shows_only_the_disputed_fields_in_chinese(client, django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    html = client.get(adjudicator_url(client, batch)).content.decode()
    assert re.findall(r'data-field="([a-z_]+)"', html) == ["a_error", "d_evidence"]
    assert "选项 A：错误原因" in html and "标注员 1" in html and "标注员 2" in html
    assert "细节错误 · Wrong details (DTL)" in html and "答非所问 · Irrelevant to the question (ITQ)" in html
    assert "<script>" not in html


def test_a_decision_is_saved_once_and_the_page_moves_on(client, django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    url = adjudicator_url(client, batch)
    posted = {
        "task": task_id(client.get(url).content.decode()),
        "choice_a_error": "second",
        "choice_d_evidence": "own",
        "own_d_evidence": "2，3",
    }
    for _twice in range(2):
        assert client.post(url, posted).status_code == 302
    assert AdjudicationTask.objects.get().answers == {"a_error": "ITQ", "d_evidence": [1, 2]}
    assert FinalLabel.objects.get(field="d_evidence").how == "adjudicated"  # the second's set, typed by hand
    assert FinalLabel.objects.count() == 16
    assert "目前没有需要裁定的内容" in client.get(url).content.decode()


def test_a_value_that_is_not_one_is_shown_again(client, django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    url = adjudicator_url(client, batch)
    posted = {
        "task": task_id(client.get(url).content.decode()),
        "choice_a_error": "first",
        "choice_d_evidence": "own",
        "own_d_evidence": "99",
    }
    page = client.post(url, posted)
    assert page.status_code == 400 and "这不是该字段的有效值" in page.content.decode()
    assert AdjudicationTask.objects.get().status == "open"


def walk_recam(url: str, client, changes: dict) -> None:
    from annotation.models import Response

    for _page in range(7):
        fields = form_fields(client.get(url).content.decode())
        item = Response.objects.get(pk=fields["response"]).item
        answer = {**answer_for(fields["page"], item), **changes.get(fields["page"], {})}
        assert client.post(url, {**fields, **answer}).status_code == 302


def test_recam_adjudicates_the_same_way(django_capture_on_commit_callbacks):
    project = ProjectFactory(kind="recam")
    ItemFactory(project=project)
    batch = batch_create(project=project, name="b", items_per_unit=1, assignments_per_unit=2)
    adjudication_setup_set(batch=batch)
    invite = invite_link_create(batch=batch)
    with django_capture_on_commit_callbacks(execute=True):
        walk_recam(join(Client(), invite), Client(), {})
    first, second = Client(), Client()
    with django_capture_on_commit_callbacks(execute=True):
        walk_recam(
            join(second, invite),
            second,
            {"relation": {"relation": "paraphrase"}, "difficulty": {"difficulty": "difficult"}},
        )
    task = AdjudicationTask.objects.get()
    assert task.fields_in_dispute == ["relation", "difficulty"]
    assert set(FinalLabel.objects.values_list("field", flat=True)) == {"post_choice", "pre_choice", "second_choice"}
    url = adjudicator_url(first, batch)
    posted = {"task": str(task.pk), "choice_relation": "first", "choice_difficulty": "own", "own_difficulty": "easy"}
    assert first.post(url, posted).status_code == 302
    final = {label.field: (label.how, label.value) for label in FinalLabel.objects.exclude(how="agreed")}
    assert final == {"relation": ("adjudicated", "summarize"), "difficulty": ("unresolved", None)}


def test_a_named_login_adjudicates_and_others_are_refused(client, django_capture_on_commit_callbacks):
    from tests.factories import UserFactory

    _project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    named, other = UserFactory(), UserFactory()
    adjudication_setup_set(batch=batch, users=[named])
    client.force_login(other)
    assert client.get(reverse("surveys:adjudicate-login", args=[batch.pk])).status_code == 403
    client.force_login(named)
    url = client.get(reverse("surveys:adjudicate-login", args=[batch.pk]))["Location"]
    assert re.findall(r'data-field="([a-z_]+)"', client.get(url).content.decode()) == ["a_error", "d_evidence"]
    assert AdjudicationTask.objects.get().adjudicator.user == named
