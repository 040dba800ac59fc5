"""Issue 29's "done when": the Hub folder of each built-in kind's demo project (`load_demo`) and of
an example task file loads with `datasets.load_dataset`, offline, with every item and every kept
annotation as a row and typed columns: the demo's own data, annotated by two people through the
demo's invite links and each page's real form, then a quality run, as a researcher would."""

from __future__ import annotations

import io
import json
from collections.abc import Callable

import pytest
from django.core.management import call_command

from annotation.kinds import AGGREGATED_LEVELS, kind_of
from annotation.models import Annotator, Batch, InviteLink, Project
from annotation.services.assignments import annotator_join_via_invite, assignment_next
from annotation.services.examples import examples_find
from annotation.services.responses import next_page_slug
from quality.services.runs import quality_run_create
from tests.annotation.test_kind_contract import KIND_SAMPLES
from tests.factories import save_answer
from tests.quality.test_hub_folder import card, export_hub, kept_by_item, load, offline_hub  # noqa: F401

pytestmark = pytest.mark.django_db


def annotate_one_unit(annotator: Annotator, batch: Batch, answer_page: Callable[[dict, str], dict]) -> int:
    """The annotator's first unit, every page through its form; the items done."""
    kind = kind_of(batch.project)
    assignment = assignment_next(annotator=annotator, batch=batch)
    responses = list(assignment.responses.select_related("item").order_by("position"))
    for response in responses:
        payload = response.item.payload
        while (slug := next_page_slug(kind, payload, response.answers)) is not None:
            page = kind.page(payload, slug, response.answers)
            form = page.form_class(answer_page(payload, slug), payload=payload, answers=response.answers)
            assert form.is_valid(), (slug, form.errors)
            save_answer(response.pk, slug, form.answer())
            response.refresh_from_db()
    return len(responses)


def two_annotators(project: Project) -> tuple[Batch, list[Annotator]]:
    """The demo batch with invite links and two people who came through them (GCRC: one link each)."""
    links = list(InviteLink.objects.filter(batch__project=project).exclude(label="adjudicator").order_by("pk"))
    batch = links[0].batch
    people = [annotator_join_via_invite(invite=links[n % len(links)]) for n in range(2)]
    return batch, people


def typed_as_declared(items, project: Project) -> None:
    """Every aggregated (nominal, ordinal) label field has its label, posterior and interval
    columns, typed (CoSimLex's rating is an interval: its pairs carry means, not a label)."""
    import datasets

    fields = [f for f in kind_of(project).label_fields() if f.level in AGGREGATED_LEVELS]
    features = items.features
    for field in fields:
        assert any(p is not None for p in items[f"{field.name}_posterior"]), field.name  # annotated items
        for suffix in ("posterior", "posterior_low", "posterior_high", "ds_posterior", "majority_share"):
            assert features[f"{field.name}_{suffix}"] == datasets.Value("float64"), (field.name, suffix)
        assert features[f"{field.name}_majority_tie"] == datasets.Value("bool")
        assert features[f"{field.name}_method"] == datasets.Value("string")


def cosimlex_inspired(payload: dict, page: str) -> dict:
    """Two words of the context itself, different per item, as a reader would write (the contract's
    fixed pair, typed again for every item, fails the engagement rule and drops the annotator)."""
    if page != "inspired":
        return KIND_SAMPLES["cosimlex"][1](payload, page)
    words = [w.strip(".,;:!?\"'()<>") for w in payload[f"context{payload['context']}"].split()]
    first, second = [w for w in words if len(w) > 3 and w.isalpha()][:2]
    return {"word_1": first, "word_2": second}


def scde_three_minutes(payload: dict, page: str) -> dict:
    """The contract's answers after three minutes on the passage (its 61.5 s is under the demo's
    minimum time per passage, which drops both annotators)."""
    return {**KIND_SAMPLES["scde"][1](payload, page), "visible_ms": "180000"}


ANSWERS = {
    **{slug: answers for slug, (_, answers) in KIND_SAMPLES.items()},
    "cosimlex": cosimlex_inspired,
    "scde": scde_three_minutes,
}


@pytest.mark.parametrize(
    "slug, categories, items_per_row, typed",
    [
        ("recam", ["multiple-choice", "question-answering"], 1, {"post_choice_majority": "int64", "label": "int64"}),
        ("cosimlex", ["sentence-similarity"], 2, {"rating": "int64"}),  # a row per pair
        ("gcrc", ["multiple-choice", "question-answering"], 1, {}),
        ("scde", ["multiple-choice", "fill-mask"], 1, {}),
    ],
)
def test_each_built_in_demo_folder_loads(
    slug, categories, items_per_row, typed, tmp_path, django_capture_on_commit_callbacks
):
    import datasets

    call_command("load_demo", "--password", "pw", stdout=io.StringIO())
    project = Project.objects.get(kind=slug)
    batch, people = two_annotators(project)
    with django_capture_on_commit_callbacks(execute=True):
        done = [annotate_one_unit(person, batch, ANSWERS[slug]) for person in people]
    assert all(done)
    quality_run_create(project=project)
    printed = export_hub(project, tmp_path / "hub", "--license", "cc-by-4.0")

    items = load(tmp_path / "hub", "items")["train"]
    assert (
        items.num_rows == project.items.data().count() // items_per_row and f"items: train {items.num_rows}" in printed
    )
    typed_as_declared(items, project)
    annotations = load(tmp_path / "hub", "annotations")["train"]
    assert annotations.num_rows == sum(kept_by_item(project).values()) > 0
    assert annotations.features["annotator_id"] == datasets.Value("int64")
    for column, dtype in typed.items():
        where = items if column in items.features else annotations
        assert where.features[column] == datasets.Value(dtype), column
    header, _ = card(tmp_path / "hub")
    assert header["task_categories"] == categories and header["license"] == "cc-by-4.0"
    assert header["language"] == [project.language.split("-")[0]]


def named_entities_answers(payload: dict, page: str) -> dict:
    """The sentence's first word as a person's name."""
    first = payload["sentence"].split()[0]
    return {"entities": json.dumps([{"start": 0, "end": len(first), "label": "PER"}])}


def test_an_example_task_file_folder_loads_with_spans_as_lists(tmp_path, django_capture_on_commit_callbacks):
    import datasets

    call_command("load_demo", "--password", "pw", "--examples", stdout=io.StringIO())
    example = next(e for e in examples_find() if e.name == "named_entities")
    project = Project.objects.get(task_file=example.task_file.read_text(encoding="utf-8"))
    batch, people = two_annotators(project)
    with django_capture_on_commit_callbacks(execute=True):
        for person in people:
            while batch.units.exclude(assignments__annotator=person).exists():
                annotate_one_unit(person, batch, named_entities_answers)
    quality_run_create(project=project)
    export_hub(project, tmp_path / "hub")

    items = load(tmp_path / "hub", "items")["train"]
    assert items.num_rows == project.items.count() == len(example.dataset.read_text().splitlines())
    annotations = load(tmp_path / "hub", "annotations")["train"]
    assert annotations.num_rows == 2 * items.num_rows
    span = {
        k: datasets.Value(t) for k, t in [("start", "int64"), ("end", "int64"), ("text", "string"), ("label", "string")]
    }
    assert annotations.features["entities"] == datasets.List(span)
    first = annotations[0]["entities"][0]
    assert first["label"] == "PER" and first["start"] == 0 and first["text"]
    header, _ = card(tmp_path / "hub")
    assert header["task_categories"] == ["token-classification"]  # the file's own
