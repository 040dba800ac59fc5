"""The "Study steps" of the report, the headline's participation lines and the dataset card's:
per batch with a study file, who saw which step and how they answered it.

Read from the participations when the page is shown, not stored with a quality run: the steps
are no input of a run (nobody's work is dropped for them: who declined or failed did none), they
change while a batch runs, and they matter before any run exists."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from annotation.models import Participation, Project
from annotation.naming import annotator_name
from annotation.selectors.study import ENDED_WORDS, batch_participations, study_batches, study_step
from annotation.studies import StudySpec

#: the per-annotator table of a batch shows this many people (the count says how many there are)
PEOPLE_SHOWN = 50


@dataclass
class BatchSteps:
    """One batch's counts. `reached`: everybody who entered it (they saw its first step)."""

    batch_id: int
    batch: str
    consent_asked: bool
    check_asked: bool
    exit_asked: bool
    reached: int = 0
    agreed: int = 0
    declined: int = 0
    no_consent_answer: int = 0
    passed_first: int = 0
    passed_later: int = 0
    failed: int = 0
    check_pending: int = 0
    attempts_total: int = 0
    checked: int = 0
    exit_answered: int = 0
    #: whose part the study ended (declined, failed, stopped by live quality): never rejected, and
    #: listed here, not among the annotators
    ended: int = 0
    stopped: int = 0
    people: list[dict[str, Any]] = field(default_factory=list)

    @property
    def mean_attempts(self) -> float | None:
        """Mean attempts of those who answered the check at least once."""
        return self.attempts_total / self.checked if self.checked else None

    @property
    def check_reached(self) -> int:
        """Who got to the comprehension check (consented, where consent is asked)."""
        return self.passed_first + self.passed_later + self.failed + self.check_pending

    @property
    def took_part(self) -> int:
        """Who was let through to the work: consented (if asked) and passed the check (if asked)."""
        return self.reached - self.declined - self.failed - self.no_consent_answer - self.check_pending


def _reached_check(steps: BatchSteps, p: Participation) -> bool:
    """Whether the person got to the comprehension check: it is asked, and consent (if asked) was given."""
    return steps.check_asked and (not steps.consent_asked or p.consent == Participation.Consent.AGREED)


def _count(steps: BatchSteps, p: Participation) -> None:
    steps.reached += 1
    if steps.consent_asked:
        steps.agreed += p.consent == Participation.Consent.AGREED
        steps.declined += p.consent == Participation.Consent.DECLINED
        steps.no_consent_answer += p.consent == Participation.Consent.NOT_ASKED
    if _reached_check(steps, p):
        used = len(p.attempts)
        passed = p.comprehension == Participation.Check.PASSED
        steps.passed_first += passed and used == 1
        steps.passed_later += passed and used > 1
        steps.failed += p.comprehension == Participation.Check.FAILED
        steps.check_pending += not p.comprehension
        steps.attempts_total += used
        steps.checked += used > 0
    steps.exit_answered += p.exit_at is not None


def _outcome(steps: BatchSteps, p: Participation) -> str:
    if _reached_check(steps, p):
        return str(p.get_comprehension_display())
    return "not reached" if steps.check_asked else "—"


def batch_steps(batch_id: int, name: str, study: StudySpec, people: list[Participation]) -> BatchSteps:
    steps = BatchSteps(
        batch_id=batch_id,
        batch=name,
        consent_asked=bool(study.consent),
        check_asked=study.comprehension is not None,
        exit_asked=study.exit_survey is not None,
    )
    ends = {p.annotator_id: ENDED_WORDS.get(study_step(p, study, work_left=True), "") for p in people}
    for p in people:
        _count(steps, p)
        steps.ended += bool(ends[p.annotator_id])
        steps.stopped += ends[p.annotator_id] == ENDED_WORDS["stopped"]
    steps.people = [
        {
            "annotator": annotator_name(p.annotator_id, p.annotator.external_id),
            "channel": p.annotator.channel,
            "consent": p.get_consent_display() if steps.consent_asked else "—",
            "attempts": len(p.attempts) if _reached_check(steps, p) else "—",
            "outcome": _outcome(steps, p),
            "exit": "yes" if p.exit_at else "no",
            "ended": ends[p.annotator_id] or "—",
        }
        for p in people[:PEOPLE_SHOWN]
    ]
    return steps


def project_study_steps(project: Project) -> list[BatchSteps]:
    """Each batch with a study file, oldest first, with its counts and first people."""
    return [batch_steps(b.pk, b.name, study, batch_participations(b)) for b, study in study_batches(project)]


def study_headline(batches: list[BatchSteps]) -> dict[str, int]:
    """Over all batches with a study: who reached the steps, who took part (went on to the work),
    who declined the consent and who failed the comprehension check."""
    return {
        "reached": sum(b.reached for b in batches),
        "took_part": sum(b.took_part for b in batches),
        "declined": sum(b.declined for b in batches),
        "failed": sum(b.failed for b in batches),
    }


def study_headline_rows(headline: dict[str, int]) -> list[tuple[str, Any]]:
    if not headline["reached"]:
        return []
    return [
        ("Study steps: reached / took part", f"{headline['reached']} / {headline['took_part']}"),
        (
            "Study steps: declined consent / failed the comprehension check",
            f"{headline['declined']} / {headline['failed']}",
        ),
    ]


def study_steps_context(project: Project) -> dict[str, Any]:
    """Template context: the section's batches, and the headline's participation rows."""
    batches = project_study_steps(project)
    return {
        "study_steps": batches,
        "study_headline_rows": study_headline_rows(study_headline(batches)),
        "study_people_shown": PEOPLE_SHOWN,
    }
