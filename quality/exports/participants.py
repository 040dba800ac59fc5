"""The `participants` dataset: one row per annotator and batch with a study file, saying what the
study asked them and how they answered (consent, each comprehension attempt, the exit survey).

Columns are declared once, from the project's study files (not from the rows): per attempt up to
the most any study allows, and one `exit_<question id>` per exit question of any study, so an
export without answers still has its header. A step the batch's study does not ask is None."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from annotation.models import Participation, Project
from annotation.selectors.study import batch_participations, study_batches, study_participant_count
from annotation.studies import StudySpec

from .base import EXACT, Dataset, Options

IDENTITY_COLUMNS = ["annotator_id", "annotator", "channel", "batch_id", "batch", "steps"]
STEP_COLUMNS = ["consent", "consent_at", "comprehension", "attempts", "comprehension_at"]
EXIT_TIME = "exit_survey_at"
EXIT_PREFIX = "exit_"
#: the study's steps as the `steps` column names them
CONSENT, COMPREHENSION, EXIT_SURVEY = "consent", "comprehension", "exit_survey"


def attempt_columns(n: int) -> list[str]:
    """Per attempt: whether it passed, and the ids of the questions answered wrong."""
    return [column for k in range(1, n + 1) for column in (f"attempt_{k}_passed", f"attempt_{k}_wrong")]


def study_steps(study: StudySpec) -> list[str]:
    steps = [CONSENT] if study.consent else []
    steps += [COMPREHENSION] if study.comprehension is not None else []
    return steps + ([EXIT_SURVEY] if study.exit_survey is not None else [])


def exit_question_ids(studies: list[StudySpec]) -> list[str]:
    """The exit survey's question ids of every study, each once, in the order first asked."""
    ids = (qid for study in studies if study.exit_survey is not None for qid in study.exit_survey.ids)
    return list(dict.fromkeys(ids))


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def participant_row(p: Participation, study: StudySpec, *, max_attempts: int, exit_ids: list[str]) -> dict[str, Any]:
    """The row of one person in one batch; every declared column, in order."""
    row: dict[str, Any] = {
        "annotator_id": p.annotator_id,
        "annotator": p.annotator.external_id,
        "channel": p.annotator.channel,
        "batch_id": p.batch_id,
        "batch": p.batch.name,
        "steps": " ".join(study_steps(study)),
        "consent": p.consent if study.consent else None,
        "consent_at": _time(p.consent_at),
    }
    asked = study.comprehension is not None
    row.update(
        {
            "comprehension": p.comprehension if asked else None,
            "attempts": len(p.attempts) if asked else None,
            "comprehension_at": _time(p.comprehension_at),
        }
    )
    for k in range(max_attempts):
        attempt = p.attempts[k] if k < len(p.attempts) else None
        row[f"attempt_{k + 1}_passed"] = None if attempt is None else attempt.get("passed")
        wrong = None if attempt is None else [q for q, right in (attempt.get("correct") or {}).items() if not right]
        row[f"attempt_{k + 1}_wrong"] = wrong
    row[EXIT_TIME] = _time(p.exit_at)
    answers = p.exit_answers or {}
    row.update({f"{EXIT_PREFIX}{qid}": answers.get(qid) for qid in exit_ids})
    return row


def participants(project: Project, options: Options = EXACT) -> Dataset:
    """Everybody who reached a batch's study steps (also who left the first step unanswered),
    with their consent, comprehension outcome and attempts, and exit answers. No quality run is
    needed: nothing of it is a quality decision (who declined or failed did no work)."""
    batches = study_batches(project)
    studies = [study for _, study in batches]
    max_attempts = max((s.comprehension.attempts for s in studies if s.comprehension is not None), default=0)
    exit_ids = exit_question_ids(studies)
    exit_columns = [EXIT_TIME] + [f"{EXIT_PREFIX}{qid}" for qid in exit_ids]
    columns = IDENTITY_COLUMNS + STEP_COLUMNS + attempt_columns(max_attempts) + exit_columns

    def rows() -> Iterator[dict[str, Any]]:
        for batch, study in batches:
            for p in batch_participations(batch):
                yield participant_row(p, study, max_attempts=max_attempts, exit_ids=exit_ids)

    return Dataset("participants", lambda: list(columns), rows, lambda: study_participant_count(project))
