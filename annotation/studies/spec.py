"""A batch's study file (YAML or JSON) as frozen data: the consent text, the comprehension check
with its expected answers and number of attempts, and the exit survey. The questions are the
task file's types; every mistake is named with its key path and line, as in a task file."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import jsonschema

from annotation.kinds import (
    Located,
    QuestionSet,
    TaskFileError,
    TaskFileProblem,
    item_key_problems,
    question_set,
    read_checked_data,
    task_file_schema,
)

SCHEMA_PATH = Path(__file__).with_name("schema.json")
KeyPath = tuple[str | int, ...]
#: Prolific's rule: a comprehension check gives two attempts
DEFAULT_ATTEMPTS = 2
#: live quality judges a person only after this many check answers (one wrong answer in two is luck)
DEFAULT_AFTER = 3


class StudyFileError(TaskFileError):
    """A study file that cannot be used; `problems` lists each mistake with its path and line."""


@dataclass(frozen=True)
class Comprehension:
    questions: QuestionSet
    answers: Mapping[str, Any]
    attempts: int = DEFAULT_ATTEMPTS


@dataclass(frozen=True)
class Training:
    """Practice items (check items, by external id) answered before the work, each followed by
    its expected answer and explanation; never counted for or against anybody."""

    items: tuple[str, ...]
    intro: str = ""


@dataclass(frozen=True)
class Attention:
    """Check items mixed into the work at `rate` (a share of each assignment's items); with
    `stop_below`, live quality stops a person whose share of right check answers falls below it
    once `after` checks are answered."""

    rate: float
    stop_below: float | None = None
    after: int = DEFAULT_AFTER


@dataclass(frozen=True)
class StudySpec:
    consent_title: str = ""
    consent: str = ""
    comprehension: Comprehension | None = None
    exit_survey: QuestionSet | None = None
    attention: Attention | None = None
    training: Training | None = None
    #: the file as plain data (what the docs and the API show)
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def before_work(self) -> bool:
        """Whether anything is asked before the first item (work is held until it is passed)."""
        return bool(self.consent) or self.comprehension is not None


NO_STUDY = StudySpec()


@cache
def _validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    schema["$defs"] = task_file_schema()["$defs"]
    return jsonschema.Draft202012Validator(schema)


def build(text: str) -> StudySpec:
    """The study of a file's text (empty: no study); raises StudyFileError naming every problem."""
    if not text.strip():
        return NO_STUDY
    try:
        located = read_checked_data(text, _validator())
    except TaskFileError as exc:
        raise StudyFileError(exc.problems) from None
    data = located.data
    problems = _problems(data, located)
    if problems:
        raise StudyFileError(problems)
    consent = data.get("consent") or {}
    check = data.get("comprehension")
    survey = data.get("exit_survey")
    attention = data.get("attention")
    training = data.get("training")
    return StudySpec(
        consent_title=consent.get("title", ""),
        consent=consent.get("text", ""),
        comprehension=None
        if check is None
        else Comprehension(
            questions=question_set("comprehension", check["questions"], intro=check.get("intro", "")),
            answers=check["answers"],
            attempts=check.get("attempts", DEFAULT_ATTEMPTS),
        ),
        exit_survey=None
        if survey is None
        else question_set("exit_survey", survey["questions"], intro=survey.get("intro", "")),
        attention=None
        if attention is None
        else Attention(
            rate=float(attention["rate"]),
            stop_below=None if attention.get("stop_below") is None else float(attention["stop_below"]),
            after=int(attention.get("after", DEFAULT_AFTER)),
        ),
        training=None
        if training is None
        else Training(items=tuple(str(i) for i in training["items"]), intro=training.get("intro", "")),
        data=data,
    )


@lru_cache(maxsize=256)
def study_of_text(text: str) -> StudySpec:
    """`build`, once per text (a batch's pages read it at every step)."""
    return build(text)


def _problems(data: Mapping[str, Any], located: Located) -> list[TaskFileProblem]:
    problems: list[TaskFileProblem] = []
    for section in ("comprehension", "exit_survey"):
        questions = (data.get(section) or {}).get("questions") or []
        seen: set[str] = set()
        for index, question in enumerate(questions):
            path: KeyPath = (section, "questions", index)
            if question["id"] in seen:
                problems.append(located.problem((*path, "id"), f"question id {question['id']!r} is used twice"))
            seen.add(question["id"])
            for key, message in item_key_problems(question):
                problems.append(located.problem((*path, key), message))
            if "show_if" in question:
                problems.append(located.problem((*path, "show_if"), "a study's questions are all asked"))
    check = data.get("comprehension")
    if check is not None:
        problems.extend(_answer_problems(check, located))
    return problems


def _answer_problems(check: Mapping[str, Any], located: Located) -> list[TaskFileProblem]:
    """Every question has its expected answer, and every answer is one the question can be given."""
    problems = []
    questions = {q["id"]: q for q in check["questions"]}
    answers = check["answers"]
    for index, (qid, question) in enumerate(questions.items()):
        if qid not in answers:
            problems.append(
                located.problem(("comprehension", "questions", index, "id"), f"no expected answer for {qid!r}")
            )
            continue
        if question["type"] in ("long_text",):
            problems.append(
                located.problem(("comprehension", "answers", qid), "a long text answer has no single right answer")
            )
        allowed = _allowed_values(question)
        given = answers[qid] if isinstance(answers[qid], list) else [answers[qid]]
        wrong = [v for v in given if allowed is not None and str(v) not in allowed]
        if wrong:
            problems.append(
                located.problem(
                    ("comprehension", "answers", qid),
                    f"{wrong[0]!r} is not one of the question's options ({', '.join(sorted(allowed or ()))})",
                )
            )
    for qid in answers:
        if qid not in questions:
            known = ", ".join(questions)
            problems.append(located.problem(("comprehension", "answers", qid), f"no question {qid!r}; known: {known}"))
    return problems


def _allowed_values(question: Mapping[str, Any]) -> set[str] | None:
    if question["type"] in ("single_choice", "multiple_choice"):
        return {
            str(o.get("value", i) if isinstance(o, Mapping) else o) for i, o in enumerate(question.get("options") or [])
        }
    if question["type"] == "likert":
        return {str(i) for i in range(1, int(question["size"]) + 1)}
    return None
