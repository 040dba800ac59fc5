"""Running a kind's scorers (`TaskKind.scorers()`) for `manage.py score` and the scores API: the
project's results as a scorer reads them, and one entry point that checks the options. It writes
nothing: scoring reads a finished quality run."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from annotation.kinds import NothingToScore, ProjectResults, ResultItem, ScoreProblem, Scorer, TaskKind, kind_of
from annotation.kinds.scoring import options_filled, scorer_named
from annotation.models import Item, Project
from quality.models import ItemResult, QualityRun
from quality.prediction_selectors import project_predictions
from quality.selectors import latest_run


class StoredProjectResults(ProjectResults):
    """A project's latest finished quality run (or the `run` given), read on first use."""

    def __init__(self, project: Project, run: QualityRun | None = None):
        self.project = project
        self.label = f"project {project.pk}: {project.name}"
        self._run: QualityRun | None = run

    def run(self) -> QualityRun:
        if self._run is None:
            self._run = latest_run(self.project)
            if self._run is None:
                raise NothingToScore("the project has no finished quality run yet: run quality first")
        return self._run

    def summary(self) -> Mapping[str, Any]:
        return (self.run().report or {}).get("summary", {})

    def items(self) -> Iterator[ResultItem]:
        diagnostics = dict(ItemResult.objects.filter(run=self.run()).values_list("item_id", "diagnostics"))
        rows = (
            Item.objects.data().filter(project=self.project).order_by("id").values_list("id", "external_id", "payload")
        )
        for item_id, external_id, payload in rows.iterator():
            yield ResultItem(external_id, payload, diagnostics.get(item_id) or {})


def kind_scorer(kind: TaskKind, name: str) -> Scorer:
    """The kind's scorer `name`; ScoreProblem naming the kind's scorers when there is none."""
    return scorer_named(kind.scorers(), name, kind.title)


def score_run(*, kind: TaskKind, scorer: str, project: Project | None, options: Mapping[str, Any]) -> dict[str, Any]:
    """Run the kind's scorer on `options` (files as `Upload`s) and, when given, the project's
    results. Raises ScoreProblem (bad input) or NothingToScore (no run or gold to score against)."""
    chosen = kind_scorer(kind, scorer)
    results = StoredProjectResults(project) if project is not None else None
    return chosen.score(results, options_filled(chosen, options))


def model_scorer_results(run: QualityRun) -> dict[str, dict[str, Any]]:
    """model -> the kind's own scorers' results on its predictions (`TaskKind.prediction_scorers`)
    against the finished `run`; a scorer that cannot score gives {"note": why}."""
    kind = kind_of(run.project)
    results = StoredProjectResults(run.project, run)
    found: dict[str, dict[str, Any]] = {}
    for model, predicted in project_predictions(run.project, by="item__external_id").items():
        try:
            found[model] = kind.prediction_scorers(results, predicted)
        except (ScoreProblem, NothingToScore, ValueError) as exc:  # a model's scores never fail the humans' run
            found[model] = {"note": str(exc)}
    return found
