"""ReCAM, the whole study through invite links: the researcher imports labeled dev items and
unlabeled test items, makes a batch of both with two annotators per item, hands out one link;
two people work through it in their own browsers (one follows the gold, one does not); the
researcher runs quality, reads the report and downloads every dataset in every format (ReCAM's
official measure, accuracy, is in the report: the kind has no scorer of files)."""

from __future__ import annotations

import pytest

from annotation.models import Assignment, Item
from tests.conftest import data_file

from . import annotators
from .checks import NO_ADJUDICATION, NO_CHECKS, NO_STUDY, every_export_parses, fits_the_window, report_reads_well

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_recam_through_an_invite_link(researcher, person, no_failed_requests, tmp_path, monkeypatch):
    project = researcher.create_project(name="ReCAM pilot", kind="recam", language="en")
    assert "Imported 20 new items" in researcher.import_file(project, data_file("recam", "Task_1_dev.sample.jsonl"))
    assert "Imported 5 new items" in researcher.import_file(project, data_file("recam", "Task_1_test.sample.jsonl"))
    labeled = list(Item.objects.filter(project=project, payload__has_key="label").order_by("id")[:3])
    unlabeled = list(Item.objects.filter(project=project).exclude(payload__has_key="label").order_by("id")[:1])
    batch = researcher.create_batch(
        project,
        name="pilot",
        items_per_unit=2,
        annotators_per_item=2,
        external_ids=[item.external_id for item in labeled + unlabeled],
    )
    link = researcher.invite_link(batch)

    people = [annotators.Annotator(person(), annotators.recam, who) for who in (0, 1)]
    for someone in people:
        someone.start_from_invite(link)
    for someone in people:
        someone.work()
    assert Assignment.objects.filter(unit__batch=batch, status=Assignment.Status.SUBMITTED).count() == 4

    report = researcher.run_quality(project)
    report_reads_well(report)
    assert "Annotators kept\t1 of 2" in report  # the one who missed every gold item is dropped
    fits_the_window(researcher.page)

    downloads = researcher.download_exports(project)
    every_export_parses(downloads, empty=NO_ADJUDICATION | NO_STUDY | NO_CHECKS)
    assert len(downloads["raw.csv"].rows) == 8
    assert len(downloads["items.jsonl"].rows) == 25
    clean = downloads["clean.csv"].rows
    assert len(clean) == 4 and len({row["annotator"] for row in clean}) == 1

    assert researcher.scorers(project) == []  # ReCAM's official measure is accuracy, in the report

    # the Hub folder from the report page: the pilot batch is the test split, the other items train
    message = researcher.prepare_hub_folder(project, tmp_path / "hub", license="cc-by-4.0", splits=f"test={batch.pk}")
    assert "Hub folder #" in message, message
    for name in ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE"):
        monkeypatch.setenv(name, "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    import datasets  # test-only; read as the published dataset's user would

    items = datasets.load_dataset(str(tmp_path / "hub"), "items", cache_dir=str(tmp_path / "hf-cache"))
    assert {split: d.num_rows for split, d in items.items()} == {"train": 21, "test": 4}
    annotations = datasets.load_dataset(str(tmp_path / "hub"), "annotations", cache_dir=str(tmp_path / "hf-cache"))
    assert annotations["test"].num_rows == 4 and "annotator" not in annotations["test"].features
    card = (tmp_path / "hub" / "README.md").read_text(encoding="utf-8")
    assert "license: cc-by-4.0" in card and "- multiple-choice" in card
    no_failed_requests()
