"""Reads behind an annotator's pages: who the access key is, their current work, and what unit
to hand them next. Plain ORM; each function is one or two queries (tests/surveys/test_query_counts.py
keeps the hot pages small)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    FloatField,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce

from annotation.models import (
    Annotator,
    AnnotatorEstimate,
    Assignment,
    Batch,
    Item,
    ItemEstimate,
    ModelCall,
    Project,
    Response,
    Unit,
    UnitItem,
)


@dataclass(frozen=True)
class UnitProgress:
    """An assignment's first item not completed yet (None when all are) and how far it is."""

    current: Response | None
    total: int

    @property
    def done(self) -> int:
        """Items before the current one: items are shown in order, each once the one before is
        complete, so the current item's place in the unit counts those done."""
        return self.total if self.current is None else self.current.position


@dataclass(frozen=True)
class WorkState:
    """What an annotator's page needs: who they are (with project and batch), their current
    assignment in their batch (None: nothing handed out yet) and its progress."""

    annotator: Annotator
    assignment: Assignment | None
    progress: UnitProgress


def annotator_by_key(key: str) -> Annotator | None:
    """The annotator behind an access key, with project and batch."""
    return Annotator.objects.select_related("project", "batch").filter(access_key=key).first()


def current_assignment(annotator: Annotator, batch_id: int) -> Assignment | None:
    """The annotator's earliest active assignment in the batch: the one they work on."""
    return (
        Assignment.objects.filter(annotator=annotator, unit__batch_id=batch_id, status=Assignment.Status.ACTIVE)
        .order_by("id")
        .first()
    )


def with_suggestion(responses: QuerySet[Response]) -> QuerySet[Response]:
    """Responses with what their page shows of the batch's model (docs/models.md, "Suggestions
    for annotators"), read in the same query: `suggestion_mode` (the batch's `suggestions`),
    `suggestion_model` (the model's name) and `suggestion_labels` (its labels of the response's
    own item, None when the batch shows none): never another item's."""
    batch = "assignment__unit__batch__"
    # the newest labeled call of the item wins, as `selectors.model_labels` reads a model's labels
    calls = ModelCall.objects.filter(
        connection=OuterRef(batch + "model_id"), item=OuterRef("item_id"), outcome=ModelCall.Outcome.LABELED
    )
    labels = Subquery(calls.order_by("-created_at", "-pk").values("labels")[:1])
    return responses.annotate(
        suggestion_mode=F(batch + "suggestions"),
        suggestion_model=F(batch + "model__name"),
        suggestion_labels=Case(When(Q(**{batch + "suggestions": "off"}), then=Value(None)), default=labels),
    )


def unit_progress(assignment: Assignment, project: Project) -> UnitProgress:
    """The assignment's first response not completed (with its item, of `project`) and its items
    done/total: one query."""
    current = (
        with_suggestion(Response.objects.select_related("item"))
        .filter(assignment=assignment, completed_at__isnull=True)
        .order_by("position", "id")
        .first()
    )
    if current is not None:
        current.assignment = assignment
        current.item.project = project
    return UnitProgress(current, assignment.item_count)


def work_state(key: str) -> WorkState | None:
    """What the annotator's page shows: their current assignment (the earliest active one of
    their batch, with its counts and the annotator, project and batch) and its first open item:
    two queries. None for an unknown key."""
    assignment = (
        Assignment.objects.select_related("annotator__project", "annotator__batch")
        .filter(annotator__access_key=key, status=Assignment.Status.ACTIVE, unit__batch_id=F("annotator__batch_id"))
        .order_by("id")
        .first()
    )
    if assignment is None:
        annotator = annotator_by_key(key)
        return None if annotator is None else WorkState(annotator, None, UnitProgress(None, 0))
    progress = unit_progress(assignment, assignment.annotator.project)
    return WorkState(assignment.annotator, assignment, progress)


def assignment_with_progress(assignment_id: int) -> tuple[Assignment, UnitProgress] | None:
    """An assignment (with its annotator, project and unit) and its progress: two queries."""
    assignment = Assignment.objects.select_related("annotator__project", "unit").filter(pk=assignment_id).first()
    if assignment is None:
        return None
    return assignment, unit_progress(assignment, assignment.annotator.project)


def response_for_save(
    response_id: int | None, *, access_key: str | None = None, assignment_id: int | None = None
) -> Response | None:
    """The response a page posted, only if it belongs to the access key's annotator (or to the
    given assignment, in a recruiting site's frame): nobody reads or writes another's work. With
    its item with its project and its assignment, in one query."""
    if response_id is None or (access_key is None and assignment_id is None):
        return None
    mine: dict[str, object] = {"assignment__annotator__access_key": access_key} if access_key is not None else {}
    if assignment_id is not None:
        mine["assignment_id"] = assignment_id
    try:
        return with_suggestion(Response.objects.select_related("item__project", "assignment")).get(
            pk=response_id, **mine
        )
    except Response.DoesNotExist:
        return None


def annotator_assignments(annotator: Annotator, batch: Batch) -> QuerySet[Assignment]:
    """The annotator's assignments in the batch, earliest first, each with `open_items`: whether
    an item of it is not completed yet."""
    open_responses = Response.objects.filter(assignment=OuterRef("pk"), completed_at__isnull=True)
    return (
        Assignment.objects.filter(annotator=annotator, unit__batch=batch)
        .annotate(open_items=Exists(open_responses))
        .order_by("id")
    )


def units_seen_by(annotator: Annotator, *, exclusive_groups: bool) -> Q:
    """Units the annotator may not get: one holding an item they have had (in any batch of the
    project; so also every unit they were given), or, for kinds whose groups are exclusive, an item of a group they have had (the
    other context of a word pair). The batch's every-annotator unit is exempt from the
    group rule (everybody does it).

    Each rule is a plain `pk IN (subquery)` the database computes once (the few units of the few
    items the annotator had), not a test of every unit of the batch: a hand-out stays as quick
    in a batch of 20,000 units as in one of 300."""
    had_items = UnitItem.objects.filter(unit__assignments__annotator=annotator).values("item_id")
    rule = Q(pk__in=UnitItem.objects.filter(item_id__in=had_items).values("unit_id"))
    if exclusive_groups:
        groups = (
            Item.objects.filter(project_id=annotator.project_id, unit_items__unit__assignments__annotator=annotator)
            .exclude(group_key="")
            .values("group_key")
        )
        group_units = UnitItem.objects.filter(item__project_id=annotator.project_id, item__group_key__in=groups).values(
            "unit_id"
        )
        rule |= Q(pk__in=group_units, every_annotator=False)
    return rule


def holding_count() -> Count:
    """A unit's assignments that hold a slot (active, submitted or approved). The every-annotator
    units (consistency set, pilot) have no slots and count 0, so among them the earliest comes first."""
    return Count("assignments", filter=Q(assignments__status__in=Assignment.HOLDING, every_annotator=False))


def handout_order(batch: Batch) -> tuple[str, str]:
    """How units with a free slot are ranked, on the `holding_count` annotation `holding`, then by
    position. Overlap first: the unit most others hold, so a new annotator joins the people already
    on it (pairs share items from the first minutes; agreement and adjudication start at once).
    Spread: the unit fewest hold (each unit once before any twice). One ORDER BY either way: the
    hand-out stays one query whatever the batch's size."""
    return ("-holding" if batch.handout == Batch.Handout.OVERLAP else "holding", "position")


def next_unit(batch: Batch, annotator: Annotator, *, exclusive_groups: bool) -> Unit | None:
    """The unit to hand the annotator next, or None.

    The rule: first the batch's every-annotator units (consistency set, pilot) they have not had,
    in order; then, among units with a free slot (fewer holding assignments than
    `batch.slots_per_unit`), the first in the batch's `handout_order`. Never one
    `units_seen_by` forbids, which holds every unit they ever had (a unit holds its items).
    An adaptive batch narrows and reorders the same query (`adaptive_rule`).
    """
    units = (
        Unit.objects.filter(batch=batch)
        .exclude(units_seen_by(annotator, exclusive_groups=exclusive_groups))
        .annotate(holding=holding_count())
        .filter(Q(every_annotator=True) | Q(holding__lt=batch.slots_per_unit))
    )
    if batch.adaptive:
        return adaptive_rule(units, batch, annotator, "-every_annotator").first()
    return units.order_by("-every_annotator", *handout_order(batch)).first()


def next_posted_unit(batch: Batch, annotator: Annotator, *, exclusive_groups: bool) -> Unit | None:
    """``next_unit``'s rule among the units with a posting (not the every-annotator unit, whose
    items lead the person's first unit instead)."""
    units = (
        Unit.objects.filter(batch=batch, every_annotator=False)
        .exclude(assignments__annotator=annotator)
        .exclude(units_seen_by(annotator, exclusive_groups=exclusive_groups))
        .annotate(holding=holding_count())
        .filter(holding__lt=batch.slots_per_unit)
    )
    if batch.adaptive:
        return adaptive_rule(units, batch, annotator).first()
    return units.order_by(*handout_order(batch)).first()


def adaptive_rule(units: QuerySet[Unit], batch: Batch, annotator: Annotator, *first: str) -> QuerySet[Unit]:
    """Adaptive redundancy's hand-out (docs/adaptive-redundancy.md), as conditions of the same one
    query: no unit whose items are all settled (`ItemEstimate.settled`), nothing for an annotator
    the spammer rule stopped, and each unit annotated with `certainty`, the lowest posterior of
    its open items (0 for an item without an estimate yet), and `labelled`, that item's labels.
    Ordered by `first`, then:

    - `pending` (fewest first): its assignments whose labels the estimate has not seen yet (work
      in progress, or done since the last aggregation), so a unit just handed out is not handed
      out again and again while its estimate lags;
    - `closes` (first): one agreeing label of this annotator would settle it, its certainty at
      least their `AnnotatorEstimate.settles_from` and its labels one short of the minimum or
      more: a good annotator closes items on the second label, a weaker one is left the items
      that need a third anyway;
    - least certain first, then the batch's `handout_order`."""
    settled = ItemEstimate.objects.filter(batch=batch, settled=True).values("item_id")
    open_items = UnitItem.objects.filter(unit=OuterRef("pk")).exclude(item_id__in=settled)
    estimate = ItemEstimate.objects.filter(batch=batch, item_id=OuterRef("item_id"))
    least = (
        UnitItem.objects.filter(unit=OuterRef("pk"))
        .exclude(item_id__in=settled)
        .annotate(
            p=Coalesce(Subquery(estimate.values("posterior")[:1]), Value(0.0), output_field=FloatField()),
            n=Coalesce(Subquery(estimate.values("labels")[:1]), Value(0)),
        )
        .order_by("p")
    )
    mine = AnnotatorEstimate.objects.filter(batch=batch, annotator=annotator)
    closing = Coalesce(Subquery(mine.values("settles_from")[:1]), Value(2.0), output_field=FloatField())
    return (
        units.filter(Q(every_annotator=True) | Exists(open_items))
        .exclude(Exists(mine.filter(excluded=True)))
        .annotate(
            certainty=Coalesce(Subquery(least.values("p")[:1]), Value(1.0), output_field=FloatField()),
            labelled=Coalesce(Subquery(least.values("n")[:1]), Value(0)),
            pending=F("holding") - F("labelled"),
            closes=Case(
                When(certainty__gte=closing, labelled__gte=batch.min_annotators - 1, then=Value(1)),
                default=Value(0),
                output_field=IntegerField(),
            ),
        )
        .order_by(*first, F("pending").asc(), F("closes").desc(), F("certainty").asc(), *handout_order(batch))
    )


def unit_item_ids(unit: Unit) -> list[int]:
    """The unit's item ids in their order."""
    return list(UnitItem.objects.filter(unit=unit).order_by("position").values_list("item_id", flat=True))
