"""The per-page too-fast rule works the same for every kind, built in or from a task file: three
annotators answer the same unit through the real services, one spends a second on each page; a
run flags that one's answers with the pages and their times, drops them when asked (the reason
names the page), and the report and the raw export show it. Unset, nothing of it appears."""

from __future__ import annotations

import csv
import io
import json

import pytest

from annotation.kinds import TaskFileError, all_kinds, kind_of, task_file_kind
from annotation.models import Item, Project, Response
from annotation.services.assignments import annotator_join_via_invite, assignment_next
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from annotation.services.responses import next_page_slug
from quality.exports import export_open
from quality.models import ResponseDecision
from quality.services.runs import quality_run_create
from tests.annotation.test_kind_contract import KIND_SAMPLES, TASK_FILE
from tests.conftest import data_file
from tests.factories import TeamFactory, save_answer

pytestmark = pytest.mark.django_db
SLUGS = [k.slug for k in all_kinds()] + ["task_file"]
FAST, SLOW = 1.0, 30.0


def annotated_project(slug: str) -> tuple[Project, int]:
    """A project of the kind, one unit of two items done by three annotators; every page of the
    last one's answers took FAST seconds, the others' SLOW. Returns the project and that annotator."""
    team = TeamFactory()
    if slug == "task_file":
        project = project_create(name="speed", team=team, task_file=TASK_FILE)
    else:
        project = project_create(name="speed", team=team, kind=slug)
    path, answer_page = KIND_SAMPLES[slug]
    items_import(project=project, data=data_file(*path).read_bytes(), filename=path[-1])
    by_group: dict[str, Item] = {}  # two items of different groups (a unit never holds two of one)
    for item in Item.objects.filter(project=project).order_by("id"):
        by_group.setdefault(item.group_key or f"#{item.pk}", item)
    items = list(by_group.values())[:2]
    batch = batch_create(project=project, name="b", items=items, items_per_unit=2, assignments_per_unit=3)
    invite = invite_link_create(batch=batch)
    kind = kind_of(project)
    annotators = []
    for _ in range(3):
        annotator = annotator_join_via_invite(invite=invite)
        assignment = assignment_next(annotator=annotator, batch=batch)
        for response in assignment.responses.select_related("item").order_by("position"):
            payload = response.item.payload
            while (page_slug := next_page_slug(kind, payload, response.answers)) is not None:
                page = kind.page(payload, page_slug, response.answers)
                form = page.form_class(answer_page(payload, page_slug), payload=payload, answers=response.answers)
                assert form.is_valid(), (page_slug, form.errors)
                save_answer(response.pk, page_slug, form.answer())
                response.refresh_from_db()
        annotators.append(annotator.pk)
    fast = annotators[-1]
    for response in Response.objects.filter(item__project=project).select_related("assignment"):
        seconds = FAST if response.assignment.annotator_id == fast else SLOW
        timings = {page: {**timing, "seconds": seconds} for page, timing in response.timings.items()}
        Response.objects.filter(pk=response.pk).update(timings=timings)
    return project, fast


def raw_rows(project: Project) -> list[dict[str, str]]:
    text = b"".join(export_open(project=project, dataset="raw", fmt="csv").chunks).decode("utf-8")
    return list(csv.DictReader(io.StringIO(text, newline="")))


@pytest.mark.parametrize("slug", SLUGS)
def test_every_kind_flags_the_fast_pages_and_drops_them_when_asked(slug):
    project, fast = annotated_project(slug)
    plain = quality_run_create(project=project)
    assert plain.status == "done", plain.error
    assert "time_on_task" not in plain.report and "page_seconds" not in raw_rows(project)[0]

    run = quality_run_create(project=project, overrides={"too_fast_page_seconds": 5, "drop_too_fast": True})
    assert run.status == "done", run.error
    decisions = list(ResponseDecision.objects.filter(run=run).select_related("response__assignment"))
    flagged = [d for d in decisions if d.values["too_fast"]]
    assert flagged and {d.response.assignment.annotator_id for d in flagged} == {fast}
    assert len(flagged) == sum(d.response.assignment.annotator_id == fast for d in decisions)
    for decision in flagged:
        pages = decision.values["too_fast_pages"]
        assert list(pages) == list(decision.response.timings)  # every page, in the order they were saved
        assert all(times == {"seconds": FAST, "threshold": 5.0} for times in pages.values())
        assert not decision.keep
        assert [r for r in decision.reasons if r.startswith("page '")] == [
            f"page '{page}' answered in 1.0 s, below its too-fast threshold of 5.0 s" for page in pages
        ]
    assert all(d.values["too_fast_pages"] is None for d in decisions if d not in flagged)

    section = run.report["time_on_task"]
    assert section["n_answers_flagged"] == len(flagged)
    assert section["n_flagged"] == sum(len(d.values["too_fast_pages"]) for d in flagged)
    assert {row["page"] for row in section["flagged"]} == {p for d in flagged for p in d.values["too_fast_pages"]}
    assert section["decisions"] == [{"rule": "drop_too_fast", "annotators": 0, "answers": len(flagged)}]
    by_rule = run.report["headline"]["annotations_dropped_by_reason"]  # what the dataset card's provenance lists
    for page in {p for d in flagged for p in d.values["too_fast_pages"]}:
        rule = f"page '{page}' answered in 1.0 s, below its too-fast threshold of 5.0 s"
        assert by_rule[rule] == sum(page in d.values["too_fast_pages"] for d in flagged)

    rows = {int(row["response_id"]): row for row in raw_rows(project)}
    for decision in decisions:
        row = rows[decision.response_id]
        assert json.loads(row["page_seconds"]) == {p: t["seconds"] for p, t in decision.response.timings.items()}
        assert row["too_fast"] == str(decision.values["too_fast"])


@pytest.mark.parametrize("slug", SLUGS)
def test_a_mapping_judges_only_the_pages_it_names(slug):
    project, fast = annotated_project(slug)
    first = next(iter(Response.objects.filter(item__project=project).order_by("id").first().timings))
    run = quality_run_create(project=project, overrides={"too_fast_page_seconds": {first: 5}})
    flagged = [d for d in ResponseDecision.objects.filter(run=run) if d.values["too_fast"]]
    assert flagged and all(list(d.values["too_fast_pages"]) == [first] for d in flagged)
    assert all(d.keep or not any(r.startswith("page '") for r in d.reasons) for d in flagged)  # flagged only


def test_a_task_file_sets_page_floors_by_its_page_ids_and_a_wrong_id_is_named():
    text = TASK_FILE + "settings:\n  too_fast_page_seconds: {guess: 3, read: 10}\n"
    assert task_file_kind(text).settings_for(None)["too_fast_page_seconds"] == {"guess": 3, "read": 10}
    assert task_file_kind(TASK_FILE + "settings:\n  too_fast_page_seconds: 4\n")
    with pytest.raises(TaskFileError) as caught:
        task_file_kind(TASK_FILE + "settings:\n  too_fast_page_seconds: {gues: 3}\n")
    assert [str(p) for p in caught.value.problems] == [
        f"line {TASK_FILE.count(chr(10)) + 2}, settings.too_fast_page_seconds.gues: no page 'gues'; pages: guess, read, fill"
    ]
