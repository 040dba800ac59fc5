"""SCDE, the whole study through an invite link: the researcher imports the labeled dev passages
and the unlabeled test passages, makes one batch of all five with two annotators each; two
people fill the blanks in their own browsers (the page refuses nothing they do: each candidate
used once); the researcher runs quality, reads the report (BA, PA and DE, with the human time
on task) and downloads every dataset in every format, the workers' answers in SCDE's released
format among them."""

from __future__ import annotations

import pytest

from annotation.models import Assignment
from tests.conftest import data_file

from . import annotators
from .checks import NO_ADJUDICATION, NO_CHECKS, NO_STUDY, every_export_parses, fits_the_window, report_reads_well

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_scde_through_an_invite_link(researcher, person, no_failed_requests):
    # the paper's 62.4 s a passage (a tenth of the human mean) would drop a browser that fills a
    # passage in a second: the researcher's pilot sets its own minimum
    project = researcher.create_project(name="SCDE pilot", kind="scde", language="en", settings={"min_seconds": 0})
    assert "Imported 3 new items" in researcher.import_file(project, data_file("scde", "made_up.dev.json"))
    assert "Imported 2 new items" in researcher.import_file(project, data_file("scde", "made_up.test.json"))
    batch = researcher.create_batch(project, name="pilot", items_per_unit=5, annotators_per_item=2)
    link = researcher.invite_link(batch)

    people = [annotators.Annotator(person(), annotators.scde, who) for who in (0, 1)]
    for someone in people:
        someone.start_from_invite(link)
    for someone in people:
        someone.work()
    assert Assignment.objects.filter(unit__batch=batch, status=Assignment.Status.SUBMITTED).count() == 2

    report = researcher.run_quality(project)
    report_reads_well(report)
    fits_the_window(researcher.page)

    assert "Annotators kept\t1 of 2" in report  # the second misses the gold blanks: BA below the minimum
    downloads = researcher.download_exports(project)
    every_export_parses(downloads, empty=NO_ADJUDICATION | NO_STUDY | NO_CHECKS)
    assert len(downloads["raw.csv"].rows) == 10
    released = downloads["worker_answers.jsonl"].rows
    assert len(released) == 5 and all(len(row["worker_answer_sequences"]) == 1 for row in released)  # the kept one
    assert researcher.scorers(project) == []  # SCDE's measures (BA, PA, DE) are in the report
    no_failed_requests()
