"""Adaptive batches for the tests of adaptive redundancy: one-item units of ReCAM items, and
labels (the `post` page's choice, the first label field) written as a completed save stores them."""

from __future__ import annotations

from django.utils import timezone

from annotation.models import Annotator, Assignment, Batch, Response
from annotation.services.assignments import assignment_next
from annotation.services.batches import batch_create
from annotation.services.responses import assignment_submit_if_complete
from tests.factories import AnnotatorFactory, ItemFactory, ProjectFactory


def adaptive_batch(items: int = 4, **adaptive) -> Batch:
    project = ProjectFactory()
    ItemFactory.create_batch(items, project=project)
    settings = {"adaptive": True, "min_annotators": 2, "max_annotators": 3, "target_confidence": 0.9, **adaptive}
    return batch_create(project=project, name="b", items_per_unit=1, assignments_per_unit=5, adaptive=settings)


def person(batch: Batch) -> Annotator:
    return AnnotatorFactory(project=batch.project, batch=batch)


def label(annotator: Annotator, batch: Batch, choice: int) -> Assignment:
    """The annotator takes the next unit and answers its item with `choice` (submitted)."""
    assignment = assignment_next(annotator=annotator, batch=batch)
    Response.objects.filter(assignment=assignment).update(
        answers={"post": {"choice": choice}}, completed_at=timezone.now()
    )
    assert assignment_submit_if_complete(assignment)
    return assignment


def first_item(assignment: Assignment) -> int:
    return Response.objects.get(assignment=assignment).item_id
