"""A model's labels of items, as its calls checked them (`annotation.models.ModelCall`): what
suggestions show, what adaptive redundancy counts as the model's vote, and what a model run turns
into predictions. The newest labeled call of an item wins (a later run with another prompt
replaces an earlier one's answer)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from annotation.models import ModelCall, ModelConnection


def model_labels(
    *, connection: ModelConnection | int, item_ids: Iterable[int] | None = None
) -> dict[int, dict[str, Any]]:
    """Item id -> label field -> the model's value, from the newest labeled call of each item
    (one query). `item_ids` None: every item the connection labeled."""
    calls = ModelCall.objects.filter(connection=connection, outcome=ModelCall.Outcome.LABELED)
    if item_ids is not None:
        calls = calls.filter(item_id__in=list(item_ids))
    found: dict[int, dict[str, Any]] = {}
    for item_id, labels in calls.order_by("item_id", "-created_at", "-pk").values_list("item_id", "labels"):
        found.setdefault(item_id, labels)
    return found
