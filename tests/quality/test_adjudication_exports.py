"""The final-label exports and the quality run's adjudication counts, on GCRC's hand-checked
item after an adjudicator decided its two disputed fields (one adjudicated, one given no value:
unresolved)."""

import json
from importlib import import_module

import pytest
from django.apps import apps as django_apps

from annotation.kinds import get_kind
from annotation.models import FinalLabel
from annotation.services.adjudication import (
    OWN_VALUE,
    adjudication_decide,
    adjudication_setup_set,
    adjudication_task_next,
)
from quality.exports import export_open
from quality.exports.datasets import project_datasets
from quality.models import QualityRun
from quality.services.runs import quality_run_create
from tests.annotation.test_adjudication import adjudicator_of, gcrc_batch, two_annotations
from tests.factories import BatchFactory, ProjectFactory
from tests.gcrc.test_export import S1, S2, S3

pytestmark = pytest.mark.django_db


@pytest.fixture
def decided(django_capture_on_commit_callbacks):
    project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    adjudicator = adjudicator_of(batch)
    task = adjudication_task_next(adjudicator=adjudicator)
    adjudication_decide(task=task, adjudicator=adjudicator, values={"a_error": "ITQ", "d_evidence": None})
    return project, adjudicator


def rows(project, name):
    builder, _ = project_datasets(project)[name]
    return list(builder(project, None).rows())


def test_final_rows_say_how_and_who(decided):
    project, adjudicator = decided
    found = {row["field"]: row for row in rows(project, "final")}
    assert len(found) == 16
    assert (found["a_skill"]["how"], found["a_skill"]["value"], found["a_skill"]["decided_by"]) == (
        "agreed",
        "DTL-R",
        "",
    )
    assert (found["a_error"]["how"], found["a_error"]["value"], found["a_error"]["decided_by"]) == (
        "adjudicated",
        "ITQ",
        adjudicator.external_id,
    )
    assert found["d_evidence"]["how"] == "unresolved" and found["d_evidence"]["value"] is None
    assert "gave no value" in found["d_evidence"]["reason"]


def test_final_csv_holds_plain_values_and_sentence_numbers_from_1(decided):
    """CSV: a code as itself (not the JSON string of it, which CSV quoted thrice), sentences as
    the page numbers them (from 1) joined by ';'; JSONL keeps JSON values."""
    project, _adjudicator = decided
    csv_text = b"".join(export_open(project=project, dataset="final", fmt="csv").chunks).decode()
    assert '"""' not in csv_text and ",DTL-R," in csv_text
    by_field = {line.split(",")[3]: line.split(",")[4] for line in csv_text.splitlines()[1:]}
    raw = FinalLabel.objects.get(item__project=project, field="a_evidence").value
    assert by_field["a_evidence"] == ";".join(str(i + 1) for i in raw) and "0" not in by_field["a_evidence"].split(";")
    jsonl = [
        json.loads(line)
        for line in b"".join(export_open(project=project, dataset="final", fmt="jsonl").chunks).decode().splitlines()
    ]
    evidence = next(r for r in jsonl if r["field"] == "a_evidence")
    assert evidence["value"] == [i + 1 for i in raw]
    assert next(r for r in jsonl if r["field"] == "a_skill")["value"] == "DTL-R"


def test_the_released_format_from_final_labels_leaves_the_unresolved_out(decided):
    project, _adjudicator = decided
    (row,) = rows(project, "final_items")
    assert row["id"] == "gcrc_hand_1" and row["answer"] == "B"
    assert row["evidences"] == [[S1], [S2], [S1, S3], None]
    assert row["error_type"] == ["ITQ", "", "TEMP", "ITA"]
    assert row["reasoning_ability"] == ["DTL-R", "CAUS-R", "DED", "IND"]
    jsonl = b"".join(export_open(project=project, dataset="final_items", fmt="jsonl").chunks).decode()
    assert json.loads(jsonl)["evidences"][1] == [S2]


def test_the_adjudicators_decisions_are_exported_with_both_annotators(decided):
    project, adjudicator = decided
    (row,) = rows(project, "adjudications")
    assert row["fields_in_dispute"] == ["a_error", "d_evidence"]
    assert row["answers"] == {"a_error": "ITQ", "d_evidence": None}
    csv_text = b"".join(export_open(project=project, dataset="adjudications", fmt="csv").chunks).decode()
    assert ",a_error;d_evidence," in csv_text
    assert row["adjudicator"] == adjudicator.external_id and row["status"] == "decided"
    assert row["first_annotator"] != row["second_annotator"]


def test_the_quality_run_reports_the_stage(decided):
    project, _adjudicator = decided
    quality_run_create(project=project)
    report = QualityRun.objects.get(project=project).report
    expected = {
        "adjudication_tasks_open": 0,
        "adjudication_tasks_decided": 1,
        "fields_agreed": 14,
        "fields_adjudicated": 1,
        "fields_unresolved": 1,
    }
    assert {key: report["summary"][key] for key in expected} == expected
    assert report["summary_keys"][-6:] == [*expected, "final_vs_reference_items"]
    assert report["summary"]["final_vs_reference_items"] == 0  # its d_evidence is unresolved: not scored
    assert report["summary"]["agreement_items"] == 1  # GCRC's two-annotator agreement stays beside it


@pytest.fixture
def own_sentences(django_capture_on_commit_callbacks):
    """Option D's sentences decided by the adjudicator's own value: typed "1, 3" (stored as
    indexes 0 and 2) where the annotators ticked sentence 3 and sentences 2 and 3."""
    project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    adjudicator = adjudicator_of(batch)
    task = adjudication_task_next(adjudicator=adjudicator)
    typed = get_kind("gcrc").adjudication_value(task.item.payload, "d_evidence", "1, 3")
    adjudication_decide(task=task, adjudicator=adjudicator, values={"a_error": "ITQ", "d_evidence": typed})
    return project


def test_every_export_numbers_the_adjudicators_sentences_from_1(own_sentences):
    """The adjudications export, the final value and the final reason all say the numbers the
    pages show (issue 36: the adjudications export said [0, 2], the reason [2], [1, 2])."""
    project = own_sentences
    (task,) = rows(project, "adjudications")
    assert task["answers"] == {"a_error": "ITQ", "d_evidence": [1, 3]}
    jsonl = b"".join(export_open(project=project, dataset="adjudications", fmt="jsonl").chunks).decode()
    assert json.loads(jsonl)["answers"]["d_evidence"] == [1, 3]
    final = {row["field"]: row for row in rows(project, "final")}["d_evidence"]
    assert final["value"] == [1, 3] and final["how"] == "adjudicated"
    assert final["reason"] == OWN_VALUE + " (the annotations: [3], [2, 3])"
    assert FinalLabel.objects.get(item__project=project, field="d_evidence").value == [0, 2]  # indexes, as stored


def test_the_migration_numbers_old_reasons_as_the_pages_do(own_sentences):
    """Reasons written before (sentence indexes from 0) are rewritten once; other reasons, and
    values a kind shows as stored, stay as they are."""
    project = own_sentences
    label = FinalLabel.objects.get(item__project=project, field="d_evidence")
    old = OWN_VALUE + " (the annotations: [2], [1, 2])"
    FinalLabel.objects.filter(pk=label.pk).update(reason=old)
    other = FinalLabel.objects.get(item__project=project, field="a_error")
    code_reason = OWN_VALUE + " (the annotations: 'DTL', 'ITQ')"
    FinalLabel.objects.filter(pk=other.pk).update(reason=code_reason)
    odd = FinalLabel.objects.get(item__project=project, field="a_skill")
    FinalLabel.objects.filter(pk=odd.pk).update(reason=OWN_VALUE + " (the annotations: <object at 0x1>, [1])")
    migration = import_module("annotation.migrations.0026_final_label_reasons_as_shown")
    migration.numbered_as_shown(django_apps, None)
    assert FinalLabel.objects.get(pk=label.pk).reason == OWN_VALUE + " (the annotations: [3], [2, 3])"
    assert FinalLabel.objects.get(pk=other.pk).reason == code_reason
    assert FinalLabel.objects.get(pk=odd.pk).reason.endswith("<object at 0x1>, [1])")


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_an_empty_final_items_file_still_has_its_header_line(fmt):
    """No final labels yet: the header names the released keys (GCRC's) or, for a kind without
    such a format, the item id; never an empty line alone (issue 36)."""
    project, _batch = gcrc_batch()
    text = b"".join(export_open(project=project, dataset="final_items", fmt=fmt).chunks).decode()
    separator = "," if fmt == "csv" else "\t"
    assert text.splitlines() == [
        separator.join(
            ["id", "title", "passage", "question", "options", "answer", "evidences", "error_type", "reasoning_ability"]
        )
    ]
    other = ProjectFactory(kind="recam")
    adjudication_setup_set(batch=BatchFactory(project=other))  # a recam batch with the stage on
    assert b"".join(export_open(project=other, dataset="final_items", fmt=fmt).chunks).decode().splitlines() == [
        "item_id"
    ]


def test_a_project_without_adjudication_is_offered_no_final_datasets(admin_client, decided):
    """Issue 38: the report, the export form, the API and the command offer final, final_items and
    adjudications only where a batch has the adjudication stage, and refuse them elsewhere with
    the reason."""
    import io

    from django.core.management import CommandError, call_command
    from django.urls import reverse

    from quality.exports import ExportUnavailable, offered_datasets

    adjudicated, _ = decided
    plain = ProjectFactory(kind="gcrc", team=adjudicated.team)
    assert {"final", "final_items", "adjudications"} <= set(offered_datasets(adjudicated))
    assert not {"final", "final_items", "adjudications"} & set(offered_datasets(plain))
    with pytest.raises(ExportUnavailable, match=r"has no batch with the adjudication stage"):
        export_open(project=plain, dataset="final", fmt="csv")
    html = admin_client.get(reverse("quality:report", args=[plain.pk])).content.decode()
    assert reverse("quality:export", args=[plain.pk, "final", "csv"]) not in html
    assert 'value="final_items"' not in html and 'value="raw"' in html
    html = admin_client.get(reverse("quality:report", args=[adjudicated.pk])).content.decode()
    assert reverse("quality:export", args=[adjudicated.pk, "final", "csv"]) in html
    with pytest.raises(CommandError, match=r"no batch with the adjudication stage"):
        call_command("export", str(plain.pk), "--dataset", "adjudications", stdout=io.StringIO())
    answer = admin_client.get(
        reverse("api-project-export", args=[plain.pk]), {"dataset": "final_items", "format": "csv"}
    )
    assert answer.status_code == 409 and "adjudication stage" in answer.json()["detail"]


def test_one_name_per_annotator_on_the_item_page_the_report_and_the_exports(admin_client, decided):
    """Issue 38: the platform number ties them together: the item page and the report say
    "#3 (3-635f…)", the exports carry the number beside the channel id, `decided_by` too."""
    from django.urls import reverse

    from annotation.models import Response
    from annotation.naming import annotator_name

    project, adjudicator = decided
    responses = list(Response.objects.filter(item__project=project).select_related("assignment__annotator", "item"))
    item = responses[0].item
    page = admin_client.get(reverse("quality:item", args=[project.pk, item.pk])).content.decode()
    quality_run_create(project=project)
    report = admin_client.get(reverse("quality:report", args=[project.pk])).content.decode()
    for response in responses:
        who = response.assignment.annotator
        assert annotator_name(who.pk, who.external_id) in page and annotator_name(who.pk, who.external_id) in report
    decided_rows = [r for r in rows(project, "final") if r["how"] == "adjudicated"]
    assert decided_rows and all(
        (r["decided_by_id"], r["decided_by"]) == (adjudicator.pk, adjudicator.external_id) for r in decided_rows
    )
    (task,) = rows(project, "adjudications")
    assert task["adjudicator_id"] == adjudicator.pk
    assert {task["first_annotator_id"], task["second_annotator_id"]} == {r.assignment.annotator_id for r in responses}
