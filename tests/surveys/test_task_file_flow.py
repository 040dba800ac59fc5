"""A task-file project through the server, as an annotator's browser talks to it (Django's test
client): the same refusals as the built-in kinds (a locked answer, a page out of order, a
use-once option chosen twice, a page saved too soon), then quality, the report and every export."""

import csv
import io
import json
import re
from html import escape, unescape

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.models import Response
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from quality.exports.datasets import dataset_formats, offered_datasets
from quality.services.runs import quality_run_create
from tests.conftest import data_file
from tests.factories import TeamFactory

pytestmark = pytest.mark.django_db

HIDDEN_INPUT = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')
TASK = data_file("task_files", "before_reading.yaml").read_text(encoding="utf-8")


def fields_of(html: str) -> dict:
    fields = {name: unescape(v) for name, v in HIDDEN_INPUT.findall(html) if name != "csrfmiddlewaretoken"}
    assert {"response", "page", "shown"} <= set(fields), fields
    return fields


@pytest.fixture
def project():
    project = project_create(name="Before reading", team=TeamFactory(), task_file=TASK)
    items_import(project=project, data=data_file("task_files", "before_reading.jsonl").read_bytes(), filename="i.jsonl")
    return project


def join(client, project, annotators=2):
    batch = batch_create(project=project, name="b", items_per_unit=3, assignments_per_unit=annotators)
    response = client.post(reverse("surveys:invite", args=[invite_link_create(batch=batch).token]))
    assert response.status_code == 302
    return response["Location"]


def answers_for(payload: dict, page: str, *, careful: bool = True) -> dict:
    right = payload.get("label") or payload["options"][0]
    return {
        "guess": {"first_choice": payload["options"][1]},
        "read": {"second_choice": right if careful else payload["options"][3], "sure": "4", "why": "read it"},
        "fill": {"blank_1": payload["candidates"][0], "blank_2": payload["candidates"][1]},
    }[page]


def test_the_passage_is_sent_only_after_the_guess_and_the_guess_is_then_final(client, project):
    url = join(client, project)
    html = client.get(url).content.decode()
    fields = fields_of(html)
    response = Response.objects.get(pk=fields["response"])
    passage = response.item.payload["passage"]
    assert fields["page"] == "guess" and escape(passage[:40]) not in html
    assert escape(response.item.payload["question"]) in html
    # a later page before this one: refused
    skipped = client.post(url, {**fields, "page": "read", **answers_for(response.item.payload, "read")}, follow=True)
    assert "Please answer the pages in order." in skipped.content.decode()
    client.post(url, {**fields, "first_choice": response.item.payload["options"][1]})
    html = client.get(url).content.decode()
    assert escape(passage[:40]) in html and fields_of(html)["page"] == "read"
    changed = client.post(url, {**fields, "first_choice": response.item.payload["options"][0]}, follow=True)
    assert "is final and cannot be changed" in unescape(changed.content.decode())
    response.refresh_from_db()
    assert response.answers["guess"] == {"first_choice": response.item.payload["options"][1]}


def test_an_option_used_twice_is_refused_and_nothing_is_stored(client, project):
    url = join(client, project)
    fields = fields_of(client.get(url).content.decode())
    response = Response.objects.get(pk=fields["response"])
    payload = response.item.payload
    for page in ("guess", "read"):
        fields = fields_of(client.get(url).content.decode())
        client.post(url, {**fields, **answers_for(payload, page)})
    fields = fields_of(client.get(url).content.decode())
    assert fields["page"] == "fill"
    twice = client.post(url, {**fields, "blank_1": payload["candidates"][0], "blank_2": payload["candidates"][0]})
    assert "each may be used once" in unescape(twice.content.decode())
    response.refresh_from_db()
    assert "fill" not in response.answers


def test_a_page_with_a_minimum_time_is_refused_when_saved_sooner(client):
    project = project_create(
        name="slow", team=TeamFactory(), task_file=TASK.replace("min_seconds: 0", "min_seconds: 600")
    )
    items_import(project=project, data=data_file("task_files", "before_reading.jsonl").read_bytes(), filename="i.jsonl")
    url = join(client, project)
    fields = fields_of(client.get(url).content.decode())
    payload = Response.objects.get(pk=fields["response"]).item.payload
    client.post(url, {**fields, **answers_for(payload, "guess")})
    fields = fields_of(client.get(url).content.decode())
    too_soon = client.post(url, {**fields, **answers_for(payload, "read")}, follow=True)
    assert "Please take at least 600 seconds on this page before you continue." in too_soon.content.decode()
    assert "read" not in Response.objects.get(pk=fields["response"]).answers


def work_through(client, url, *, careful: bool) -> int:
    pages = 0
    while True:
        html = client.get(url).content.decode()
        if 'name="page"' not in html:
            return pages
        fields = fields_of(html)
        payload = Response.objects.get(pk=fields["response"]).item.payload
        answer = client.post(url, {**fields, **answers_for(payload, fields["page"], careful=careful)})
        assert answer.status_code == 302, answer.content.decode()[:2000]
        pages += 1


def test_two_annotators_then_quality_report_and_every_export(client, project):
    careful_url = join(client, project)
    assert work_through(client, careful_url, careful=True) == 9
    other = type(client)()
    batch = project.batches.get()
    location = other.post(reverse("surveys:invite", args=[invite_link_create(batch=batch).token]))["Location"]
    assert work_through(other, location, careful=False) == 9
    run = quality_run_create(project=project, overrides={"min_gold_accuracy": 0.5})
    summary = run.report["summary"]
    assert run.status == "done", run.error
    assert summary["responses"] == 6 and summary["dropped_low_accuracy_annotator"] == 3
    staff = get_user_model().objects.create_user("r", password="pw", is_staff=True, is_superuser=True)
    client.force_login(staff)
    report = client.get(reverse("quality:report", args=[project.pk]))
    assert report.status_code == 200
    text = report.content.decode()
    assert "Answer before you read" in text and "accuracy 0.0% on 4 gold answers" in unescape(text)
    for dataset in (name for name in offered_datasets(project) if "csv" in dataset_formats(name)):  # the tables
        files = {}
        for fmt in ("csv", "jsonl"):
            download = client.get(reverse("quality:export", args=[project.pk, dataset, fmt]))
            assert download.status_code == 200, (dataset, fmt)
            files[fmt] = b"".join(download.streaming_content).decode()
        rows = list(csv.DictReader(io.StringIO(files["csv"])))
        records = [json.loads(line) for line in files["jsonl"].splitlines()]
        assert len(rows) == len(records), dataset  # the same rows in both formats
        # no study file here (and no adjudication: its datasets are not offered)
        assert rows or dataset in ("participants", "checks"), dataset
    raw = b"".join(client.get(reverse("quality:export", args=[project.pk, "raw", "csv"])).streaming_content).decode()
    header = raw.splitlines()[0].split(",")
    assert {"first_choice", "first_choice_correct", "second_choice", "sure", "why", "blank_1", "blank_2"} <= set(header)


def test_a_task_file_project_runs_the_hot_pages_query_guards(client, project):
    """The same bounds as a built-in kind's pages (tests/surveys/test_query_counts.py): the file's
    kind is built once per file text, not read or parsed per request."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.surveys.test_query_counts import MAX_SAVE_QUERIES, MAX_VIEW_QUERIES

    url = join(client, project)
    client.get(url)
    views, saves = [], []
    for _ in range(9):
        with CaptureQueriesContext(connection) as queries:
            html = client.get(url).content.decode()
        views.append(len(queries))
        fields = fields_of(html)
        payload = Response.objects.get(pk=fields["response"]).item.payload
        with CaptureQueriesContext(connection) as queries:
            assert client.post(url, {**fields, **answers_for(payload, fields["page"])}).status_code == 302
        saves.append(len(queries))
    assert max(views) <= MAX_VIEW_QUERIES and max(saves) <= MAX_SAVE_QUERIES, (views, saves)


def test_two_annotators_who_differ_go_to_an_adjudicator_who_decides_the_label_fields(
    client, project, django_capture_on_commit_callbacks
):
    """Adjudication needs nothing of the file but its label fields: the pair's differing fields
    are disputed, the agreed ones final, and the adjudicator's page decides the rest."""
    from annotation.models import AdjudicationTask, FinalLabel
    from annotation.services.adjudication import adjudication_setup_set

    batch = batch_create(project=project, name="adj", items_per_unit=3, assignments_per_unit=2)
    adjudication_setup_set(batch=batch, enabled=True)
    for careful in (True, False):
        person = type(client)()
        url = person.post(reverse("surveys:invite", args=[invite_link_create(batch=batch).token]))["Location"]
        with django_capture_on_commit_callbacks(execute=True):
            assert work_through(person, url, careful=careful) == 9
    tasks = AdjudicationTask.objects.filter(batch=batch).order_by("item_id")
    assert tasks.count() == 3 and all(t.fields_in_dispute == ["second_choice"] for t in tasks)
    assert set(FinalLabel.objects.filter(batch=batch).values_list("field", "how").distinct()) == {
        ("first_choice", "agreed"),
        ("sure", "agreed"),
    }
    adjudicator = type(client)()
    url = adjudicator.post(reverse("surveys:invite", args=[invite_link_create(batch=batch, role="adjudicator").token]))
    url = url["Location"]
    for _ in range(3):
        html = adjudicator.get(url).content.decode()
        task = re.search(r'name="task" value="(\d+)"', html).group(1)
        assert adjudicator.post(url, {"task": task, "choice_second_choice": "first"}).status_code == 302
    decided = FinalLabel.objects.filter(batch=batch, field="second_choice")
    assert decided.count() == 3 and {label.how for label in decided} == {"adjudicated"}
    payloads = {t.item_id: t.item.payload for t in tasks}
    assert {label.item_id: label.value for label in decided} == {
        item: payload.get("label") or payload["options"][0] for item, payload in payloads.items()
    }


def test_a_refused_early_save_keeps_the_answers_and_the_first_showing(client):
    """Issue 36: the page came back with the Likert answer cleared and the whole wait again. Now
    it comes back as answered, with the note of its first showing and the wait left from then."""
    import time

    from django.core import signing

    from surveys import flow

    project = project_create(
        name="slow too", team=TeamFactory(), task_file=TASK.replace("min_seconds: 0", "min_seconds: 600")
    )
    items_import(project=project, data=data_file("task_files", "before_reading.jsonl").read_bytes(), filename="i.jsonl")
    url = join(client, project)
    fields = fields_of(client.get(url).content.decode())
    payload = Response.objects.get(pk=fields["response"]).item.payload
    client.post(url, {**fields, **answers_for(payload, "guess")})
    fields = fields_of(client.get(url).content.decode())
    first = signing.dumps([int(fields["response"]), "read", time.time() - 100], salt=flow.SHOWN_SALT)
    refused = client.post(url, {**fields, "shown": first, **answers_for(payload, "read")})
    assert refused.status_code == 400
    html = refused.content.decode()
    assert "Please take at least 600 seconds on this page before you continue." in html
    assert fields_of(html)["shown"] == first  # the wait still counts from the first showing
    wait = float(re.search(r'data-wait-seconds="([0-9.]+)"', html).group(1))
    assert 495 <= wait <= 500
    assert re.search(r'<input type="radio" name="sure" value="4"[^>]* checked', html)  # the answer given stays
    assert "read" not in Response.objects.get(pk=fields["response"]).answers
