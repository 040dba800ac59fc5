"""Issue 27, the study steps in the exports: the `participants` dataset (one row per person and
batch with a study file: consent, each comprehension attempt, the exit survey's answers) and the
Hub card's lines on who took part, with participations made through the study services."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass

import pytest
from django.core.management import call_command

from annotation.models import Annotator, Batch, Project
from annotation.services.assignments import annotator_join_via_invite
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.study import (
    participation_for,
    study_comprehension_attempt,
    study_consent,
    study_exit_answers,
)
from quality.exports import export_open, project_datasets
from quality.services.runs import quality_run_create
from tests.conftest import data_file

pytestmark = pytest.mark.django_db

STUDY = data_file("studies", "reading_study.yaml").read_text(encoding="utf-8")
#: a second study: three attempts, one question, an exit survey with another question
OTHER_STUDY = """
comprehension:
  attempts: 3
  questions:
    - {id: look_up, type: single_choice, prompt: May you look answers up?, options: ["yes", "no"]}
  answers: {look_up: "no"}
exit_survey:
  questions:
    - {id: difficulty, type: likert, prompt: How hard was it?, size: 5}
    - {id: device, type: single_choice, prompt: Phone or computer?, options: [phone, computer]}
"""
RIGHT = {"many_answers": "no", "look_up": "no"}
WRONG = {"many_answers": "yes", "look_up": "no"}
IDENTITY = ["annotator_id", "annotator", "channel", "batch_id", "batch", "steps"]
STEPS = ["consent", "consent_at", "comprehension", "attempts", "comprehension_at"]


@dataclass
class StudyPeople:
    batch: Batch
    people: dict[str, Annotator]


def join(batch: Batch) -> Annotator:
    return annotator_join_via_invite(invite=invite_link_create(batch=batch))


def take_part(annotator: Annotator, batch: Batch, *, consent: bool | None, attempts=(), exit=None) -> None:
    """One person's way through the steps, through the services the pages call."""
    participation = participation_for(annotator=annotator, batch=batch)
    if consent is not None:
        participation = study_consent(participation=participation, agreed=consent)
    for number, answers in enumerate(attempts, start=1):
        study_comprehension_attempt(participation=participation, attempt=number, answers=answers)
    if exit is not None:
        study_exit_answers(participation=participation, answers=exit)


def study_people(project: Project, *, name: str = "study") -> StudyPeople:
    """A batch with the reading study and six people: first try, second try, declined, failed
    both, entered and answered nothing, one wrong try so far."""
    batch = batch_create(project=project, name=name, items_per_unit=5, assignments_per_unit=3, study=STUDY)
    people = {who: join(batch) for who in ("first", "second", "declined", "failed", "silent", "pending")}
    take_part(people["first"], batch, consent=True, attempts=[RIGHT], exit={"difficulty": 2, "remarks": "fine"})
    take_part(people["second"], batch, consent=True, attempts=[WRONG, RIGHT], exit={"difficulty": 4})
    take_part(people["declined"], batch, consent=False)
    take_part(people["failed"], batch, consent=True, attempts=[WRONG, WRONG])
    take_part(people["pending"], batch, consent=True, attempts=[WRONG])
    return StudyPeople(batch, people)


def exported(project: Project, fmt: str = "csv") -> str:
    return b"".join(export_open(project=project, dataset="participants", fmt=fmt).chunks).decode()


def csv_rows(text: str, delimiter: str = ",") -> tuple[list[str], dict[str, dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    rows = list(reader)
    ids = {a.external_id: a for a in Annotator.objects.all()}
    assert all(row["annotator"] in ids for row in rows)
    return list(reader.fieldnames or []), {row["annotator"]: row for row in rows}


def test_one_row_per_person_with_consent_attempts_and_exit_answers(annotated):
    project = annotated.project
    study = study_people(project)
    header, rows = csv_rows(exported(project))
    attempts = ["attempt_1_passed", "attempt_1_wrong", "attempt_2_passed", "attempt_2_wrong"]
    assert header == IDENTITY + STEPS + attempts + ["exit_survey_at", "exit_difficulty", "exit_remarks"]
    by = {who: rows[a.external_id] for who, a in study.people.items()}
    assert len(rows) == 6  # the annotators of the batch without a study have no row

    first = by["first"]
    assert first["annotator_id"] == str(study.people["first"].pk) and first["channel"] == "invite"
    assert first["batch"] == "study" and first["steps"] == "consent comprehension exit_survey"
    assert first["consent"] == "agreed" and first["consent_at"] and first["comprehension_at"]
    assert (first["comprehension"], first["attempts"], first["attempt_1_passed"]) == ("passed", "1", "True")
    assert first["attempt_2_passed"] == "" and first["exit_difficulty"] == "2" and first["exit_remarks"] == "fine"

    second = by["second"]
    assert (second["comprehension"], second["attempts"]) == ("passed", "2")
    assert (second["attempt_1_passed"], second["attempt_1_wrong"]) == ("False", "many_answers")
    assert (second["attempt_2_passed"], second["attempt_2_wrong"]) == ("True", "")
    assert second["exit_difficulty"] == "4" and second["exit_remarks"] == "" and second["exit_survey_at"]

    declined = by["declined"]
    assert declined["consent"] == "declined" and declined["consent_at"]
    assert (declined["comprehension"], declined["attempts"], declined["attempt_1_passed"]) == ("", "0", "")

    failed = by["failed"]
    assert (failed["comprehension"], failed["attempts"], failed["attempt_2_wrong"]) == ("failed", "2", "many_answers")
    assert failed["exit_survey_at"] == ""

    silent = by["silent"]  # saw the consent page, answered nothing
    assert (silent["consent"], silent["consent_at"], silent["attempts"]) == ("", "", "0")

    pending = by["pending"]
    assert (pending["comprehension"], pending["attempts"], pending["comprehension_at"]) == ("", "1", "")


def test_jsonl_and_tsv_carry_the_same_rows_with_their_types(annotated):
    project = annotated.project
    study = study_people(project)
    lines = [json.loads(line) for line in exported(project, "jsonl").splitlines()]
    header, _ = csv_rows(exported(project, "csv"))
    tsv_header, tsv_rows = csv_rows(exported(project, "tsv"), delimiter="\t")
    assert tsv_header == header and len(tsv_rows) == len(lines) == 6
    assert all(list(line) == header for line in lines)  # every declared column, in order
    second = next(line for line in lines if line["annotator_id"] == study.people["second"].pk)
    assert second["attempts"] == 2 and second["attempt_1_passed"] is False and second["attempt_2_passed"] is True
    assert second["attempt_1_wrong"] == ["many_answers"] and second["attempt_2_wrong"] == []
    assert second["exit_difficulty"] == 4 and second["exit_remarks"] is None
    assert isinstance(second["consent_at"], str) and second["consent_at"][:4].isdigit()


def test_studies_that_differ_give_the_union_of_their_columns(annotated):
    project = annotated.project
    study_people(project)
    other = batch_create(project=project, name="other", items_per_unit=5, assignments_per_unit=1, study=OTHER_STUDY)
    person = join(other)
    wrong, right = {"look_up": "yes"}, {"look_up": "no"}
    take_part(person, other, consent=None, attempts=[wrong, wrong, right], exit={"difficulty": 5, "device": "phone"})
    header, rows = csv_rows(exported(project))
    assert header[len(IDENTITY) + len(STEPS) :] == [
        *[f"attempt_{k}_{what}" for k in (1, 2, 3) for what in ("passed", "wrong")],
        "exit_survey_at",
        "exit_difficulty",
        "exit_remarks",
        "exit_device",
    ]
    row = rows[person.external_id]
    assert row["steps"] == "comprehension exit_survey" and row["consent"] == "" and row["batch"] == "other"
    assert (row["attempts"], row["attempt_3_passed"], row["attempt_2_wrong"]) == ("3", "True", "look_up")
    assert (row["exit_device"], row["exit_difficulty"], row["exit_remarks"]) == ("phone", "5", "")
    # the first study asks no device: its people's cell is empty
    assert {r["exit_device"] for who, r in rows.items() if who != person.external_id} == {""}
    assert rows[person.external_id]["consent"] == ""  # no consent asked: None, an empty cell
    line = next(
        json.loads(x) for x in exported(project, "jsonl").splitlines() if json.loads(x)["annotator_id"] == person.pk
    )
    assert line["consent"] is None and line["consent_at"] is None


def test_without_any_study_the_dataset_is_its_header(annotated):
    project = annotated.project
    assert "participants" in project_datasets(project)
    assert exported(project) == ",".join(IDENTITY + STEPS + ["exit_survey_at"]) + "\r\n"
    assert exported(project, "jsonl") == ""
    out = io.StringIO()
    call_command("export", str(project.pk), "--dataset", "participants", "--format", "tsv", stdout=out)
    assert out.getvalue().splitlines() == ["\t".join(IDENTITY + STEPS + ["exit_survey_at"])]


def test_the_api_and_the_report_list_it(annotated, staff_client):
    project = annotated.project
    study_people(project)
    url = f"/api/projects/{project.pk}/export/?dataset=participants&format=csv"
    response = staff_client.get(url)
    assert response.status_code == 200, response.content[:500]
    header, rows = csv_rows(b"".join(response.streaming_content).decode())
    assert len(rows) == 6 and "exit_difficulty" in header


def test_the_hub_card_says_who_took_part_declined_or_failed(annotated, tmp_path):
    from .test_hub_folder import card, export_hub

    project = annotated.project
    quality_run_create(project=project)
    export_hub(project, tmp_path / "before")
    _, body = card(tmp_path / "before")
    assert "Study steps" not in body and "Took part" not in body
    study_people(project)
    export_hub(project, tmp_path / "hub")
    _, body = card(tmp_path / "hub")
    process = body.split("## Annotation process")[1].split("###")[0]
    assert "- Study steps around the work: consent, a comprehension check, an exit survey (in 1 of the 2 batches)" in (
        process
    )
    # six entered; first and second went on to the work; one declined, one failed; silent and pending did neither
    assert "- Took part: 2 of the 6 people who entered those batches; 1 declined the consent and 1 failed" in process
