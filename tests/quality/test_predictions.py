"""A model's predictions as one more annotator, for every kind (built in or from a task file):
imported beside the items, scored by a quality run per label field against the humans' labels
(checked against sklearn and numpy here), shown in the report's "Model predictions" section, and
never mixed into the humans' agreement, aggregation, decisions or exports."""

from __future__ import annotations

import json
import math
import warnings
from typing import Any

import numpy as np
import pytest
from django.urls import reverse
from scipy import stats
from sklearn.metrics import accuracy_score, cohen_kappa_score

from annotation.kinds import all_kinds, kind_of
from annotation.models import Item, Project, Response
from annotation.services.assignments import annotator_join_via_invite, assignment_next
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from annotation.services.responses import next_page_slug
from quality.exports import export_open
from quality.exports.datasets import dataset_formats, offered_datasets
from quality.models import AnnotatorDecision, ItemResult, ResponseDecision
from quality.services.predictions import predictions_import
from quality.services.runs import quality_run_create
from tests.annotation.test_kind_contract import KIND_SAMPLES, TASK_FILE
from tests.conftest import data_file
from tests.factories import TeamFactory, save_answer
from tests.quality.test_hub_folder import answer_assignment

pytestmark = pytest.mark.django_db
SLUGS = [k.slug for k in all_kinds()] + ["task_file"]
ITEMS = 6
#: the kinds whose sample items come with an answer key of label fields (`TaskKind.gold_labels`)
WITH_GOLD = ("recam", "scde", "task_file")  # the GCRC sample has no labels
#: rules that would drop these made-up annotators: the same two words on every page, answers at once
SETTINGS: dict[str, dict[str, Any]] = {
    "cosimlex": {"engagement_max_flagged_share": 1.0},
    "scde": {"min_seconds": 0},  # answered at once here
}


def annotated_project(slug: str) -> Project:
    """A project of the kind: up to ITEMS items of distinct groups, each done by three annotators
    through the real forms (the same answers: the humans' label of an item is theirs)."""
    team = TeamFactory()
    if slug == "task_file":
        project = project_create(name="predicted", team=team, task_file=TASK_FILE)
    else:
        project = project_create(name="predicted", team=team, kind=slug)
    path, answer_page = KIND_SAMPLES[slug]
    items_import(project=project, data=data_file(*path).read_bytes(), filename=path[-1])
    by_group: dict[str, Item] = {}
    for item in Item.objects.filter(project=project).order_by("id"):
        by_group.setdefault(item.group_key or f"#{item.pk}", item)
    items = list(by_group.values())[:ITEMS]
    batch = batch_create(project=project, name="b", items=items, items_per_unit=len(items), assignments_per_unit=3)
    invite = invite_link_create(batch=batch)
    for _ in range(3):
        answer_assignment(assignment_next(annotator=annotator_join_via_invite(invite=invite), batch=batch), answer_page)
    return project


def human_labels(project: Project) -> dict[Item, dict[str, Any]]:
    """Each annotated item's label per field, read from one of its (identical) annotations."""
    kind = kind_of(project)
    found: dict[Item, dict[str, Any]] = {}
    for response in Response.objects.filter(item__project=project).select_related("item").order_by("id"):
        row = kind.annotation_row(response.item.payload, response.answers)
        found.setdefault(response.item, {f.name: f.value(row) for f in kind.label_fields()})
    return found


def model_labels(project: Project, humans: dict[Item, dict[str, Any]]) -> dict[Item, dict[str, Any]]:
    """A made-up model: right on the even items; on the odd ones the next item's label where this
    item takes it (a sentence number may be past its article's end), a rating one higher."""
    kind = kind_of(project)
    levels = {f.name: f.level for f in kind.label_fields()}
    items = list(humans)
    guessed: dict[Item, dict[str, Any]] = {}
    for n, item in enumerate(items):
        own, other = humans[item], humans[items[(n + 1) % len(items)]]
        labels = {name: value for name, value in own.items() if value is not None}
        for name in labels if n % 2 else ():
            wrong = labels[name] + 1 if levels[name] == "interval" else other[name]
            try:
                labels[name] = kind.prediction_value(item.payload, name, wrong)
            except ValueError:
                continue
        guessed[item] = labels
    return guessed


def prediction_file(project: Project, guessed: dict[Item, dict[str, Any]]) -> bytes:
    """The predictions as a researcher writes them: the item's id, each field's value as an annotation has it."""
    lines = [{"id": item.external_id, **labels} for item, labels in guessed.items()]
    return "\n".join(json.dumps(line, ensure_ascii=False) for line in lines).encode()


def same(ours: float | None, reference: float) -> bool:
    return ours is None if math.isnan(reference) else ours == pytest.approx(reference)


def check_scores(scores: dict[str, Any], level: str, truth: list[Any], guess: list[Any]) -> None:
    assert scores["n_items"] == len(truth)
    if level == "interval":
        assert scores["mae"] == pytest.approx(float(np.mean(np.abs(np.subtract(truth, guess)))))
        if np.ptp(truth) and np.ptp(guess):
            assert scores["pearson"] == pytest.approx(float(np.corrcoef(truth, guess)[0, 1]))
        return
    if level == "set":
        truth, guess = [str(sorted(v)) for v in truth], [str(sorted(v)) for v in guess]
    else:
        truth, guess = [str(v) for v in truth], [str(v) for v in guess]
    assert scores["accuracy"] == pytest.approx(accuracy_score(truth, guess))
    with warnings.catch_warnings():  # sklearn warns where kappa is 0/0 (one label throughout) and gives NaN
        warnings.simplefilter("ignore")
        reference = cohen_kappa_score(truth, guess)
    assert same(scores["kappa"], reference), (scores, reference)


@pytest.mark.parametrize("slug", SLUGS)
def test_every_kind_scores_a_models_predictions_as_one_more_annotator(slug, staff_client):
    project = annotated_project(slug)
    kind = kind_of(project)
    levels = {f.name: f.level for f in kind.label_fields()}
    humans = human_labels(project)
    guessed = model_labels(project, humans)
    report = predictions_import(project=project, data=prediction_file(project, guessed), model="gpt-x-zero-shot")
    assert report.created == len(humans)
    # Label Studio's export writes them, each model's values typed as an annotation's results
    tasks = json.loads(b"".join(export_open(project=project, dataset="label_studio", fmt="json").chunks))
    predicted = [p for t in tasks for p in t["predictions"]]
    assert len(predicted) == len(humans) and {p["model_version"] for p in predicted} == {"gpt-x-zero-shot"}
    assert all(r["from_name"] in levels for p in predicted for r in p["result"]) and any(p["result"] for p in predicted)

    run = quality_run_create(project=project, overrides=SETTINGS.get(slug))
    assert run.status == "done", run.error
    assert run.report["headline"]["annotators_kept"] == 3
    section = run.report["predictions"]
    figures = section["models"]["gpt-x-zero-shot"]
    assert figures["n_items"] == len(humans)
    for name, level in levels.items():
        pairs = [
            (humans[i][name], guessed[i][name]) for i in humans if humans[i][name] is not None and name in guessed[i]
        ]
        truth, guess = [t for t, _ in pairs], [g for _, g in pairs]
        check_scores(figures["fields"][name], level, truth, guess)
    # against the answer key the items came with, where the kind has one
    gold = {item: kind.gold_labels(item.payload) for item in guessed}
    assert set(figures["gold"]) == {name for labels in gold.values() for name in labels if name in levels}
    assert bool(figures["gold"]) == (slug in WITH_GOLD)
    for name, scores in figures["gold"].items():
        pairs = [(gold[i][name], guessed[i][name]) for i in guessed if name in gold[i] and name in guessed[i]]
        check_scores(scores, levels[name], [t for t, _ in pairs], [g for _, g in pairs])
    main = section["main_field"]
    assert main == kind.label_fields()[0].name or levels[kind.label_fields()[0].name] == "set"
    assert figures["as_annotator"]["n_items"] == figures["fields"][main]["n_items"]

    page = staff_client.get(reverse("quality:report", args=[project.pk])).content.decode()
    assert 'id="predictions"' in page and "Model predictions" in page
    assert 'data-model="gpt-x-zero-shot"' in page and f'data-field="{main}"' in page


# --- never mixed into the humans' labels ----------------------------------------------------------
def human_side(project: Project, run) -> dict[str, Any]:
    """Everything of a run and the exports that comes from the humans' labels."""
    report = {key: value for key, value in run.report.items() if key != "predictions"}
    exports: dict[tuple[str, str], Any] = {}
    for dataset in offered_datasets(project):
        for fmt in dataset_formats(dataset):
            exports[(dataset, fmt)] = b"".join(export_open(project=project, dataset=dataset, fmt=fmt).chunks)
    # Label Studio's tasks carry the models' predictions in their own key, beside the annotations
    tasks = json.loads(exports.pop(("label_studio", "json")))
    exports["label_studio", "annotations"] = [{k: v for k, v in t.items() if k != "predictions"} for t in tasks]
    return {
        "report": report,
        "responses": sorted(ResponseDecision.objects.filter(run=run).values_list("response_id", "keep", "reasons")),
        "annotators": sorted(
            AnnotatorDecision.objects.filter(run=run).values_list("annotator_id", "keep", "reasons", "metrics")
        ),
        "items": sorted(ItemResult.objects.filter(run=run).values_list("item_id", "diagnostics")),
        "exports": exports,
    }


def wrong_choices(project: Project, *, every: int) -> bytes:
    """post_choice one off on every `every`-th item, right elsewhere; difficulty always "hard"."""
    lines = []
    for n, item in enumerate(Item.objects.filter(project=project).order_by("id")):
        label = item.payload["label"]
        lines.append({"id": item.external_id, "post_choice": (label + 1) % 5 if n % every == 0 else label})
        lines[-1]["difficulty"] = "difficult"
    return "\n".join(json.dumps(line) for line in lines).encode()


def test_predictions_change_nothing_of_the_humans_and_score_like_sklearn(annotated, staff_client):
    project = annotated.project
    before = human_side(project, quality_run_create(project=project))
    predictions_import(project=project, data=wrong_choices(project, every=3), model="every-third-wrong")
    predictions_import(project=project, data=wrong_choices(project, every=1), model="always-wrong")
    run = quality_run_create(project=project)
    assert human_side(project, run) == before
    assert len(before["exports"][("clean", "csv")].splitlines()) > 10  # the comparison compares something

    section = run.report["predictions"]
    assert list(section["models"]) == ["always-wrong", "every-third-wrong"]
    aggregated = {
        item_id: d["post_choice_label"]
        for item_id, d in ItemResult.objects.filter(run=run).values_list("item_id", "diagnostics")
    }
    ids = dict(Item.objects.filter(project=project).values_list("external_id", "id"))
    for model, every in (("always-wrong", 1), ("every-third-wrong", 3)):
        guessed = {
            ids[line["id"]]: line["post_choice"]
            for line in map(json.loads, wrong_choices(project, every=every).splitlines())
        }
        both = [i for i in guessed if aggregated.get(i) is not None]
        truth, guess = [aggregated[i] for i in both], [guessed[i] for i in both]
        scores = section["models"][model]["fields"]["post_choice"]
        assert scores["n_items"] == len(both) == 20
        assert scores["accuracy"] == pytest.approx(accuracy_score(truth, guess))
        assert scores["kappa"] == pytest.approx(cohen_kappa_score(truth, guess))
    assert section["models"]["every-third-wrong"]["fields"]["post_choice"]["accuracy"] == pytest.approx(13 / 20)
    # the kept humans' mean of the Annotators table's figures, to read the models beside
    kept = AnnotatorDecision.objects.filter(run=run, keep=True)
    kappas = [d.metrics["kappa_vs_majority"] for d in kept if d.metrics.get("kappa_vs_majority") is not None]
    assert section["humans"]["n_annotators"] == kept.count() == 3
    assert section["humans"]["kappa_vs_majority"] == pytest.approx(sum(kappas) / len(kappas))

    # a model imported after the run is named, to be scored by the next run
    predictions_import(project=project, data=wrong_choices(project, every=2), model="late")
    page = staff_client.get(reverse("quality:report", args=[project.pk])).content.decode()
    assert "Imported after this run, scored by the next one: late." in page
    assert 'data-model="always-wrong"' in page and 'data-model="late"' not in page
    assert 'data-model="always-wrong" data-field="post_choice" data-against="answer key"' in page
    assert section["models"]["always-wrong"]["gold"]["post_choice"]["accuracy"] == 0.0


# --- a kind's own scorer on a model's predictions -------------------------------------------------
PAIRS = 4


def test_cosimlex_scores_a_models_ratings_with_the_semeval_scorer(staff_client):
    project = project_create(name="ratings", team=TeamFactory(), kind="cosimlex")
    lines = data_file("cosimlex", "cosimlex_en.sample.csv").read_bytes().splitlines(keepends=True)
    items_import(project=project, data=b"".join(lines[: PAIRS + 1]), filename="en.csv")  # the header, 4 pairs
    chosen = list(Item.objects.filter(project=project).order_by("id"))
    order = list(dict.fromkeys(item.payload["pair"] for item in chosen))
    chosen.sort(key=lambda item: (item.payload["context"], order.index(item.payload["pair"])))  # a unit a context

    def rating(payload: dict) -> int:
        return (2 * order.index(payload["pair"]) + payload["context"]) % 7

    batch = batch_create(project=project, name="b", items=chosen, items_per_unit=PAIRS, assignments_per_unit=3)
    invite = invite_link_create(batch=batch)
    kind = kind_of(project)
    for _ in range(6):  # three raters of each context (a person rates one context of a pair)
        assignment = assignment_next(annotator=annotator_join_via_invite(invite=invite), batch=batch)
        for response in assignment.responses.select_related("item").order_by("position"):
            payload = response.item.payload
            pages = {"inspired": {"word_1": "river", "word_2": "boat"}, "rating": {"rating": str(rating(payload))}}
            while (page_slug := next_page_slug(kind, payload, response.answers)) is not None:
                form = kind.page(payload, page_slug, response.answers).form_class(
                    pages[page_slug], payload=payload, answers=response.answers
                )
                assert form.is_valid(), form.errors
                save_answer(response.pk, page_slug, form.answer())
                response.refresh_from_db()
    model = {item: rating(item.payload) + (1 if item.payload["pair"] == order[0] else 0) for item in chosen}
    lines = [json.dumps({"id": item.external_id, "rating": value}) for item, value in model.items()]
    predictions_import(project=project, data="\n".join(lines).encode(), model="rater")
    halves = [line for item, line in zip(model, lines) if item.payload["context"] == 1]
    predictions_import(project=project, data="\n".join(halves).encode(), model="one-context")
    run = quality_run_create(project=project, overrides=SETTINGS["cosimlex"])
    assert run.status == "done", run.error
    assert run.report["headline"]["annotators_kept"] == 6

    scores = run.report["predictions"]["models"]["rater"]["kind_scores"]["semeval2020"]
    by = {(i.payload["pair"], i.payload["context"]): v for i, v in model.items()}
    gold = [rating({"pair": p, "context": c}) for p in order for c in (1, 2)]  # interleaved, as the kit scores
    guess = [by[(p, c)] for p in order for c in (1, 2)]
    assert scores["pairs"] == PAIRS
    assert scores["subtask2"]["pearson"] == pytest.approx(stats.pearsonr(gold, guess).statistic)
    assert scores["subtask2"]["spearman"] == pytest.approx(stats.spearmanr(gold, guess).statistic)
    change_gold = np.array(gold[1::2]) - np.array(gold[0::2])
    change_guess = np.array(guess[1::2]) - np.array(guess[0::2])
    uncentered = change_gold @ change_guess / np.sqrt((change_gold @ change_gold) * (change_guess @ change_guess))
    assert scores["subtask1"]["uncentered_pearson"] == pytest.approx(uncentered)

    # where the kind's scorer cannot score a model, the section says why (and the run is done)
    note = run.report["predictions"]["models"]["one-context"]["kind_scores"]["note"]
    assert note.startswith("the model must rate both contexts of every pair")
    page = staff_client.get(reverse("quality:report", args=[project.pk])).content.decode()
    assert 'data-model="rater" data-scorer="semeval2020"' in page and "subtask2.pearson: " in page
