"""A question shown by an answer on the same page (issue 36, the Low bullet): a required one is
required whenever it is shown and its label does not say "(optional)"; the page is drawn with it
hidden until the answer meets its condition, on the annotator's page and in the preview alike."""

import re

import pytest
from django.urls import reverse

from annotation.models import Response
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from tests.conftest import data_file
from tests.factories import TeamFactory
from tests.security.conftest import staff_with
from tests.surveys.test_task_file_flow import fields_of

pytestmark = pytest.mark.django_db

TASK = data_file("task_files", "same_page_condition.yaml").read_text(encoding="utf-8")


@pytest.fixture
def project():
    project = project_create(name="Same page", team=TeamFactory(), task_file=TASK)
    items_import(project=project, data=b'{"id": "t1", "text": "A fine little text."}\n', filename="i.jsonl")
    return project


def fieldset(html: str, question: str) -> str:
    """The opening tag and legend of a question's fieldset."""
    found = re.search(rf'<fieldset[^>]*id="q-{question}"[^>]*>\s*<legend[^>]*>.*?</legend>', html, re.S)
    assert found, question
    return found.group(0)


def join(client, project) -> str:
    batch = batch_create(project=project, name="b", items_per_unit=1, assignments_per_unit=1)
    return client.post(reverse("surveys:invite", args=[invite_link_create(batch=batch).token]))["Location"]


def test_a_required_question_shown_by_an_answer_is_not_labelled_optional(client, project):
    html = client.get(join(client, project)).content.decode()
    reason, note = fieldset(html, "reason"), fieldset(html, "note")
    assert "(optional)" not in reason and "(optional)" in note
    assert " hidden>" in reason and " hidden>" in note  # no answer yet: neither is asked
    assert " hidden" not in fieldset(html, "polar")


def test_it_is_required_when_shown_and_not_otherwise(client, project):
    url = join(client, project)
    fields = fields_of(client.get(url).content.decode())
    refused = client.post(url, {**fields, "polar": "positive", "reason": ""})
    assert refused.status_code == 400
    html = refused.content.decode()
    assert "This field is required." in html
    assert " hidden" not in fieldset(html, "reason") and " hidden>" in fieldset(html, "note")  # as answered
    saved = client.post(url, {**fields, "polar": "negative", "reason": "", "note": ""})
    assert saved.status_code == 302
    assert Response.objects.get(pk=fields["response"]).answers["rate"]["polar"] == "negative"


def test_the_preview_shows_a_conditional_question_only_for_an_answer_that_asks_it(client, project):
    client.force_login(staff_with("view_project", teams=[project.team]))
    url = reverse("surveys:preview", args=[project.pk])
    before = client.get(url).content.decode()
    assert " hidden>" in fieldset(before, "reason") and " hidden>" in fieldset(before, "note")
    negative = client.post(url, {"rate-polar": "negative", "answers": "1"}).content.decode()
    assert " hidden>" in fieldset(negative, "reason") and " hidden" not in fieldset(negative, "note")
    positive = client.post(url, {"rate-polar": "positive", "answers": "1"}).content.decode()
    assert " hidden" not in fieldset(positive, "reason") and " hidden>" in fieldset(positive, "note")
