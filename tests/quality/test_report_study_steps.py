"""Issue 27, the study steps in the quality report: a "Study steps" section per batch with a
study file (who saw consent, agreed, declined; passed the comprehension check on the first try,
a later one, or failed; mean attempts; exit survey answered; a capped table of people) and the
headline's participation lines, read from the participations when the page is shown."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.naming import annotator_name
from quality.report import study_steps
from quality.services.runs import quality_run_create

from .test_participants_export import RIGHT, WRONG, join, study_people, take_part

pytestmark = pytest.mark.django_db


def report(client, project) -> str:
    response = client.get(reverse("quality:report", args=[project.pk]))
    assert response.status_code == 200
    return response.content.decode()


def counts(html: str, batch_id: int) -> dict[str, str]:
    table = html.split(f'class="figures study-counts" data-batch="{batch_id}"')[1].split("</table>")[0]
    return dict(re.findall(r'data-count="(\w+)">([^<]*)</td>', table))


def name_of(annotator) -> str:
    return annotator_name(annotator.pk, annotator.external_id)


def people_rows(html: str, batch_id: int) -> list[list[str]]:
    table = html.split(f'class="study-people" data-batch="{batch_id}"')[1].split("</tbody>")[0].split("<tbody>")[1]
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for row in table.split("<tr>")[1:]]
    # a missing value is its dash with the reason as its title: "—" here
    return [[re.sub(r"<[^>]+>", "", re.sub(r"<small>.*?</small>", "", c)).strip() for c in row] for row in cells]


def test_the_section_counts_each_step_and_lists_the_people(staff_client, annotated):
    project = annotated.project
    html = report(staff_client, project)
    assert 'id="study-steps"' not in html  # no batch has a study file
    study = study_people(project)
    html = report(staff_client, project)  # before any quality run: the steps are shown all the same
    assert "No finished quality run yet." in html and 'id="study-steps"' in html
    assert counts(html, study.batch.pk) == {
        "reached": "6",
        "consent": "4 / 1 / 1",  # agreed / declined / not answered (the silent one)
        "check_reached": "4",
        "check": "1 / 1 / 1 / 1",  # first try / later try / failed / one wrong try so far
        "mean_attempts": "1.50",  # (1 + 2 + 2 + 1) / 4
        "ended": "2",  # issue 36: the declined and the failed one, never rejected, not annotators
        "took_part": "2",
        "exit": "2",
    }
    rows = {row[0]: row[1:] for row in people_rows(html, study.batch.pk)}
    people = study.people
    assert rows[name_of(people["pending"])] == ["invite", "Agreed", "1", "Not passed yet", "no", "—"]
    assert rows[name_of(people["second"])] == ["invite", "Agreed", "2", "Passed", "yes", "—"]
    assert rows[name_of(people["failed"])] == [
        "invite",
        "Agreed",
        "2",
        "Failed every attempt",
        "no",
        "comprehension check failed",
    ]
    assert rows[name_of(people["declined"])] == ["invite", "Declined", "—", "not reached", "no", "consent declined"]
    assert rows[name_of(people["silent"])] == ["invite", "Not answered", "—", "not reached", "no", "—"]
    assert reverse("quality:export", args=[project.pk, "participants", "csv"]) in html


def test_the_headline_says_who_took_part_declined_or_failed(staff_client, annotated):
    project = annotated.project
    quality_run_create(project=project)
    assert "Study steps: reached" not in report(staff_client, project)
    study_people(project)
    html = report(staff_client, project)
    headline = html.split('id="headline"')[1].split("</table>")[0]
    assert re.search(r"Study steps: reached / took part</th><td class=\"num\">6 / 2<", headline)
    assert re.search(r"declined consent / failed the comprehension check</th><td class=\"num\">1 / 1<", headline)
    run = project.quality_runs.get()
    download = staff_client.get(reverse("quality:report_download", args=[project.pk, run.pk])).content.decode()
    assert 'id="study-steps"' in download and "6 / 2" in download.split('id="headline"')[1]


def test_the_people_table_is_capped_and_the_queries_do_not_grow_with_people(staff_client, annotated, monkeypatch):
    project = annotated.project
    study = study_people(project)
    monkeypatch.setattr(study_steps, "PEOPLE_SHOWN", 4)
    with CaptureQueriesContext(connection) as few:
        html = report(staff_client, project)
    assert len(people_rows(html, study.batch.pk)) == 4 and "The first 4 of 6 people" in html
    for _ in range(5):
        take_part(join(study.batch), study.batch, consent=True, attempts=[WRONG, RIGHT])
    with CaptureQueriesContext(connection) as more:
        html = report(staff_client, project)
    assert counts(html, study.batch.pk)["check"] == "1 / 6 / 1 / 1" and "The first 4 of 11 people" in html
    assert len(more.captured_queries) == len(few.captured_queries)
