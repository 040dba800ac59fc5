"""Issue 27: check items (attention and gold items) mixed into the work at the study's rate, never
twice to one person and never in the data; live quality stops a person whose check accuracy falls
below the study's threshold after enough checks (recorded, shown, and liftable by a researcher);
the quality run drops them with the stop's reason."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from annotation.kinds import check_passed, check_problems, get_kind, kind_of
from annotation.models import Assignment, Item, Participation, Response
from annotation.selectors.responses import annotation_rows
from annotation.services.batches import BatchError, batch_create, invite_link_create
from annotation.services.checks import CheckFileError, CheckLine, check_lines, items_mark_checks
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from annotation.services.responses import next_page_slug
from annotation.services.study import study_lift_stop
from quality.exports.checks import checks
from quality.selectors import latest_run
from quality.services.runs import quality_run_create
from tests.annotation.test_kind_contract import KIND_SAMPLES, recam_answers
from tests.conftest import data_file
from tests.factories import TeamFactory

from .test_study_flow import answer_items, study_batch

pytestmark = pytest.mark.django_db
HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')
LIVE = "attention:\n  rate: 0.25\n  stop_below: 0.5\n  after: 2\n"


def hidden(html: str) -> dict[str, str]:
    return {n: unescape(v) for n, v in HIDDEN.findall(html) if n != "csrfmiddlewaretoken"}


@pytest.fixture
def project():
    project = project_create(name="checks", kind="recam", team=TeamFactory())
    items_import(project=project, data=data_file("recam", "Task_1_dev.sample.jsonl").read_bytes(), filename="r.jsonl")
    labelled = list(project.items.filter(payload__has_key="label").order_by("id"))
    lines = [CheckLine(n, i.external_id, {"post_choice": i.payload["label"]}) for n, i in enumerate(labelled[-4:], 1)]
    items_mark_checks(project=project, lines=lines)
    return project


def batch_of(project, study: str, *, annotators: int = 2, items: int = 9):
    ordinary = list(Item.objects.data().filter(project=project).order_by("id")[:items])
    return batch_create(
        project=project, name="b", items=ordinary, items_per_unit=3, assignments_per_unit=annotators, study=study
    )


def join(client, batch) -> str:
    return client.post(reverse("surveys:invite", args=[invite_link_create(batch=batch).token]))["Location"]


def answer_item(client, url: str, *, right: bool) -> Response:
    """Answer the current item's pages (wrong on the answer after reading when not `right`)."""
    fields = hidden(client.get(url).content.decode())
    response = Response.objects.select_related("item").get(pk=fields["response"])
    while fields.get("response") == str(response.pk):
        answer = recam_answers(response.item.payload, fields["page"])
        if fields["page"] == "post" and not right:
            answer = {"choice": str((int(response.item.payload["label"]) + 1) % 5)}
        client.post(url, {**fields, **answer})
        fields = hidden(client.get(url).content.decode())
    response.refresh_from_db()
    return response


def test_checks_are_mixed_in_at_the_rate_never_first_never_twice_and_never_in_the_data(client, project):
    batch = batch_of(project, "attention:\n  rate: 0.25\n", annotators=1, items=6)
    url = join(client, batch)
    client.get(url)
    first = Assignment.objects.get()
    responses = list(first.responses.select_related("item").order_by("position"))
    checks = [r for r in responses if r.item.check_answer is not None]
    assert len(responses) == 4 == first.item_count and len(checks) == 1  # 3 items and 0.25 of 4
    assert responses[0].item.check_answer is None  # the work comes first
    for _ in range(4):
        answer_item(client, url, right=True)
    client.get(url)
    second = Assignment.objects.exclude(pk=first.pk).get()
    seconds_checks = {r.item_id for r in second.responses.all() if r.item.check_answer is not None}
    assert len(seconds_checks) == 1 and not seconds_checks & {c.item_id for c in checks}
    assert Response.objects.get(pk=checks[0].pk).check_passed is True
    data_items = {row["item_id"] for row in annotation_rows(project)}
    assert data_items and not data_items & set(
        Item.objects.filter(check_answer__isnull=False).values_list("pk", flat=True)
    )


def test_a_person_below_the_threshold_after_enough_checks_is_stopped_and_a_researcher_can_lift_it(client, project):
    batch = batch_of(project, LIVE)
    url = join(client, batch)
    for _ in range(12):
        html = client.get(url).content.decode()
        if 'id="study-ended"' in html:
            break
        fields = hidden(html)
        item = Response.objects.get(pk=fields["response"]).item
        answer_item(client, url, right=item.check_answer is None)  # every check answered wrong
    assert 'data-step="stopped"' in html and "Your part in this study has ended here" in html
    participation = Participation.objects.get()
    assert participation.stopped_at is not None
    assert (
        participation.stop_reason == "live quality: 0 of 2 check answers right (0%), below 50% after at least 2 checks"
    )
    assert not Assignment.objects.filter(status=Assignment.Status.ACTIVE).exists()
    # the quality run drops the person with the stop's reason and reports the checks
    quality_run_create(project=project)
    run = latest_run(project)
    dropped = run.annotator_decisions.get(annotator=participation.annotator)
    assert not dropped.keep and participation.stop_reason in dropped.reasons
    assert run.report["checks"]["stopped"] == 1 and run.report["checks"]["annotators"][0]["checks"] == 2
    # lifted: the person works again, and the next run keeps them
    study_lift_stop(participation=participation)
    assert 'name="response"' in client.get(url).content.decode()
    quality_run_create(project=project)
    assert (
        participation.stop_reason
        not in latest_run(project).annotator_decisions.get(annotator=participation.annotator).reasons
    )


def test_right_answers_keep_the_person_working(client, project):
    batch = batch_of(project, LIVE)
    url = join(client, batch)
    for _ in range(8):
        if 'name="response"' not in client.get(url).content.decode():
            break
        answer_item(client, url, right=True)
    assert not Participation.objects.filter(stopped_at__isnull=False).exists()
    assert Response.objects.filter(check_passed=True).count() == 2


def test_a_check_item_is_not_handed_out_as_work(project):
    check = Item.objects.filter(project=project, check_answer__isnull=False).first()
    with pytest.raises(BatchError, match="check items are mixed into the work"):
        batch_create(project=project, name="b", items=[check])
    all_items = batch_create(project=project, name="all")
    assert not all_items.units.filter(items__check_answer__isnull=False).exists()


def test_marking_is_all_or_nothing_and_names_each_line(project):
    batch_of(project, "")
    handed_out = Item.objects.data().filter(project=project).order_by("id").first()
    ordinary = Item.objects.data().filter(project=project).order_by("id").last()
    lines = check_lines(
        "\n".join(
            [
                f'{{"external_id": "{ordinary.external_id}", "expect": {{"post_choice": 1}}}}',
                '{"external_id": "nope", "expect": {"post_choice": 1}}',
                f'{{"external_id": "{ordinary.external_id}", "expect": {{"colour": 1}}}}',
                f'{{"external_id": "{handed_out.external_id}", "expect": {{"post_choice": 1}}}}',
            ]
        )
    )
    with pytest.raises(CheckFileError) as caught:
        items_mark_checks(project=project, lines=lines)
    problems = caught.value.problems
    assert problems[0] == "line 2 (nope): no such item in the project"
    assert problems[1].startswith(f"line 3 ({ordinary.external_id}): 'colour' is not a label field")
    assert (
        problems[2]
        == f"line 4 ({handed_out.external_id}): a batch hands this item out as work; a check item must not be in a batch"
    )
    assert Item.objects.get(pk=ordinary.pk).check_answer is None  # nothing was marked
    with pytest.raises(CheckFileError, match="line 1: not JSON"):
        check_lines("{oops\n")


def test_expected_answers_compare_as_values_lists_and_ranges():
    kind = get_kind("cosimlex")
    field = kind.label_fields()[0].name
    assert check_problems(kind, {field: {"min": 0, "max": 2}}) == []
    assert check_problems(kind, {field: {"low": 0}})[0].startswith(f"{field}: a range is")
    assert check_problems(kind, {field: []}) == [f"{field}: a list of accepted values may not be empty"]
    recam = get_kind("recam")
    payload = {
        "article": "a b c",
        "question": "q @placeholder",
        "option_0": "x",
        "option_1": "y",
        "option_2": "z",
        "option_3": "u",
        "option_4": "v",
        "label": 2,
    }
    answers = {
        page: recam_answers(payload, page)
        for page in ("pre", "post", "second", "support_span", "relation", "summary_span", "difficulty")
    }
    assert check_passed(recam, payload, answers, {"post_choice": 2})
    assert check_passed(recam, payload, answers, {"post_choice": "2"})  # a file's text and a stored number
    assert check_passed(recam, payload, answers, {"post_choice": [0, 2]})
    assert not check_passed(recam, payload, answers, {"post_choice": [0, 1]})
    assert check_passed(recam, payload, answers, {"post_choice": {"min": 2}})
    assert not check_passed(recam, payload, {}, {"post_choice": 2})  # unanswered fails


@pytest.mark.parametrize("slug", ["recam", "cosimlex", "gcrc", "scde", "task_file"])
def test_every_kind_mixes_in_and_judges_a_check_item(client, slug):
    """The same check machinery for the four built-in kinds and a task-file kind: the expected
    answer is written in the kind's label fields; answering as expected passes."""
    batch = study_batch(slug, items=2, annotators=1, study="attention:\n  rate: 0.5\n")
    project = batch.project
    kind = kind_of(project)
    handed = set(batch.units.values_list("items", flat=True))
    groups = set(Item.objects.filter(pk__in=handed).values_list("group_key", flat=True)) - {""}
    check = next(
        i for i in project.items.order_by("id") if i.pk not in handed and (not i.group_key or i.group_key not in groups)
    )
    row = kind.annotation_row(check.payload, answered_like_a_person(slug, kind, check.payload))
    expect = {f.name: f.value(row) for f in kind.label_fields() if f.value(row) is not None}
    items_mark_checks(project=project, lines=[CheckLine(1, check.external_id, expect)])
    url = join(client, batch)
    answer_items(client, url, slug)
    judged = Response.objects.get(item=check)
    assert judged.completed_at is not None and judged.check_passed is True
    assert check.pk not in {r["item_id"] for r in annotation_rows(project)}


def answered_like_a_person(slug, kind, payload) -> dict:
    _, answer_page = KIND_SAMPLES[slug]
    answers: dict = {}
    while (page_slug := next_page_slug(kind, payload, answers)) is not None:
        page = kind.page(payload, page_slug, answers)
        form = page.form_class(answer_page(payload, page_slug), payload=payload, answers=answers)
        assert form.is_valid(), form.errors
        answers[page_slug] = form.answer()
    return answers


def test_training_items_come_first_with_feedback_and_count_for_nothing(client, project):
    checks = list(Item.objects.filter(project=project, check_answer__isnull=False).order_by("id"))
    practice = checks[:2]
    items_mark_checks(
        project=project,
        lines=[
            CheckLine(n, i.external_id, i.check_answer, explain=f"Option {i.payload['label']} fits: see the passage.")
            for n, i in enumerate(practice, 1)
        ],
    )
    study = (
        f"training:\n  items: [{practice[0].external_id}, {practice[1].external_id}]\n"
        "attention:\n  rate: 0.25\n  stop_below: 0.9\n  after: 1\n"
    )
    batch = batch_of(project, study, annotators=1)
    url = join(client, batch)
    html = client.get(url).content.decode()
    assert 'id="practice-note"' in html
    first = Assignment.objects.get()
    ordered = list(first.responses.order_by("position"))
    assert [r.item_id for r in ordered[:2]] == [p.pk for p in practice] and all(r.training for r in ordered[:2])
    assert not any(r.training for r in ordered[2:])
    # answer the first practice item wrong: the last page's save answers with the feedback
    fields = hidden(html)
    response = Response.objects.select_related("item").get(pk=fields["response"])
    last = None
    while fields.get("response") == str(response.pk):
        answer = recam_answers(response.item.payload, fields["page"])
        if fields["page"] == "post":
            answer = {"choice": str((int(response.item.payload["label"]) + 1) % 5)}
        last = client.post(url, {**fields, **answer}, HTTP_X_PAGE_SWAP="1")
        fields = hidden(last.content.decode())
    feedback = last.content.decode()
    assert 'id="training-feedback" data-right="no"' in feedback
    assert f"Option {response.item.payload['label']} fits: see the passage." in feedback
    assert 'id="training-continue"' in feedback
    # a wrong practice answer stops nobody (stop_below 0.9 after 1 check would) and is in no figure
    assert not Participation.objects.filter(stopped_at__isnull=False).exists()
    assert Response.objects.get(pk=response.pk).check_passed is False
    from quality.selectors import check_results

    assert check_results(project).empty
    # the second practice item is next, then the work
    assert hidden(client.get(url).content.decode())["response"] == str(ordered[1].pk)


def test_training_items_must_be_check_items(project):
    ordinary = Item.objects.data().filter(project=project).order_by("-id").first()
    with pytest.raises(BatchError, match="training.items: not check items of the project"):
        batch_of(project, f"training:\n  items: [{ordinary.external_id}]\n")


def test_the_checks_export_says_who_saw_which_check_what_was_expected_and_given(client, project):
    batch = batch_of(project, LIVE)
    url = join(client, batch)
    for _ in range(12):
        html = client.get(url).content.decode()
        if 'id="study-ended"' in html:
            break
        item = Response.objects.get(pk=hidden(html)["response"]).item
        answer_item(client, url, right=item.check_answer is None)
    rows = list(checks(project).rows())
    assert [r["role"] for r in rows] == ["check", "check"] and all(r["passed"] is False for r in rows)
    first = rows[0]
    assert first["annotator"] == Participation.objects.get().annotator.external_id and first["batch"] == "b"
    expected = Item.objects.get(pk=first["item_id"]).check_answer
    assert first["expected"] == expected and first["given"]["post_choice"] != expected["post_choice"]
    assert first["completed_at"] and first["seconds"] is not None
