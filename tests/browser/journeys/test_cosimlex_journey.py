"""CoSimLex, the whole study through an invite link, in Croatian: the researcher pilots three
pairs of the release file (so the release's scores are the items' reference), with two ratings
per context; since nobody rates both contexts of a pair, four people share the link. Then
quality, the report, every export (the SemEval kit's data and gold among them) and both of the
kind's scorers: the paper's Table 1 for the release file and the project, and the SemEval-2020
scorer fed the project's own kit gold export (a perfect "system")."""

from __future__ import annotations

import pytest

from annotation.models import Assignment
from tests.conftest import data_file

from . import annotators
from .checks import NO_ADJUDICATION, NO_CHECKS, NO_STUDY, every_export_parses, fits_the_window, report_reads_well

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def pilot_file(tmp_path, pairs: int, lang: str = "hr"):
    """The release file's header and first pairs, byte for byte (a researcher's pilot)."""
    lines = data_file("cosimlex", f"cosimlex_{lang}.sample.csv").read_bytes().splitlines(keepends=True)
    path = tmp_path / f"cosimlex_{lang}.pilot.csv"
    path.write_bytes(b"".join(lines[: pairs + 1]))
    return path


def test_cosimlex_through_an_invite_link_in_croatian(researcher, person, tmp_path, no_failed_requests):
    project = researcher.create_project(name="CoSimLex pilot (hr)", kind="cosimlex", language="hr")
    release = pilot_file(tmp_path, pairs=3)
    assert "Imported 6 new items" in researcher.import_file(project, release)
    batch = researcher.create_batch(project, name="pilot", items_per_unit=3, annotators_per_item=2)
    link = researcher.invite_link(batch)

    people = [annotators.Annotator(person(locale="hr-HR"), annotators.cosimlex, who) for who in range(4)]
    for someone in people:
        someone.start_from_invite(link)
        assert someone.page.locator("html").get_attribute("lang") == "hr"
    for someone in people:
        someone.work()
    assert Assignment.objects.filter(unit__batch=batch, status=Assignment.Status.SUBMITTED).count() == 4

    report = researcher.run_quality(project)
    report_reads_well(report)
    fits_the_window(researcher.page)

    downloads = researcher.download_exports(project)
    every_export_parses(downloads, empty=NO_ADJUDICATION | NO_STUDY | NO_CHECKS)
    assert len(downloads["raw.csv"].rows) == 12
    assert len(downloads["kit_data.tsv"].rows) == len(downloads["kit_gold.tsv"].rows) == 3

    assert set(researcher.scorers(project)) == {"table1", "semeval2020"}
    table = researcher.score(project, "table1", files={"release": (release.name, release.read_bytes())})
    assert [row["n_pairs"] for row in table.values()] == [3, 3]  # the release file, then the project
    gold = researcher.download_bytes(project, "kit_gold", "tsv")
    scores = researcher.score(project, "semeval2020", files={"subtask2": ("results_subtask2_hr.tsv", gold)})
    # the kit's gold holds the scores rounded as the kit prints them: all but exactly 1
    assert scores["subtask2"]["spearman"] == pytest.approx(1.0)
    assert scores["subtask2"]["harmonic_mean"] == pytest.approx(1.0, abs=1e-4)
    no_failed_requests()
