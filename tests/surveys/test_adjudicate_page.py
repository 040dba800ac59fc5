"""The adjudicator's page: only the disputed fields, both annotations side by side, Chinese for
a zh-hans project; a decision posted twice (reload, back button) is stored once. The own-value
box shows the field's format and is checked as typed; a value that does not parse is refused with
why, next to the box; one that parses is the adjudicator's decision and resolves the field.
Annotator 1 and 2 are named and numbered by their invite links, whoever finished first. And a
ReCAM project adjudicates the same way, its annotators walking the ordinary pages."""

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


def test_a_value_that_is_not_one_is_refused_with_why_next_to_its_box(client, django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    url = adjudicator_url(client, batch)
    posted = {
        "task": task_id(client.get(url).content.decode()),
        "choice_a_error": "own",
        "own_a_error": "XYZ",
        "choice_d_evidence": "own",
        "own_d_evidence": "2, 99",
    }
    page = client.post(url, posted)
    html = page.content.decode()
    assert page.status_code == 400
    errors = dict(re.findall(r'data-error="(\w+)">([^<]*)<', html))
    assert errors["d_evidence"] == "文章只有第 1 至 3 句，没有第 99 句。"
    assert errors["a_error"].startswith("“XYZ”不是以下代码或名称之一：DTL, TEMP")
    assert 'value="2, 99"' in html  # what was typed stays in the box
    assert AdjudicationTask.objects.get().status == "open" and not FinalLabel.objects.exclude(how="agreed").exists()


def test_the_own_value_box_shows_and_checks_the_fields_format(client, django_capture_on_commit_callbacks):
    from annotation.kinds.gcrc.adjudication import EVIDENCE_PATTERN

    _project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    html = client.get(adjudicator_url(client, batch)).content.decode()
    evidence = re.search(r'<input[^>]*name="own_d_evidence"[^>]*>', html).group(0)
    assert f'pattern="{EVIDENCE_PATTERN}"' in evidence and 'aria-describedby="format_d_evidence"' in evidence
    assert (
        '<p class="adj-format" id="format_d_evidence">您自己的值：句子编号（1 至 3），用逗号分隔，例如 2, 5</p>' in html
    )
    error = re.search(r'<input[^>]*name="own_a_error"[^>]*>', html).group(0)
    assert 'list="suggest_a_error"' in error and '<option value="ITQ">' in html
    assert "此后还有待裁定的条目：0" in html
    assert 'src="/static/surveys/adjudicate.js"' in html


def test_an_own_value_that_parses_is_the_adjudicators_decision(client, django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    url = adjudicator_url(client, batch)
    posted = {
        "task": task_id(client.get(url).content.decode()),
        "choice_a_error": "own",
        "own_a_error": "无中生有",  # ITA by its Chinese name: neither annotator's (DTL, ITQ)
        "choice_d_evidence": "own",
        "own_d_evidence": "１、3",  # full-width digits and the enumeration comma of a Chinese keyboard
    }
    assert client.post(url, posted).status_code == 302
    final = {label.field: (label.how, label.value) for label in FinalLabel.objects.exclude(how="agreed")}
    assert final == {"a_error": ("adjudicated", "ITA"), "d_evidence": ("adjudicated", [0, 2])}
    assert all("own value" in label.reason for label in FinalLabel.objects.exclude(how="agreed"))


def test_annotators_are_numbered_by_their_links_not_by_who_finished_first(client, django_capture_on_commit_callbacks):
    from annotation.selectors.adjudication import adjudication_rows
    from annotation.services.assignments import annotator_join_via_invite, assignment_next
    from tests.factories import save_answer
    from tests.gcrc.test_export import FIRST, SECOND

    _project, batch = gcrc_batch()
    one = invite_link_create(batch=batch, label="annotator-1")
    two = invite_link_create(batch=batch, label="annotator-2")
    people = {link.label: annotator_join_via_invite(invite=link) for link in (two, one)}  # link 2's joins first
    responses = {label: assignment_next(annotator=a, batch=batch).responses.get() for label, a in people.items()}
    with django_capture_on_commit_callbacks(execute=True):
        for label, pages in (("annotator-2", SECOND), ("annotator-1", FIRST)):  # and finishes first
            for page, answer in pages.items():
                save_answer(responses[label].pk, page, answer)
    task = AdjudicationTask.objects.get()
    assert task.first_response == responses["annotator-2"]
    url = adjudicator_url(client, batch)
    for _visit in range(2):  # the same on every visit
        html = client.get(url).content.decode()
        names = re.findall(r'data-annotator="(\d)">([^<]*)<', html)
        assert names == [
            ("1", f"#{people['annotator-1'].pk} · annotator-1"),
            ("2", f"#{people['annotator-2'].pk} · annotator-2"),
        ]
        first_side = re.search(r'data-field="a_error".*?data-side="first">(.*?)</div>', html, re.S).group(1)
        assert "(DTL)" in first_side  # annotator-1's error reason (FIRST's), though they finished second
    posted = {"task": str(task.pk), "choice_a_error": "first", "choice_d_evidence": "second"}
    assert client.post(url, posted).status_code == 302
    assert AdjudicationTask.objects.get().answers == {"a_error": "DTL", "d_evidence": [1, 2]}
    # the adjudications export numbers them as the page does
    (row,) = adjudication_rows(batch.project)
    assert (row["first_annotator"], row["second_annotator"]) == (
        people["annotator-1"].external_id,
        people["annotator-2"].external_id,
    )


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
    assert final == {"relation": ("adjudicated", "summarize"), "difficulty": ("adjudicated", "easy")}
    assert "own value" in FinalLabel.objects.get(field="difficulty").reason


def test_a_default_kinds_own_value_is_checked_against_its_levels(django_capture_on_commit_callbacks):
    from annotation.kinds import get_kind

    recam = get_kind("recam")
    assert recam.adjudication_format({}, "difficulty").suggestions == ("easy", "medium", "difficult")
    assert recam.adjudication_value({}, "difficulty", " medium ") == "medium"
    with pytest.raises(ValueError, match="is not one of: easy, medium, difficult"):
        recam.adjudication_value({}, "difficulty", "hard")
    rating = get_kind("cosimlex")
    assert rating.adjudication_format({}, "rating").pattern
    assert rating.adjudication_value({}, "rating", "4.5") == 4.5
    with pytest.raises(ValueError, match="is not a number"):
        rating.adjudication_value({}, "rating", "high")


def test_a_named_login_adjudicates_and_others_are_refused(client, django_capture_on_commit_callbacks):
    from tests.factories import UserFactory

    _project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    named, other = UserFactory(), UserFactory()
    adjudication_setup_set(batch=batch, users=[named])
    client.force_login(other)
    # as a batch that does not exist (issue 37: SECURITY.md's 404 for what is not one's own)
    missing = client.get(reverse("surveys:adjudicate-login", args=[batch.pk + 1000]))
    refused = client.get(reverse("surveys:adjudicate-login", args=[batch.pk]))
    assert refused.status_code == missing.status_code == 404
    client.force_login(named)
    url = client.get(reverse("surveys:adjudicate-login", args=[batch.pk]))["Location"]
    assert re.findall(r'data-field="([a-z_]+)"', client.get(url).content.decode()) == ["a_error", "d_evidence"]
    assert AdjudicationTask.objects.get().adjudicator.user == named
