"""Task files: the file's mistakes named by key path and line; the kind built from it; import,
pages, rules, columns, label fields and quality without code."""

import json
from pathlib import Path

import pandas as pd
import pytest

from annotation.kinds import TaskFileError, kind_of, task_file_kind, task_file_words_change
from annotation.kinds.base import ImportProblem
from annotation.models import Project
from annotation.services.projects import project_create, project_task_file_change
from tests.annotation.test_task_file_questions import TYPES
from tests.factories import TeamFactory

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "task_files"
READING = (FIXTURES / "before_reading.yaml").read_text(encoding="utf-8")
RECORD = {
    "id": "q1",
    "question": "The @ is red",
    "passage": "A long passage about the sky.",
    "options": ["cat", "dog", "sky"],
    "candidates": ["A.", "B.", "C."],
    "label": "sky",
}

SMALL = """title: Sentiment
item:
  required: [text]
  show:
    - key: text
      as: markdown
pages:
  - id: rate
    questions:
      - id: sentiment
        type: single_choice
        prompt: How does it feel?
        options: [positive, negative]
        gold: gold
        label: nominal
"""


def problems(text: str) -> list[str]:
    with pytest.raises(TaskFileError) as caught:
        task_file_kind(text)
    return [str(p) for p in caught.value.problems]


# --- mistakes: key path and line ---------------------------------------------------------------
def test_a_wrong_type_is_named_by_key_path_and_yaml_line():
    text = SMALL.replace("type: single_choice", "type: radio")
    assert problems(text) == [
        "line 11, pages[0].questions[0].type: 'radio' is not one of ['single_choice', 'multiple_choice', "
        "'likert', 'slider', 'number', 'short_text', 'long_text', 'spans', 'sentences']"
    ]


def test_an_unknown_key_is_named_with_the_keys_known_there():
    text = SMALL.replace("        gold: gold\n", "        gold: gold\n        colour: red\n")
    (found,) = problems(text)
    assert found.startswith("line 15, pages[0].questions[0].colour: unknown key 'colour'; known keys here: ")
    assert "options_from" in found


def test_references_a_schema_cannot_check_are_named_too():
    text = READING.replace("reveal_after: guess", "reveal_after: gues").replace(
        "{question: first_choice, not_equals", "{question: second_choices, not_equals"
    )
    found = problems(text)
    assert "line 12, item.show[1].reveal_after: no page 'gues'; pages: guess, read, fill" in found
    assert any(
        p.startswith("line 42, pages[1].questions[2].show_if.question: no earlier question 'second_choices'")
        for p in found
    )


def test_schema_and_reference_mistakes_are_named_at_once():
    """Issue 36: the reference mistakes appeared only once the schema's were fixed."""
    text = SMALL.replace("        gold: gold\n", "        gold: gold\n        colour: red\n").replace(
        "        label: nominal\n", "        label: nominal\n        show_if: {question: nowhere, equals: x}\n"
    )
    found = problems(text)
    assert len(found) == 2, found
    assert found[0].startswith("line 15, pages[0].questions[0].colour: unknown key 'colour'")
    assert (
        found[1] == "line 17, pages[0].questions[0].show_if.question: no earlier question 'nowhere'; earlier ones: none"
    )


def test_a_file_too_far_out_of_shape_for_its_references_gets_the_schemas_problems():
    found = problems(SMALL.split("pages:")[0] + "pages: nothing\n")
    assert found == ["line 7, pages: 'nothing' is not of type 'array'"]


def test_a_level_that_does_not_fit_the_type_is_refused():
    text = SMALL.replace("label: nominal", "label: interval")
    assert problems(text) == [
        "line 15, pages[0].questions[0].label: a single_choice question's labels are nominal or ordinal, not interval"
    ]


def test_json_files_get_lines_too_and_broken_yaml_names_its_line():
    assert problems('{"title": "T",\n "item": {"show": [{"key": "text"}]},\n "pages": []}') == [
        "line 3, pages: [] should be non-empty"
    ]
    assert problems("title: T\nitem: [1,\n") == [
        "line 3: not valid YAML or JSON: expected the node content, but found '<stream end>'"
    ]


@pytest.mark.django_db
def test_a_project_with_a_bad_file_is_not_created():
    team = TeamFactory()
    with pytest.raises(TaskFileError):
        project_create(name="p", team=team, task_file=SMALL.replace("pages:", "pagez:"))
    assert not Project.objects.exists()


# --- the kind ----------------------------------------------------------------------------------
def test_columns_label_fields_and_settings_come_from_the_file():
    kind = task_file_kind(READING)
    assert kind.title == "Answer before you read"
    assert kind.annotation_columns() == [
        "first_choice",
        "first_choice_correct",
        "second_choice",
        "second_choice_correct",
        "sure",
        "why",
        "blank_1",
        "blank_2",
    ]
    fields = {f.name: (f.level, f.order) for f in kind.label_fields()}
    assert fields == {
        "first_choice": ("nominal", None),
        "second_choice": ("nominal", None),
        "sure": ("ordinal", (1, 2, 3, 4, 5)),
    }
    assert {"min_gold_accuracy", "too_fast_seconds", "min_annotator_kappa"} <= set(kind.settings_for(None))


def test_reveal_keeps_the_passage_back_and_locks_the_pages_before_it():
    kind = task_file_kind(READING)
    pages = kind.pages(RECORD, {})
    assert [(p.slug, p.locks) for p in pages] == [("guess", True), ("read", False), ("fill", False)]
    before = kind.page_context(RECORD, pages[0], {})
    assert [s["key"] for s in before["shown"]] == ["question"]
    answers = {"guess": {"first_choice": "cat"}}
    after = kind.page_context(RECORD, kind.page(RECORD, "read", answers), answers)
    assert [s["key"] for s in after["shown"]] == ["question", "passage"]


def test_use_once_refuses_an_option_chosen_for_two_questions():
    kind = task_file_kind(READING)
    answers = {"guess": {"first_choice": "cat"}, "read": {"second_choice": "sky", "sure": 3, "why": None}}
    page = kind.page(RECORD, "fill", answers)
    twice = page.form_class({"blank_1": "A.", "blank_2": "A."}, payload=RECORD, answers=answers)
    assert not twice.is_valid() and "already used" in str(twice.errors["blank_2"])
    once = page.form_class({"blank_1": "A.", "blank_2": "C."}, payload=RECORD, answers=answers)
    assert once.is_valid() and once.answer() == {"blank_1": "A.", "blank_2": "C."}


def test_a_question_hidden_by_an_earlier_answer_is_not_asked():
    text = READING.replace('not_equals: "x"', "equals: dog")
    kind = task_file_kind(text)
    for first, asked in (("dog", True), ("cat", False)):
        answers = {"guess": {"first_choice": first}}
        form = kind.page(RECORD, "read", answers).form_class({}, payload=RECORD, answers=answers)
        assert ("why" in form.fields) is asked


def test_a_page_with_show_if_is_skipped_once_its_condition_is_decided():
    text = READING.replace(
        "    title: Fill the blanks\n", "    title: Fill the blanks\n    show_if: {question: sure, in: [4, 5]}\n"
    )
    kind = task_file_kind(text)
    assert [p.slug for p in kind.pages(RECORD, {})] == ["guess", "read", "fill"]  # undecided: counted in
    unsure = {"guess": {"first_choice": "cat"}, "read": {"second_choice": "sky", "sure": 2}}
    assert [p.slug for p in kind.pages(RECORD, unsure)] == ["guess", "read"]
    sure = {"guess": {"first_choice": "cat"}, "read": {"second_choice": "sky", "sure": 5}}
    assert [p.slug for p in kind.pages(RECORD, sure)] == ["guess", "read", "fill"]


def test_gold_columns_compare_as_text():
    kind = task_file_kind(READING)
    row = kind.annotation_row(RECORD, {"guess": {"first_choice": "cat"}, "read": {"second_choice": "sky"}})
    assert (row["first_choice_correct"], row["second_choice_correct"]) == (False, True)
    unlabeled = {k: v for k, v in RECORD.items() if k != "label"}
    assert kind.annotation_row(unlabeled, {"guess": {"first_choice": "cat"}})["first_choice_correct"] is None


def test_words_are_shown_in_the_projects_language():
    from django.utils import translation

    kind = task_file_kind(READING)
    with translation.override("de"):
        page = kind.pages(RECORD, {})[0]
        form = page.form_class(payload=RECORD, answers={})
        assert (str(page.title), form.fields["first_choice"].label) == (
            "Vor dem Lesen",
            "Welches Wort füllt die Lücke?",
        )
    with translation.override("hr"):
        assert str(kind.pages(RECORD, {})[0].title) == "Before reading"


# --- import --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        '{"id": "a", "question": "q", "passage": "p", "options": ["x", "y"], "candidates": ["c", "d"]}\n{"id": "b", "question": "q", "passage": "p", "options": ["x", "y"], "candidates": ["c", "d"]}\n',
        '[\n  {"id": "a", "question": "q", "passage": "p", "options": ["x", "y"], "candidates": ["c", "d"]},\n  {"id": "b", "question": "q", "passage": "p", "options": ["x", "y"], "candidates": ["c", "d"]}\n]',
        'id,question,passage,options,candidates\na,q,p,"[""x"", ""y""]","[""c"", ""d""]"\nb,q,p,"[""x"", ""y""]","[""c"", ""d""]"\n',
        'id\tquestion\tpassage\toptions\tcandidates\na\tq\tp\t["x", "y"]\t["c", "d"]\nb\tq\tp\t["x", "y"]\t["c", "d"]\n',
    ],
    ids=["jsonl", "json-array", "csv", "tsv"],
)
def test_items_import_from_each_format(text):
    items = task_file_kind(READING).parse(text)
    assert [i.external_id for i in items] == ["a", "b"]
    assert items[1].payload["options"] == ["x", "y"]


@pytest.mark.parametrize(
    ("text", "line", "field"),
    [
        (
            '{"id": "a", "question": "q", "passage": "p", "options": ["x", "y"], "candidates": ["c", "d"]}\n{"id": "b", "question": "q", "options": ["x", "y"], "candidates": ["c", "d"]}\n',
            2,
            "passage",
        ),
        (
            '[\n  {"id": "a", "question": "q", "passage": "p", "options": ["x", "y"], "candidates": ["c", "d"]},\n  {"id": "b", "question": "q", "passage": "p", "options": "x", "candidates": ["c", "d"]}\n]',
            3,
            "options",
        ),
        ("id,question,passage,options,candidates\na,q,,[],[]\n", 2, "passage"),
        ('{"question": "q", "passage": "p", "options": ["x", "y"], "candidates": ["c", "d"]}\n', 1, "id"),
    ],
    ids=["jsonl-missing", "array-not-a-list", "csv-empty", "no-id"],
)
def test_a_bad_record_names_its_line_and_key(text, line, field):
    with pytest.raises(ImportProblem) as caught:
        task_file_kind(READING).parse(text)
    assert (caught.value.line, caught.value.field) == (line, field)


# --- quality -------------------------------------------------------------------------------------
def frame(rows):
    base = {"completed": True, "seconds": 30.0, "second_choice_correct": None}
    return pd.DataFrame([{**base, **row} for row in rows])


def test_quality_drops_annotators_below_the_gold_accuracy_with_reasons():
    kind = task_file_kind(READING)
    rows = frame(
        [
            {"response_id": 1, "annotator_id": 10, "item_id": 1, "first_choice_correct": True},
            {"response_id": 2, "annotator_id": 10, "item_id": 2, "first_choice_correct": True, "seconds": 2.0},
            {"response_id": 3, "annotator_id": 11, "item_id": 1, "first_choice_correct": False},
            {"response_id": 4, "annotator_id": 11, "item_id": 2, "first_choice_correct": True},
        ]
    )
    outcome = kind.quality(rows, {"min_gold_accuracy": 0.75})
    assert outcome.responses["keep"].to_dict() == {1: True, 2: True, 3: False, 4: False}
    assert outcome.responses.at[4, "reasons"] == [
        "annotator dropped: accuracy 50.0% on 2 gold answers is below the minimum of 75%"
    ]
    assert outcome.annotators["accuracy"].to_dict() == {10: 1.0, 11: 0.5}
    assert outcome.summary["dropped_low_accuracy_annotator"] == 2 and outcome.summary["mean_annotator_accuracy"] == 0.75
    off = kind.quality(rows, kind.settings_for(None))
    assert off.responses["keep"].all()


# --- changing the file ---------------------------------------------------------------------------
def test_words_may_change_but_rules_may_not():
    reworded = READING.replace("Which word fills the blank?", "Which word goes in the gap?").replace(
        "Not at all", "Not sure at all"
    )
    assert task_file_words_change(READING, reworded) is None
    no_keys = READING.replace(
        "        use_once: candidates\n", "        use_once: candidates\n        shortcuts: false\n", 1
    )
    assert task_file_words_change(READING, no_keys) is None  # which key answers is presentation
    assert task_file_words_change(READING, READING.replace("size: 5", "size: 7")) == (
        "pages[1].questions[1].size changes from 5 to 7"
    )
    assert task_file_words_change(READING, READING.replace("label: ordinal", "label: interval")) == (
        "pages[1].questions[1].label changes from 'ordinal' to 'interval'"
    )


@pytest.mark.django_db
def test_a_project_with_answers_refuses_a_change_of_rules(recam_free_work):
    project, response = recam_free_work
    reworded = READING.replace("Before reading", "Before you read")
    assert project_task_file_change(project=project, text=reworded).task_file == reworded
    with pytest.raises(ValueError, match="may change only in its words.*size changes from 5 to 3"):
        project_task_file_change(project=project, text=reworded.replace("size: 5", "size: 3"))
    project.refresh_from_db()
    assert project.task_file == reworded
    assert kind_of(project).title == "Answer before you read"


@pytest.fixture
def recam_free_work():
    """A task-file project with one started response."""

    from annotation.models import Response
    from annotation.services.assignments import assignment_next
    from annotation.services.batches import batch_create
    from annotation.services.imports import items_import
    from tests.factories import AnnotatorFactory

    project = project_create(name="p", team=TeamFactory(), task_file=READING)
    items_import(project=project, data=(json.dumps(RECORD) + "\n").encode(), filename="items.jsonl")
    batch = batch_create(project=project, name="b", items_per_unit=1, assignments_per_unit=1)
    assignment = assignment_next(annotator=AnnotatorFactory(project=project, batch=batch), batch=batch)
    response = Response.objects.get(assignment=assignment)
    Response.objects.filter(pk=response.pk).update(answers={"guess": {"first_choice": "cat"}})
    return project, response


def test_the_report_plots_each_label_fields_answers():
    kind = task_file_kind(READING)
    rows = pd.DataFrame(
        [
            {"first_choice": "cat", "second_choice": "sky", "sure": 4},
            {"first_choice": "dog", "second_choice": "sky", "sure": 2},
        ]
    )
    plots = {p.name: p for p in kind.report_plots(rows)}
    assert set(plots) == {"answers_first_choice", "answers_second_choice", "answers_sure"}
    assert (plots["answers_first_choice"].x, plots["answers_first_choice"].y) == (("cat", "dog"), (1, 1))
    assert (plots["answers_sure"].x, plots["answers_sure"].y) == (("2", "4"), (1, 1))  # the scale's order


def test_a_table_cell_no_database_stores_alike_is_named():
    with pytest.raises(ImportProblem) as caught:
        task_file_kind(READING).parse(
            'id,question,passage,options,candidates\na,q\x00,p,"[""x"", ""y""]","[""c"", ""d""]"\n'
        )
    assert (caught.value.line, caught.value.field) == (2, "question")


def test_an_item_without_the_options_or_text_a_question_needs_is_refused_at_import():
    with pytest.raises(ImportProblem) as caught:
        task_file_kind(READING).parse('{"id": "a", "question": "q", "passage": "p", "options": ["x", "y"]}\n')
    assert caught.value.field == "candidates"  # the blanks take their options from it
    with pytest.raises(ImportProblem) as caught:
        task_file_kind(TYPES).parse('{"text": "Ada", "story": ""}\n')
    assert caught.value.field == "story"
