"""A GCRC batch whose items come with and without reference labels (the demo's mix: the test set
ships labels, a researcher's own items may not): the quality run, the annotations download and
the released export all work on it (issue 25: the run crashed on a missing reference read back as
NaN, and annotations.csv was an empty 200 with no header row)."""

import csv
import io
import json

import pytest

from annotation.services.assignments import annotator_join_via_invite, assignment_next
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from quality.exports import dataset_formats, export_open, offered_datasets
from quality.models import QualityRun
from quality.services.runs import quality_run_create
from tests.factories import ProjectFactory, save_answer

from .test_export import FIRST, RECORD, SECOND

UNLABELED = {k: v for k, v in RECORD.items() if k not in ("answer", "evidences", "error_type", "reasoning_ability")} | {
    "id": "gcrc_unlabeled_1"
}


@pytest.fixture
def project():
    project = ProjectFactory(kind="gcrc", language="zh-hans")
    data = json.dumps({"data": [RECORD, UNLABELED]}, ensure_ascii=False).encode()
    items_import(project=project, data=data)
    batch = batch_create(project=project, name="b", items_per_unit=2, assignments_per_unit=2)
    invite = invite_link_create(batch=batch)
    for answers in (FIRST, SECOND):
        annotator = annotator_join_via_invite(invite=invite)
        for response in assignment_next(annotator=annotator, batch=batch).responses.select_related("item"):
            if "reference" not in response.item.payload:
                save_answer(response.pk, "answer", {"answer": "B"})
            for page, answer in answers.items():
                save_answer(response.pk, page, answer)
    return project


@pytest.mark.django_db
def test_the_quality_run_scores_the_labeled_item_and_keeps_both(project):
    run = quality_run_create(project=project)
    run.refresh_from_db()
    assert run.status == QualityRun.Status.DONE, run.error
    summary = run.report["summary"]
    assert summary["reference_annotations"] == 2  # the two annotations of the labeled item only
    assert summary["agreement_items"] == 2
    assert summary["responses_kept"] == 4


def parsed(project, dataset: str, fmt: str) -> tuple[list[str], list[dict]]:
    """A download parsed back: its header (the first line's cells) and its rows."""
    text = b"".join(export_open(project=project, dataset=dataset, fmt=fmt).chunks).decode("utf-8-sig")
    if fmt == "jsonl":
        rows = [json.loads(line) for line in text.splitlines()]
        return (list(rows[0]) if rows else []), rows
    reader = csv.DictReader(io.StringIO(text), delimiter="\t" if fmt == "tsv" else ",")
    rows = list(reader)
    return list(reader.fieldnames or []), rows


#: datasets with no rows in this study (no study file, no check items); its final-label datasets
#: are not offered at all, as it has no adjudication stage (issue 38)
EMPTY = {"participants", "checks"}


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
def test_every_dataset_downloads_with_a_header_and_its_rows(project, fmt):
    quality_run_create(project=project)
    assert not {"adjudications", "final", "final_items"} & set(offered_datasets(project))
    for dataset in (name for name in offered_datasets(project) if fmt in dataset_formats(name)):  # the tables
        header, rows = parsed(project, dataset, fmt)
        if dataset in EMPTY:
            assert rows == [], (dataset, fmt)
            if fmt != "jsonl" and dataset != "final_items":  # released items take their columns from rows
                assert header, (dataset, fmt)
            continue
        assert header and rows, (dataset, fmt)
        if fmt != "jsonl":  # JSONL keeps a released record's optional keys out where it has none
            assert all(list(row) == header for row in rows), (dataset, fmt)
    _, released = parsed(project, "gcrc_annotations", fmt)
    assert sorted(row["id"] for row in released) == sorted(["gcrc_hand_1", "gcrc_unlabeled_1"] * 2)
