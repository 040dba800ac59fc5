"""Both ways against a real Label Studio 1.23.2 (its REST API): task-file projects annotated here
(named entities with an emoji text, sentiment) and predicted by a model with scores, exported as
`label_studio`, import into a fresh Label Studio unedited (each annotator one pseudonymous
account, none an existing user); Label Studio's JSON and snapshot exports import back unedited,
a second time changing nothing, and with one annotation more adding exactly that one; the round
trip gives back the same spans, choices, annotators (as a mapping), lead_time, model_version and
scores. With LABEL_STUDIO_WRITE_FIXTURES=1 the exports are written to
tests/fixtures/label_studio/ls-1.23.2/ (the fast tests read them)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from annotation.kinds import kind_of
from annotation.kinds.taskfile.typed import form_data
from annotation.kinds.typed import TypedAnswer
from annotation.models import Project, Response
from annotation.services.assignments import annotator_join_via_invite, assignment_next
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from annotation.services.responses import next_page_slug
from quality.exports import export_open
from quality.models import Prediction
from quality.services.predictions import predictions_import
from tests.conftest import FIXTURES
from tests.factories import TeamFactory, save_answer

from .server import ADMIN, LabelStudio

# one Label Studio server per test process: every test of it on the same process (scripts/test: --dist loadgroup)
pytestmark = [pytest.mark.label_studio, pytest.mark.django_db, pytest.mark.xdist_group("label_studio")]

EXAMPLES = FIXTURES.parents[1] / "examples" / "tasks"
PINNED = FIXTURES / "label_studio" / "ls-1.23.2"
#: a text with an emoji (two UTF-16 units, one code point) before the name
EMOJI = {"sentence_id": "s99", "sentence": "🎉 Anna Berg opened a café in Köln."}
NER_CONFIG = """<View><Text name="sentence" value="$sentence"/><Labels name="entities" toName="sentence">
<Label value="PER"/><Label value="ORG"/><Label value="LOC"/></Labels></View>"""
SENTIMENT_CONFIG = """<View><Text name="text" value="$text"/><Choices name="sentiment" toName="text">
<Choice value="positive"/><Choice value="neutral"/><Choice value="negative"/></Choices></View>"""


def first_word(text: str, label: str) -> dict[str, Any]:
    """The text's first word (after the emoji: code points 2 on) as a span."""
    start = 2 if text.startswith("🎉") else 0
    end = text.index(" ", start)
    return {"start": start, "end": end, "text": text[start:end], "label": label}


def ner_answers(person: int) -> Callable[[dict[str, Any]], list[TypedAnswer]]:
    def answers(payload: dict[str, Any]) -> list[TypedAnswer]:
        span = first_word(payload["sentence"], "PER" if person == 0 else "ORG")
        return [TypedAnswer("entities", "spans", [span], "sentence")]

    return answers


def sentiment_answers(person: int) -> Callable[[dict[str, Any]], list[TypedAnswer]]:
    def answers(payload: dict[str, Any]) -> list[TypedAnswer]:
        return [TypedAnswer("sentiment", "choices", [["positive", "negative"][person]], "text")]

    return answers


PROJECTS = {
    "named_entities": ("task.json", "sentences.jsonl", NER_CONFIG, ner_answers, "sentence"),
    "sentiment": ("task.yaml", "reviews.jsonl", SENTIMENT_CONFIG, sentiment_answers, "text"),
}


def annotated(name: str) -> Project:
    """The example project, its items (named entities: and the emoji text), annotated here by
    two people through invite links and the pages' forms, and a model's scored predictions."""
    task_file, items, _config, answers, text_key = PROJECTS[name]
    project = project_create(name=name, team=TeamFactory(), task_file=(EXAMPLES / name / task_file).read_text())
    data = (EXAMPLES / name / items).read_bytes()
    if name == "named_entities":
        data += (json.dumps(EMOJI, ensure_ascii=False) + "\n").encode()
    items_import(project=project, data=data, filename=items)
    kind = kind_of(project)
    count = project.items.count()
    batch = batch_create(project=project, name="here", items_per_unit=count, assignments_per_unit=2)
    invite = invite_link_create(batch=batch)
    for person in range(2):
        assignment = assignment_next(annotator=annotator_join_via_invite(invite=invite), batch=batch)
        for response in assignment.responses.select_related("item").order_by("position"):
            payload = response.item.payload
            while (slug := next_page_slug(kind, payload, response.answers)) is not None:
                data = form_data(kind.task, payload, answers(person)(payload))  # type: ignore[attr-defined]
                form = kind.page(payload, slug, response.answers).form_class(
                    data, payload=payload, answers=response.answers
                )
                assert form.is_valid(), form.errors
                save_answer(response.pk, slug, form.answer(), shown_at=timezone.now())
                response.refresh_from_db()
    predicted = [
        {
            "data": item.payload,
            "predictions": [
                {
                    "model_version": "model-v1",
                    "score": round(0.5 + n / 100, 2),
                    "result": [entry for typed in answers(n % 2)(item.payload) for entry in _entries(typed, text_key)],
                }
            ],
        }
        for n, item in enumerate(project.items.order_by("id"))
    ]
    predictions_import(project=project, data=json.dumps(predicted).encode(), filename="model.json")
    return project


def _entries(typed: TypedAnswer, to_name: str) -> list[dict[str, Any]]:
    from quality.exports.label_studio import result_entries

    return result_entries(typed, to_name=to_name, prefix="m")


def export(project: Project) -> bytes:
    return b"".join(export_open(project=project, dataset="label_studio", fmt="json").chunks)


def emails(tasks: list[dict[str, Any]]) -> set[str]:
    return {a["completed_by"]["email"] for t in tasks for a in t["annotations"]}


def held(project: Project) -> dict[tuple[str, str], tuple[Any, Any]]:
    """(item id, annotator's external id or number) -> (answers, seconds) of every completed annotation."""
    found = {}
    for r in Response.objects.filter(item__project=project, completed_at__isnull=False).select_related(
        "item", "assignment__annotator"
    ):
        seconds = sum(t.get("seconds") or 0 for t in r.timings.values())
        who = r.assignment.annotator
        found[r.item.external_id, who.external_id if who.channel == "label_studio" else str(who.pk)] = (
            r.answers,
            round(seconds, 3),
        )
    return found


def predictions(project: Project) -> dict[tuple[str, str], tuple[Any, float | None]]:
    return {
        (p.item.external_id, p.model): (p.labels, p.score)
        for p in Prediction.objects.filter(project=project).select_related("item")
    }


def pin(name: str, content: bytes) -> None:
    if os.environ.get("LABEL_STUDIO_WRITE_FIXTURES") == "1":
        PINNED.mkdir(parents=True, exist_ok=True)
        (PINNED / name).write_bytes(content)


@pytest.mark.parametrize("name", list(PROJECTS))
def test_a_project_goes_to_label_studio_and_comes_back_the_same(label_studio: LabelStudio, name: str) -> None:
    ls = label_studio
    project = annotated(name)
    before, predicted = held(project), predictions(project)
    assert len(before) == 2 * project.items.count() and len(predicted) == project.items.count()
    file = export(project)
    tasks = json.loads(file)
    pin(f"{name}_platform_export.json", file)

    # into a fresh Label Studio project, unedited: one account per pseudonymous annotator first
    people = {pk for pk, email in ls.users().items() if not email.endswith("@annotators.invalid")}
    made = {email: ls.user(email) for email in sorted(emails(tasks))}
    assert len(made) == 2 and all(email.endswith("@annotators.invalid") for email in made)
    target = ls.project(f"{name} from the platform", PROJECTS[name][2])
    reply = ls.import_tasks(target, file)
    assert (reply["task_count"], reply["annotation_count"], reply["prediction_count"]) == (
        len(tasks),
        len(before),
        len(predicted),
    )
    there = ls.tasks(target)
    credited = {a["completed_by"] for t in there for a in t["annotations"]}
    assert credited == set(made.values()) and not credited & people  # never the admin, nor anybody else

    # one annotation more in Label Studio, by its admin
    first = min(there, key=lambda t: t["id"])
    result = [dict(entry) for entry in first["annotations"][0]["result"]]
    ls.annotate(first["id"], result, lead_time=3.5)

    # Label Studio's exports back into fresh projects here, unedited
    options = {"predictions": {"only_id": False}, "annotations__completed_by": {"only_id": False}}
    snapshot = ls.snapshot(target, options)
    plain = ls.export(target)
    pin(f"{name}_snapshot.json", snapshot)
    pin(f"{name}_json_export.json", plain)
    task_file = (EXAMPLES / name / PROJECTS[name][0]).read_text()
    back = project_create(name=f"{name} back", team=project.team, task_file=task_file)
    report = items_import(project=back, data=snapshot, filename="snapshot.json")
    assert (report.created, report.annotations) == (len(tasks), len(before) + 1)
    assert "allow_skip" in report.ignored_keys
    models = predictions_import(project=back, data=snapshot, filename="snapshot.json")
    assert models.created == len(predicted)

    # the same spans or choices, lead_time, per annotator (a mapping: platform number -> e-mail)
    mapping = {str(pk): f"annotator-{pk}@annotators.invalid" for _item, pk in before}
    after = held(back)
    assert {(item, mapping[who]): value for (item, who), value in before.items()} == {
        key: value for key, value in after.items() if key[1] != ADMIN
    }
    assert [key for key in after if key[1] == ADMIN] == [(first["data"][_id_key(name)], ADMIN)]
    assert predictions(back) == predicted  # model_version, labels and scores

    # the same export again changes nothing; LS's plain JSON export (ids) merges nothing new either
    again = items_import(project=back, data=snapshot, filename="snapshot.json")
    assert (again.created, again.annotations, again.duplicates) == (0, 0, len(tasks))
    assert held(back) == after

    # the plain JSON export names annotators by their number: a fresh project takes it whole
    plain_project = project_create(name=f"{name} plain", team=project.team, task_file=task_file)
    report = items_import(project=plain_project, data=plain, filename="export.json")
    assert (report.created, report.annotations) == (len(tasks), len(before) + 1)
    # its JSON-MIN and CSV exports (one record per annotation) bring the same annotations
    for export_type, suffix in (("JSON_MIN", "json"), ("CSV", "csv")):
        flat = ls.export(target, export_type)
        pin(f"{name}_{export_type.lower()}.{suffix}", flat)
        flat_project = project_create(name=f"{name} {export_type}", team=project.team, task_file=task_file)
        report = items_import(project=flat_project, data=flat, filename=f"export.{suffix}")
        assert (report.created, report.annotations) == (len(tasks), len(before) + 1)
        assert held(flat_project) == held(plain_project), export_type
    # and a second export with one annotation more adds exactly that one
    second = json.loads(snapshot)
    missing = next(t for t in second if t["id"] == first["id"])
    missing["annotations"] = [a for a in missing["annotations"] if a["completed_by"]["email"] != ADMIN]
    smaller = project_create(name=f"{name} merge", team=project.team, task_file=task_file)
    items_import(project=smaller, data=json.dumps(second).encode(), filename="older.json")
    merged = items_import(project=smaller, data=snapshot, filename="newer.json")
    assert (merged.created, merged.annotations, merged.merged_annotations) == (0, 1, 1)
    assert held(smaller) == after


def _id_key(name: str) -> str:
    return "sentence_id" if name == "named_entities" else "review_id"
