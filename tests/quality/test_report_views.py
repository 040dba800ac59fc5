"""The staff quality report page, its "Run quality now" button, downloads, and the admin."""

from __future__ import annotations

import json
import re

import pytest
from django.http import StreamingHttpResponse
from django.test import Client
from django.urls import reverse

from quality.models import QualityRun
from quality.services.runs import quality_run_create

pytestmark = pytest.mark.django_db


def report_url(project) -> str:
    return reverse("quality:report", args=[project.pk])


def test_staff_only(client, plain_client, annotated):
    project = annotated.project
    for url in (
        report_url(project),
        reverse("quality:export", args=[project.pk, "raw", "csv"]),
    ):
        for anybody in (client, plain_client):
            response = anybody.get(url)
            assert response.status_code == 302 and reverse("admin:login") in response["Location"]
    for anybody in (client, plain_client):
        assert anybody.post(reverse("quality:run", args=[project.pk])).status_code == 302
    assert not QualityRun.objects.exists()


def test_report_shows_run_annotators_items_and_exports(staff_client, annotated):
    project = annotated.project
    quality_run_create(project=project)
    page = staff_client.get(report_url(project))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Run 1 &middot;" in html and "39 of 60" in html and "3 of 4" in html
    assert "accuracy 0.0% on 10 labeled items is not above the minimum of 40%" in html
    assert annotated.annotators["careless"].external_id in html
    assert "Accuracy after reading the passage" in html and "Majority choice" in html and "Gave a second answer" in html
    for dataset in ("raw", "clean", "items"):
        for fmt in ("csv", "jsonl"):
            assert reverse("quality:export", args=[project.pk, dataset, fmt]) in html
    assert 'name="csrfmiddlewaretoken"' in html and reverse("quality:run", args=[project.pk]) in html


def test_report_before_any_run_and_an_older_run(staff_client, annotated):
    project = annotated.project
    html = staff_client.get(report_url(project)).content.decode()
    assert "No finished quality run yet." in html
    first = quality_run_create(project=project)
    quality_run_create(project=project, overrides={"require_spans": False})
    html = staff_client.get(report_url(project), {"run": first.pk}).content.decode()
    assert "Run 1 &middot;" in html and "39 of 60" in html
    assert staff_client.get(report_url(project), {"run": 999999}).status_code == 404


def test_run_now_button_needs_post_and_csrf(staff, annotated):
    project = annotated.project
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(staff)
    assert browser.get(reverse("quality:run", args=[project.pk])).status_code == 405
    assert browser.post(reverse("quality:run", args=[project.pk])).status_code == 403  # no CSRF token
    html = browser.get(report_url(project)).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    response = browser.post(reverse("quality:run", args=[project.pk]), {"csrfmiddlewaretoken": token}, follow=True)
    assert response.status_code == 200
    run = QualityRun.objects.get()
    assert run.created_by == staff
    # inside the test transaction the task waits for commit; the page says it started
    assert "Quality run 1 " in response.content.decode()


def test_run_now_runs_inline(staff_client, annotated, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        staff_client.post(reverse("quality:run", args=[annotated.project.pk]))
    assert QualityRun.objects.get().status == QualityRun.Status.DONE


def test_download_streams(staff_client, annotated):
    quality_run_create(project=annotated.project)
    response = staff_client.get(reverse("quality:export", args=[annotated.project.pk, "clean", "jsonl"]))
    assert isinstance(response, StreamingHttpResponse)
    assert "attachment;" in response["Content-Disposition"] and "-clean-" in response["Content-Disposition"]
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert len(lines) == 39 and all(json.loads(line)["completed"] for line in lines)


def test_download_without_run_or_unknown(staff_client, annotated):
    project = annotated.project
    response = staff_client.get(reverse("quality:export", args=[project.pk, "clean", "csv"]), follow=True)
    assert response.redirect_chain[-1][0] == report_url(project)
    assert "needs a finished quality run" in response.content.decode()
    assert staff_client.get(reverse("quality:export", args=[project.pk, "everything", "csv"])).status_code == 404


def test_admin_pages_are_read_only(admin_client, annotated):
    run = quality_run_create(project=annotated.project)
    changelist = admin_client.get(reverse("admin:quality_qualityrun_changelist"))
    assert changelist.status_code == 200 and "39 of 60 kept" in changelist.content.decode()
    change = admin_client.get(reverse("admin:quality_qualityrun_change", args=[run.pk]))
    html = change.content.decode()
    assert change.status_code == 200
    assert f"{report_url(annotated.project)}?run={run.pk}" in html
    assert "accuracy 0.0% on 10 labeled items" in html  # annotator inline with reasons
    assert admin_client.get(reverse("admin:quality_qualityrun_add")).status_code == 403
    decisions = admin_client.get(reverse("admin:quality_responsedecision_changelist"), {"keep__exact": "0"})
    assert decisions.status_code == 200 and "rated Easy but answered wrongly" in decisions.content.decode()
    assert admin_client.get(reverse("admin:quality_itemresult_changelist")).status_code == 200


def test_a_download_at_once_over_the_limit_sends_back_to_the_report(staff_client, annotated, settings):
    """The report page's download of a dataset larger than a web worker may stream: back to the
    report with a message that says to start an export job, never a file cut off mid-way."""
    project = annotated.project
    url = reverse("quality:export", args=[project.pk, "raw", "csv"])
    settings.EXPORT_STREAM_MAX_RECORDS = 1
    response = staff_client.get(url, follow=True)
    assert response.redirect_chain == [(report_url(project), 302)]
    assert "a download at once may hold" in response.content.decode() and "export job" in response.content.decode()
    settings.EXPORT_STREAM_MAX_RECORDS = 100_000
    assert isinstance(staff_client.get(url), StreamingHttpResponse)


def test_runs_are_numbered_per_project(staff_client, annotated):
    """A project's first run is run 1 whatever other projects ran before, and the report says so."""
    from annotation.models import Project

    project = annotated.project
    other = Project.objects.create(team=project.team, kind=project.kind, name="Another")
    quality_run_create(project=other)
    quality_run_create(project=other)
    first = quality_run_create(project=project)
    second = quality_run_create(project=project)
    assert (first.number, second.number) == (1, 2)
    html = staff_client.get(report_url(project), {"run": first.pk}).content.decode()
    assert "Run 1 &middot;" in html and f'<a href="?run={second.pk}">Run 2</a>' in html
