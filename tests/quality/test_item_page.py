"""The researcher's item page: one item's annotations side by side per field (any kind),
disagreements marked, each annotation's verdict in the latest quality run, links to the
annotators; accepting or rejecting one annotation, which the next quality run respects and the
exports show. Only the project's team sees it."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotation.models import Response
from quality.exports.datasets import EXACT, project_datasets
from quality.models import ResearcherDecision, ResponseDecision
from quality.services.decisions import DecisionRefused, response_decide
from quality.services.runs import quality_run_create
from tests.annotation.test_adjudication import gcrc_batch, two_annotations
from tests.factories import TeamFactory
from tests.security.conftest import staff_with

pytestmark = pytest.mark.django_db


def page_url(item) -> str:
    return reverse("quality:item", args=[item.project_id, item.pk])


def decide_url(item) -> str:
    return reverse("quality:item-decide", args=[item.project_id, item.pk])


@pytest.fixture
def gcrc(django_capture_on_commit_callbacks):
    project, batch = gcrc_batch()
    first = two_annotations(batch, django_capture_on_commit_callbacks)
    quality_run_create(project=project)
    return first.item


def researcher(item, *perms: str):
    return staff_with("view_qualityrun", "add_researcherdecision", *perms, teams=[item.project.team])


def test_the_annotations_side_by_side_with_the_disagreements_marked(client, gcrc):
    client.force_login(researcher(gcrc))
    html = client.get(page_url(gcrc)).content.decode()
    responses = list(Response.objects.filter(item=gcrc).order_by("assignment__annotator_id"))
    assert re.findall(r'<th data-response="(\d+)">', html) == [str(r.pk) for r in responses]
    assert set(re.findall(r'<tr data-field="(\w+)" class="disagree">', html)) == {"a_error", "d_evidence"}
    assert len(re.findall(r'<tr data-field="\w+">', html)) == 14  # the agreed fields, unmarked
    a_error = re.search(r'<tr data-field="a_error".*?</tr>', html, re.S).group(0)
    assert "(DTL)" in a_error and "(ITQ)" in a_error  # both annotators' error reasons, side by side
    for r in responses:  # each annotator linked to their admin page
        assert reverse("admin:annotation_annotator_change", args=[r.assignment.annotator_id]) in html
    assert html.count("kept") >= 2  # the latest run's verdict on each
    assert "<script>" not in html.split('id="item-text"')[1]  # the item's text escaped


def test_the_page_works_for_a_kind_without_adjudication_of_its_own(client, annotated):
    from tests.security.conftest import staff_with as staff

    run = quality_run_create(project=annotated.project)
    careless = annotated.annotators["careless"]
    response = Response.objects.filter(assignment__annotator=careless, completed_at__isnull=False).first()
    client.force_login(staff("view_qualityrun", teams=[annotated.project.team]))
    html = client.get(page_url(response.item)).content.decode()
    assert re.findall(r'<tr data-field="(\w+)"', html)[:2] == ["post_choice", "pre_choice"]
    verdict = re.search(rf'data-verdict="{response.pk}">(.*?)</td>', html, re.S).group(1)
    reasons = ResponseDecision.objects.get(run=run, response=response).reasons
    assert "dropped" in verdict and reasons and reasons[0] in verdict
    assert "Accept</button>" not in html  # no permission to decide: no buttons


def test_only_the_projects_team_sees_the_item(client, gcrc):
    other_team = staff_with("view_qualityrun", "add_researcherdecision", teams=[TeamFactory()])
    client.force_login(other_team)
    assert client.get(page_url(gcrc)).status_code == 404
    response = Response.objects.filter(item=gcrc).first()
    assert (
        client.post(decide_url(gcrc), {"response": response.pk, "decision": "reject", "note": "x"}).status_code == 404
    )
    assert not ResearcherDecision.objects.exists()


def test_an_annotator_or_a_viewer_cannot_decide(client, gcrc):
    from tests.factories import UserFactory

    response = Response.objects.filter(item=gcrc).first()
    client.force_login(UserFactory(is_staff=False))  # an annotator's or an adjudicator's login
    page = client.get(page_url(gcrc))
    assert page.status_code == 302 and "/login/" in page["Location"]
    assert client.post(decide_url(gcrc), {"response": response.pk, "decision": "accept"}).status_code == 302
    client.force_login(staff_with("view_qualityrun", teams=[gcrc.project.team]))
    assert client.get(page_url(gcrc)).status_code == 200
    assert client.post(decide_url(gcrc), {"response": response.pk, "decision": "accept"}).status_code == 403
    assert not ResearcherDecision.objects.exists()


def test_an_annotation_of_another_item_cannot_be_decided_here(client, gcrc, django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    elsewhere = two_annotations(batch, django_capture_on_commit_callbacks)
    client.force_login(researcher(gcrc))
    assert client.post(decide_url(gcrc), {"response": elsewhere.pk, "decision": "accept"}).status_code == 404
    assert not ResearcherDecision.objects.exists()


def test_the_researcher_rejects_one_annotation_with_a_note(client, gcrc):
    user = researcher(gcrc)
    client.force_login(user)
    response = Response.objects.filter(item=gcrc).first()
    refused = client.post(decide_url(gcrc), {"response": response.pk, "decision": "reject", "note": " "}, follow=True)
    assert "a rejection needs a note" in refused.content.decode() and not ResearcherDecision.objects.exists()
    done = client.post(
        decide_url(gcrc), {"response": response.pk, "decision": "reject", "note": "skimmed"}, follow=True
    )
    decision = ResearcherDecision.objects.get()
    assert (decision.response, decision.decision, decision.note, decision.decided_by) == (
        response,
        "reject",
        "skimmed",
        user,
    )
    shown = re.search(rf'data-researcher="{response.pk}">(.*?)</td>', done.content.decode(), re.S).group(1)
    assert "Rejected" in shown and "skimmed" in shown and user.username in shown


def test_the_next_run_respects_the_researchers_decisions_and_the_exports_show_them(annotated):
    project = annotated.project
    before = quality_run_create(project=project)
    careless = Response.objects.filter(
        assignment__annotator=annotated.annotators["careless"], completed_at__isnull=False
    )
    dropped = careless.first()
    kept = Response.objects.filter(assignment__annotator=annotated.annotators["good_a"]).first()
    assert not ResponseDecision.objects.get(run=before, response=dropped).keep
    assert ResponseDecision.objects.get(run=before, response=kept).keep
    automatic = ResponseDecision.objects.get(run=before, response=dropped).reasons
    by = staff_with(teams=[project.team])
    response_decide(response=dropped, decision="accept", note="the right span, read again", by=by)
    response_decide(response=kept, decision="reject", note="copied the question", by=by)

    after = quality_run_create(project=project)
    accepted = ResponseDecision.objects.get(run=after, response=dropped)
    assert accepted.keep and accepted.reasons == [
        "accepted by researcher: the right span, read again",
        *(f"overruled: {r}" for r in automatic),
    ]
    assert accepted.values["researcher_decision"].startswith(f"accepted by {by.username} on ")
    rejected = ResponseDecision.objects.get(run=after, response=kept)
    assert not rejected.keep and rejected.reasons[0] == "rejected by researcher: copied the question"
    untouched = ResponseDecision.objects.filter(run=after).exclude(response__in=[dropped, kept]).first()
    assert untouched.values["researcher_decision"] is None

    def rows(name):
        builder, _ = project_datasets(project)[name]
        return {row["response_id"]: row for row in builder(project, EXACT).rows()}

    clean = rows("clean")
    assert dropped.pk in clean and kept.pk not in clean
    assert clean[dropped.pk]["researcher_decision"].startswith("accepted by")
    decisions = rows("decisions")
    assert decisions[kept.pk]["reasons"].startswith("rejected by researcher: copied the question")
    assert decisions[dropped.pk]["keep"] is True


def test_deciding_again_replaces_the_decision_and_an_unknown_one_is_refused(gcrc):
    response = Response.objects.filter(item=gcrc).first()
    response_decide(response=response, decision="reject", note="first look", by=None)
    response_decide(response=response, decision="accept", note="", by=None)
    assert ResearcherDecision.objects.get().decision == "accept"
    with pytest.raises(DecisionRefused):
        response_decide(response=response, decision="maybe", note="", by=None)


def test_the_report_and_the_admin_item_list_link_the_item_page(client, gcrc):
    from tests.factories import UserFactory

    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    report = client.get(reverse("quality:report", args=[gcrc.project_id])).content.decode()
    assert f'href="{page_url(gcrc)}"' in report
    items = client.get(reverse("admin:annotation_item_changelist")).content.decode()
    assert f'href="{page_url(gcrc)}"' in items
