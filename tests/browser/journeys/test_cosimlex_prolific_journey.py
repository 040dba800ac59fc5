"""CoSimLex on Prolific (the local Prolific-compatible endpoint), in English: two pairs, each
context rated twice, and nobody rates both contexts of a pair, so four participants take the
study's four places. Each is sent back to Prolific with the completion code; the researcher syncs
(four verified), runs quality, downloads every export and the paper's Table 1 of the project."""

from __future__ import annotations

import re

import pytest

from annotation.models import Assignment

from . import annotators, recruits
from .checks import NO_ADJUDICATION, NO_CHECKS, NO_STUDY, every_export_parses, fits_the_window, report_reads_well
from .test_cosimlex_journey import pilot_file

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PARTICIPANTS = [f"6a1b2c3d4e5f60718293a4b{n}" for n in range(4)]
STUDY = {
    "name": "Rate how similar two words are in a paragraph",
    "description": "Read a paragraph, write two words it brings to mind, then rate two words' similarity.",
    "reward": "1.00",
    "estimated_minutes": 5,
    "devices": ["desktop"],
}


def test_cosimlex_on_prolific(researcher, person, prolific, live_server, tmp_path, no_failed_requests):
    project = researcher.create_project(name="CoSimLex on Prolific", kind="cosimlex", language="en")
    assert "Imported 4 new items" in researcher.import_file(project, pilot_file(tmp_path, pairs=2, lang="en"))
    batch = researcher.create_batch(
        project,
        name="prolific round 1",
        items_per_unit=2,
        annotators_per_item=2,
        channel="prolific",
        channel_settings=STUDY,
    )
    researcher.publish(batch)
    (study,) = set(batch.units.values_list("channel_ref", flat=True))  # one study: a place per unit and annotator

    for who, participant in enumerate(PARTICIPANTS):
        page = person()
        annotator = recruits.prolific_participant(
            page, prolific, study, participant, live_server.url, annotators.cosimlex, who
        )
        annotator.work()
        assert page.url.startswith(prolific.completion_url), page.url
    assert Assignment.objects.filter(unit__batch=batch, status=Assignment.Status.SUBMITTED).count() == 4

    assert re.search(r"4 verified, 0 flagged", researcher.sync(batch))
    report = researcher.run_quality(project)
    report_reads_well(report)
    fits_the_window(researcher.page)

    downloads = researcher.download_exports(project)
    every_export_parses(downloads, empty=NO_ADJUDICATION | NO_STUDY | NO_CHECKS)
    assert len(downloads["raw.csv"].rows) == 8
    table = researcher.score(project, "table1")
    assert [row["n_pairs"] for row in table.values()] == [2]
    no_failed_requests()
