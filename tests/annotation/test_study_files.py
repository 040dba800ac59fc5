"""Issue 27: a batch's study file (docs/study-checks.md) is read like a task file: every mistake
named with its key path and line, the questions of the task file's types, checked answers."""

from __future__ import annotations

import io

import pytest

from annotation.studies import NO_STUDY, StudyFileError, build
from tests.conftest import data_file

STUDY = data_file("studies", "reading_study.yaml").read_text(encoding="utf-8")


def problems(text: str) -> list[str]:
    with pytest.raises(StudyFileError) as caught:
        build(text)
    return [str(p) for p in caught.value.problems]


def test_the_fixture_reads_as_a_study():
    study = build(STUDY)
    assert study.consent.startswith("Your answers are used") and study.consent_title == "Taking part"
    assert study.before_work
    check = study.comprehension
    assert check is not None and check.attempts == 2 and check.questions.ids == ("many_answers", "look_up")
    assert check.questions.marks({"many_answers": "no", "look_up": "yes"}, check.answers) == {
        "many_answers": True,
        "look_up": False,
    }
    assert study.exit_survey is not None and study.exit_survey.ids == ("difficulty", "remarks")


def test_an_empty_file_is_no_study_and_json_works_too():
    assert build("") is NO_STUDY and build("  \n") is NO_STUDY and not NO_STUDY.before_work
    study = build('{"consent": {"text": "ok"}}')
    assert study.consent == "ok" and study.comprehension is None and study.exit_survey is None


def test_the_default_is_two_attempts():
    text = STUDY.replace("  attempts: 2\n", "")
    assert build(text).comprehension.attempts == 2


def test_an_exit_survey_alone_holds_no_work():
    study = build("exit_survey:\n  questions:\n    - {id: age, type: number, prompt: Age?}\n")
    assert not study.before_work and study.exit_survey is not None


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("  attempts: 2", "  attempts: 5"), "line 9, comprehension.attempts: 5 is greater than the maximum of 3"),
        (("consent:", "consnt:"), "unknown key 'consnt'"),
        (('    look_up: "no"', '    look_up: "maybe"'), "line 23, comprehension.answers.look_up: 'maybe' is not one"),
        (
            ('    look_up: "no"', '    look_up: "no"\n    colour: red'),
            "comprehension.answers.colour: no question 'colour'",
        ),
        (('    many_answers: "no"\n', ""), "comprehension.questions[0].id: no expected answer for 'many_answers'"),
        (("      type: likert", "      type: radio"), "exit_survey.questions[0].type: 'radio' is not one of"),
        (
            ("    - id: look_up", "    - id: many_answers"),
            "line 17, comprehension.questions[1].id: question id 'many_answers' is used twice",
        ),
    ],
)
def test_each_mistake_is_named_with_its_line_and_key(change, expected):
    old, new = change
    assert old in STUDY
    found = problems(STUDY.replace(old, new, 1))
    assert any(expected in p for p in found), found


def test_questions_that_need_an_item_are_refused():
    text = (
        "exit_survey:\n  questions:\n"
        "    - {id: pick, type: single_choice, prompt: Which?, options_from: options}\n"
        "    - {id: marks, type: spans, prompt: Mark, source: text}\n"
    )
    found = problems(text)
    assert any("exit_survey.questions[0].options_from: 'options_from' refers to an item" in p for p in found), found
    assert any("exit_survey.questions[1].type: a spans question needs an item's text" in p for p in found), found


def test_not_yaml_says_where():
    assert problems("consent: [unclosed\n")[0].startswith("line 2: not valid YAML or JSON")


def test_training_and_attention_read_with_their_defaults():
    study = build("training:\n  intro: Two to practise.\n  items: [a1, a2]\nattention:\n  rate: 0.2\n")
    assert study.training.items == ("a1", "a2") and study.training.intro == "Two to practise."
    assert study.attention.rate == 0.2 and study.attention.stop_below is None and study.attention.after == 3
    assert not study.before_work  # practice and checks hold no work
    found = problems("attention:\n  rate: 0.7\ntraining:\n  items: []\n")
    assert any("attention.rate: 0.7 is greater than the maximum of 0.5" in p for p in found), found
    assert any("training.items: [] should be non-empty" in p for p in found), found


@pytest.mark.django_db
def test_create_batch_takes_a_study_file_and_names_its_mistake(tmp_path):
    from django.core.management import CommandError, call_command

    from annotation.models import Batch
    from tests.factories import ItemFactory, ProjectFactory

    project = ProjectFactory()
    ItemFactory.create_batch(2, project=project)
    good, bad = tmp_path / "study.yaml", tmp_path / "bad.yaml"
    good.write_text(STUDY, encoding="utf-8")
    bad.write_text("consent:\n  txt: hi\n", encoding="utf-8")
    call_command("create_batch", str(project.pk), "--name", "with steps", "--study", str(good), stdout=io.StringIO())
    assert build(Batch.objects.get(name="with steps").study).consent.startswith("Your answers are used")
    with pytest.raises(CommandError, match="line 2, consent.txt: unknown key 'txt'"):
        call_command("create_batch", str(project.pk), "--name", "bad", "--study", str(bad), stdout=io.StringIO())
    assert not Batch.objects.filter(name="bad").exists()
