"""Writing the annotations an import file carries (made elsewhere: Label Studio's) as completed
annotations here, so exports, quality runs and agreement count them as any other.

Who: one Annotator per outside annotator, on the `label_studio` channel (`external_id` their
`completed_by` there: their e-mail, else their number; the same person in a later file, or in
another project, has the same `external_id`). A re-import writes only the annotations an item
does not have yet from the same person, so importing a file twice changes nothing. Where: a
closed batch (nobody is handed its work) named after the source, one unit per annotator holding
the items they annotated, their assignment submitted. A handful of bulk writes per import, however
many annotations (not a query per annotation)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone

from annotation.kinds.typed import ImportedAnnotation
from annotation.models import Annotator, Assignment, Batch, Item, Project, Response, Unit, UnitItem

#: the channel of annotators whose work came in a Label Studio file (not a recruiting channel)
IMPORTED_CHANNEL = "label_studio"
#: the closed batch an import's annotations are put in
BATCH_NAME = "Imported from Label Studio"
#: the domain of the pseudonymous e-mails annotators are exported as (`.invalid`: reserved, RFC
#: 2606, so no mail is ever sent and no real person's address is taken)
ANNOTATOR_DOMAIN = "annotators.invalid"
OWN = re.compile(rf"annotator-(\d+)@{re.escape(ANNOTATOR_DOMAIN)}")
THEIRS = re.compile(rf"label-studio-(.+)@{re.escape(ANNOTATOR_DOMAIN)}")


def annotator_email(*, annotator_id: int, external_id: str, channel: str) -> str:
    """The e-mail an annotator is exported as to Label Studio: one who came from there by their
    e-mail, that e-mail; by their number there, `label-studio-<number>@annotators.invalid` (the
    same in every project of the team); anybody else `annotator-<number here>@annotators.invalid`
    (which an import into the same project reads back as that annotator: `_done`)."""
    if channel == IMPORTED_CHANNEL and "@" in external_id:
        return external_id
    if channel == IMPORTED_CHANNEL:
        return f"label-studio-{external_id}@{ANNOTATOR_DOMAIN}"
    return f"annotator-{annotator_id}@{ANNOTATOR_DOMAIN}"


#: each outside annotator's annotations: (item id, annotation), by their id there
Work = dict[str, list[tuple[int, ImportedAnnotation]]]


@dataclass(frozen=True)
class Carried:
    """An item's annotations in the file, by the item's external id."""

    external_id: str
    annotations: tuple[ImportedAnnotation, ...]


def imported_annotations_create(*, project: Project, carried: Sequence[Carried], alias: str = "default") -> list[str]:
    """Write the annotations of `carried` (items of the project, just imported or already there)
    as completed annotations, but for those an item has from the same annotator already (a
    re-import adds only the new ones); the item's id (as imported) of each annotation written. Run inside the
    import's transaction: a failure imports nothing."""
    if not carried:
        return []
    now = timezone.now()
    items = _item_ids(project, [c.external_id for c in carried], alias)
    done = _done(project, sorted({_person(a.annotator) for c in carried for a in c.annotations}), alias)
    work: Work = {}
    for entry in carried:
        for annotation in entry.annotations:
            person = _person(annotation.annotator)
            if (items[entry.external_id], person) not in done:
                work.setdefault(person, []).append((items[entry.external_id], annotation))
    if not work:
        return []
    batch = Batch.objects.using(alias).create(
        project=project,
        name=BATCH_NAME,
        status=Batch.Status.CLOSED,
        items_per_unit=max(len(done) for done in work.values()),
        assignments_per_unit=1,
    )
    annotators = _annotators(project, batch, sorted(work), alias)
    units = _units(batch, work, alias)
    Assignment.objects.using(alias).bulk_create(
        Assignment(
            unit_id=units[person],
            annotator_id=annotators[person],
            status=Assignment.Status.SUBMITTED,
            submitted_at=max(a.completed_at or now for _item, a in done),
            item_count=len(done),
        )
        for person, done in work.items()
    )
    assignments = dict(Assignment.objects.using(alias).filter(unit__batch=batch).values_list("unit_id", "pk"))
    Response.objects.using(alias).bulk_create(
        (
            _response(assignments[units[person]], item, n, annotation, now)
            for person, done in work.items()
            for n, (item, annotation) in enumerate(done, start=1)
        ),
        batch_size=1000,
    )
    external = {pk: external_id for external_id, pk in items.items()}
    return [external[item] for done in work.values() for item, _annotation in done]


def _person(annotator: str) -> str:
    """Who an annotator of the file is: Label Studio's user `n` written by an export from here as
    `label-studio-<n>@annotators.invalid` (`annotator_email`) is user `n` again."""
    theirs = THEIRS.fullmatch(annotator)
    return theirs.group(1) if theirs else annotator


def _done(project: Project, people: list[str], alias: str) -> set[tuple[int, str]]:
    """(item id, outside annotator) of the annotations of these people the project has; one
    exported from here (`annotator_email`) has the annotations of that annotator of the project."""
    found: set[tuple[int, str]] = set()
    own = {int(m.group(1)): person for person in people if (m := OWN.fullmatch(person))}
    if own:
        rows = Response.objects.using(alias).filter(
            item__project=project, assignment__annotator_id__in=list(own), completed_at__isnull=False
        )
        found.update((item, own[who]) for item, who in rows.values_list("item_id", "assignment__annotator_id"))
    for start in range(0, len(people), 2000):
        rows = Response.objects.using(alias).filter(
            item__project=project,
            assignment__annotator__channel=IMPORTED_CHANNEL,
            assignment__annotator__external_id__in=people[start : start + 2000],
        )
        found.update(rows.values_list("item_id", "assignment__annotator__external_id"))
    return found


def _units(batch: Batch, work: Work, alias: str) -> dict[str, int]:
    """A unit per annotator, holding the items they annotated in the file's order: its id by person."""
    people = sorted(work)
    Unit.objects.using(alias).bulk_create(Unit(batch=batch, position=n) for n in range(1, len(people) + 1))
    positions = Unit.objects.using(alias).filter(batch=batch).values_list("position", "pk")
    units = {people[position - 1]: pk for position, pk in positions}
    UnitItem.objects.using(alias).bulk_create(
        UnitItem(unit_id=units[person], item_id=item, position=n)
        for person in people
        for n, (item, _annotation) in enumerate(work[person], start=1)
    )
    return units


def _item_ids(project: Project, external_ids: list[str], alias: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for start in range(0, len(external_ids), 2000):  # an IN list of bounded size on every database
        chunk = external_ids[start : start + 2000]
        rows = Item.objects.using(alias).filter(project=project, external_id__in=chunk)
        found.update(rows.values_list("external_id", "pk"))
    return found


def _annotators(project: Project, batch: Batch, people: list[str], alias: str) -> dict[str, int]:
    """Each outside annotator's Annotator id, made for those the project does not know yet."""
    known = Annotator.objects.using(alias).filter(project=project, channel=IMPORTED_CHANNEL)
    found = dict(known.filter(external_id__in=people).values_list("external_id", "pk"))
    new = [p for p in people if p not in found]
    if new:
        Annotator.objects.using(alias).bulk_create(
            Annotator(project=project, channel=IMPORTED_CHANNEL, external_id=p, batch=batch) for p in new
        )
        found.update(known.filter(external_id__in=new).values_list("external_id", "pk"))
    return found


def _response(assignment: int, item: int, position: int, annotation: ImportedAnnotation, now: datetime) -> Response:
    """A completed response; the annotation's seconds are its last page's time (an outside tool
    times the annotation as a whole)."""
    done = annotation.completed_at or now
    pages = list(annotation.answers)
    timings: dict[str, dict[str, Any]] = {
        page: {"shown_at": None, "saved_at": done.isoformat(), "seconds": None} for page in pages
    }
    if pages and annotation.seconds is not None:
        timings[pages[-1]]["seconds"] = round(annotation.seconds, 3)
    if pages and annotation.updated_at is not None:  # kept for a later export's `updated_at`
        timings[pages[-1]]["saved_at"] = annotation.updated_at.isoformat()
    return Response(
        assignment_id=assignment,
        item_id=item,
        position=position,
        answers=dict(annotation.answers),
        timings=timings,
        completed_at=done,
    )
