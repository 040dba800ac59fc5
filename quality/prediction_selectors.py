"""Read queries of models' predictions: what a quality run scores, and what the report shows."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Count, Max

from annotation.kinds import TaskKind
from annotation.models import Item, ModelCall, ModelConnection, Project
from annotation.selectors.model_labels import model_labels
from quality.models import Prediction, QualityRun


def _connections(project: Project) -> list[ModelConnection]:
    """The model connections that labeled any of the project's items (a model run's)."""
    called = ModelCall.objects.filter(item__project=project, outcome=ModelCall.Outcome.LABELED)
    return list(ModelConnection.objects.filter(pk__in=called.values("connection_id")).order_by("name"))


def project_predictions(project: Project, *, by: str = "item_id") -> dict[str, dict[Any, dict[str, Any]]]:
    """model -> item -> the model's labels, of every model imported into the project and of every
    model connection whose run labeled its items (`model_labels`, under the connection's name); the item named
    by `by`: its number (`item_id`), or its id as imported (`item__external_id`, what a kind's
    scorer reads)."""
    found: dict[str, dict[Any, dict[str, Any]]] = {}
    rows = Prediction.objects.filter(project=project).order_by("model", "item_id")
    for model, item, labels in rows.values_list("model", by, "labels").iterator():
        found.setdefault(model, {})[item] = labels
    connections = _connections(project)
    if connections:  # a model run's labels: predictions of the connection, by its name
        ids = (
            dict(Item.objects.filter(project=project).values_list("id", by.removeprefix("item__")))
            if by != "item_id"
            else None
        )
        for connection in connections:
            labeled = model_labels(
                connection=connection, item_ids=Item.objects.filter(project=project).values_list("id", flat=True)
            )
            named = labeled if ids is None else {ids[item]: labels for item, labels in labeled.items()}
            found.setdefault(connection.name, {}).update(named)
    return found


def project_gold(project: Project, kind: TaskKind) -> dict[int, dict[str, Any]]:
    """item id -> the kind's answer key by label field (`TaskKind.gold_labels`), of the items that have one."""
    found: dict[int, dict[str, Any]] = {}
    for item_id, payload in Item.objects.data().filter(project=project).values_list("id", "payload").iterator():
        labels = kind.gold_labels(payload)
        if labels:
            found[item_id] = labels
    return found


def prediction_imports(project: Project) -> dict[str, tuple[int, datetime]]:
    """model -> (predictions, when they were imported or last labeled) of the project's models."""
    rows = Prediction.objects.filter(project=project).values("model").annotate(n=Count("id"), at=Max("imported_at"))
    found = {row["model"]: (row["n"], row["at"]) for row in rows.order_by("model")}
    calls = ModelCall.objects.filter(item__project=project, outcome=ModelCall.Outcome.LABELED)
    for row in calls.values("connection__name").annotate(n=Count("item_id", distinct=True), at=Max("created_at")):
        found.setdefault(row["connection__name"], (row["n"], row["at"]))
    return found


def run_predictions(run: QualityRun) -> dict[str, Any]:
    """The run's "predictions" section (empty when no model's predictions were imported before it)."""
    return (run.report or {}).get("predictions") or {}


def suggestion_labels(project: Project, model: str, item_ids: Any) -> dict[int, dict[str, Any]]:
    """item id -> the labels of the project's team's model named `model` (the one whose suggestions
    annotators were shown), of the items `item_ids`; empty when no such model is left."""
    connection = ModelConnection.objects.filter(team_id=project.team_id, name=model).first()
    return {} if connection is None else model_labels(connection=connection, item_ids=item_ids)


def model_run_predictions(
    project: Project, item_ids: list[int]
) -> list[tuple[int, int, str, dict[str, Any], datetime]]:
    """(call id, item id, the connection's name, labels, when) of each model connection's newest
    labeled call of each of `item_ids`: a model run's labels written where imported predictions
    are (the Label Studio export), as `project_predictions` reads them for a quality run."""
    calls = ModelCall.objects.filter(
        item__project=project, item_id__in=item_ids, outcome=ModelCall.Outcome.LABELED
    ).order_by("connection__name", "item_id", "-created_at", "-pk")
    found: dict[tuple[str, int], tuple[int, int, str, dict[str, Any], datetime]] = {}
    for pk, item_id, name, labels, at in calls.values_list("pk", "item_id", "connection__name", "labels", "created_at"):
        found.setdefault((name, item_id), (pk, item_id, name, labels, at))
    return list(found.values())
