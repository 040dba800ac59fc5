"""SCDE through the platform: import through the service (atomic, errors naming passage and
field), the annotator page through the test client (the server refuses reuse and empty blanks,
stores the choices, the difficulty and both times), then a quality run and the exports.
Runs on SQLite and, with DATABASE_URL, on PostgreSQL."""

from __future__ import annotations

import csv
import io
import json
import time

import pytest
from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils import translation

from annotation.kinds import ImportProblem
from annotation.models import Item, Response
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from quality.exports import export_open
from quality.services.runs import quality_run_create
from surveys import flow
from tests.conftest import data_file
from tests.factories import ProjectFactory
from tests.surveys.test_recam_flow import form_fields, join

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _reset_language():
    """The annotator views switch to the project's language; later tests expect the default."""
    yield
    translation.activate(settings.LANGUAGE_CODE)


def scde_project(**kwargs):
    return ProjectFactory(kind="scde", name="SCDE", **kwargs)


def import_file(project, name: str):
    return items_import(project=project, data=data_file("scde", *name.split("/")).read_bytes(), filename=name)


def test_good_files_import_labeled_and_unlabeled_passages():
    project = scde_project()
    assert import_file(project, "made_up.dev.json").created == 3
    assert import_file(project, "made_up.test.json").created == 2
    assert import_file(project, "made_up.dev.json").duplicates == 3  # a re-import adds nothing
    items = {item.external_id: item.payload for item in Item.objects.filter(project=project)}
    assert sorted(items) == ["101", "102", "madeup-dev-1", "madeup-dev-2", "madeup-dev-3"]
    assert items["madeup-dev-1"]["gold"] == {"1": 0, "2": 1, "3": 3, "4": 4, "5": 6}
    assert items["madeup-dev-1"]["distractors"] == [2, 5]
    assert "gold" not in items["101"] and items["101"]["eid"] == 101


@pytest.mark.parametrize(
    ("name", "field"),
    [
        ("marker_missing.json", "passage"),
        ("marker_twice.json", "passage"),
        ("answer_outside_candidates.json", "answer_sequence"),
        ("same_answer_twice.json", "answer_sequence"),
        ("candidate_count_disagrees.json", "candidate_length"),
        ("blank_count_disagrees.json", "number_of_blanks"),
    ],
)
def test_a_bad_passage_imports_nothing_and_is_named_with_its_field(name, field):
    project = scde_project()
    import_file(project, "made_up.test.json")
    with pytest.raises(ImportProblem) as caught:
        import_file(project, f"bad/{name}")
    assert str(caught.value).startswith(f"passage 2 (counting from 1), field '{field}': ")
    # passage 1 of the bad file is good, yet nothing of the file was written
    assert sorted(Item.objects.filter(project=project).values_list("external_id", flat=True)) == ["101", "102"]


def invite_to(project):
    batch = batch_create(project=project, name="b", items_per_unit=3, assignments_per_unit=2)
    return invite_link_create(batch=batch)


def page_post(fields: dict, picks: list, **extra) -> dict:
    return {
        **fields,
        **{f"blank_{n}": "" if p is None else str(p) for n, p in enumerate(picks, 1)},
        "difficulty": "Moderate",
        **extra,
    }


def shown_before(response_id: int, seconds: float) -> str:
    """The page's signed "shown" note as if it had been rendered `seconds` ago."""
    return signing.dumps([response_id, "passage", time.time() - seconds], salt=flow.SHOWN_SALT)


def answer_unit(client, invite, choices_of, visible_ms=None, shown_ago=None):
    """Join and answer every passage of one unit with `choices_of(payload)`."""
    url = join(client, invite)
    for _ in range(3):
        html = client.get(url).content.decode()
        fields = form_fields(html)
        payload = Response.objects.get(pk=fields["response"]).item.payload
        extra = {} if visible_ms is None else {"visible_ms": str(visible_ms)}
        if shown_ago is not None:
            extra["shown"] = shown_before(int(fields["response"]), shown_ago)
        assert client.post(url, page_post(fields, choices_of(payload), **extra)).status_code == 302
    return url


def test_the_page_shows_numbered_blanks_and_the_server_refuses_reuse_and_empty_blanks(client):
    project = scde_project()
    import_file(project, "made_up.dev.json")
    url = join(client, invite_to(project))
    html = client.get(url).content.decode()
    fields = form_fields(html)
    response = Response.objects.select_related("item").get(pk=fields["response"])
    blanks = response.item.payload["blanks"]
    assert html.count('<select name="blank_') == len(blanks) and "surveys/scde.js" in html
    assert 'data-candidate="0"' in html and '<strong class="letter">A.</strong>' in html
    assert html.count('name="difficulty"') == 5

    reused = client.post(url, page_post(fields, [0, 0] + [None] * (len(blanks) - 2)))
    assert reused.status_code == 400
    text = reused.content.decode()
    assert "Sentence A is already used for blank 1" in text and "Choose a sentence for blank 3." in text
    response.refresh_from_db()
    assert response.answers == {}

    gold = response.item.payload["gold"]
    picks = [gold[str(b)] for b in blanks]
    assert client.post(url, page_post(fields, picks, visible_ms="64250")).status_code == 302
    response.refresh_from_db()
    assert response.answers == {"passage": {"choices": gold, "difficulty": "Moderate", "visible_seconds": 64.25}}
    assert response.timings["passage"]["seconds"] is not None and response.completed_at is not None


def test_quality_run_and_exports_carry_the_scores_and_the_released_answers(client, django_user_model):
    project = scde_project()
    import_file(project, "made_up.dev.json")
    invite = invite_to(project)

    def gold(payload):
        return [payload["gold"][str(b)] for b in payload["blanks"]]

    def first_candidates(payload):  # 0, 1, 2, ...: P1 3/5 right, P2 0/3, P3 2/3
        return list(range(len(payload["blanks"])))

    answer_unit(client, invite, gold, visible_ms=300_000, shown_ago=400)
    client.logout()
    answer_unit(client, invite, first_candidates)
    run = quality_run_create(project=project)
    assert run.status == "done", run.error
    assert run.report["summary"]["paper_human_ba"] == 0.871
    # the first annotator: 400 s on the server's clock, 300 s visible; the second: no time at
    # all and blank accuracy (0.4 + 0 + 2/3) / 3: dropped for both
    summary = run.report["summary"]
    assert (summary["responses_kept"], summary["dropped_too_fast"], summary["dropped_low_ba"]) == (3, 1, 1)

    raw = read_csv(export_open(project=project, dataset="raw", fmt="csv"))
    assert {"ba", "pa", "de", "visible_seconds", "difficulty", "answer_sequence", "seconds"} <= set(raw[0])
    by_answer = {(r["external_id"], r["visible_seconds"]): r for r in raw}
    right = by_answer[("madeup-dev-1", "300.0")]
    assert (right["ba"], right["pa"], right["de"]) == ("1.0", "True", "0")
    assert json.loads(right["answer_sequence"]) == [[1, 0], [2, 1], [3, 3], [4, 4], [5, 6]]
    guessed = by_answer[("madeup-dev-1", "")]
    # 0 1 2 3 4 against 0 1 3 4 6: two right, candidate 2 a distractor
    assert (guessed["ba"], guessed["pa"], guessed["de"]) == ("0.4", "False", "1")

    clean = read_csv(export_open(project=project, dataset="clean", fmt="csv"))
    assert len(clean) == 3 and {r["passage_seconds"] for r in clean} <= {"300.0"}

    lines = b"".join(export_open(project=project, dataset="worker_answers", fmt="jsonl").chunks).decode()
    records = [json.loads(line) for line in lines.splitlines()]
    assert [r["eid"] for r in records] == ["madeup-dev-1", "madeup-dev-2", "madeup-dev-3"]
    assert [len(r["worker_answer_sequences"]) for r in records] == [1, 1, 1]
    assert records[1]["worker_answer_sequences"][0]["answer_sequence"] == [[1, 1], [2, 2], [3, 4]]
    items = read_csv(export_open(project=project, dataset="items", fmt="csv"))
    assert items[0]["human_ba"] == "1.0" and items[0]["human_n_responses"] == "2"

    # the report page lists the study's figures beside the paper's human row
    client.force_login(django_user_model.objects.create_superuser("boss", password="x"))
    report = client.get(reverse("quality:report", args=[project.pk])).content.decode()
    assert "BA: blank accuracy" in report and "PA: passage accuracy" in report and "DE: distractor error" in report
    assert 'BA of the paper&#x27;s humans</th><td class="num">87.1 %' in report
    assert "38.2 %" in report and "madeup-dev-1" in report


def read_csv(export) -> list[dict]:
    return list(csv.DictReader(io.StringIO(b"".join(export.chunks).decode())))


@pytest.mark.parametrize(
    ("language", "title", "refusal"),
    [
        ("hr", "Popunite praznine", "Rečenica A već je upotrijebljena za prazninu 1"),
        ("zh-hans", "填空", "句子 A 已用于第 1 空"),
    ],
)
def test_the_page_and_its_refusals_are_in_the_projects_language(client, language, title, refusal):
    project = scde_project(language=language)
    import_file(project, "made_up.dev.json")
    url = join(client, invite_to(project))
    html = client.get(url).content.decode()
    assert title in html and "Fill the blanks" not in html and "Sentences to choose from" not in html
    refused = client.post(url, page_post(form_fields(html), [0, 0, 1, 2, 3])).content.decode()
    assert refusal in refused and "already used" not in refused
