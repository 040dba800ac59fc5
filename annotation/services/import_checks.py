"""What an import refuses beyond a kind's own parsing, the same on every database: values no
database stores alike, ids too long for the table, and a record whose id is already taken by
different content (in the project, or earlier in the same file)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import models

from annotation.kinds import ImportProblem, ParsedItem
from annotation.kinds.formats import UNSTORABLE, payload_json
from annotation.models import Annotator, Item
from annotation.structured_input import value_problem

from .imported_annotations import Carried


def _max_length(name: str, model: type[models.Model] = Item) -> int:
    """The length limit of one of a model's text columns (Django's Model _meta API)."""
    field = model._meta.get_field(name)
    if not isinstance(field, models.CharField) or field.max_length is None:
        raise TypeError(f"{model.__name__}.{name} is not a CharField with a max_length")
    return field.max_length


ID_MAX = _max_length("external_id")
GROUP_MAX = _max_length("group_key")
ANNOTATOR_MAX = _max_length("external_id", Annotator)


@dataclass
class Tally:
    total: int = 0
    created: int = 0
    conflicts: int = 0
    #: annotations the file carries for the items created (written after them), and those skipped
    carried: list[Carried] = field(default_factory=list)
    skipped_annotations: int = 0
    #: keys of the file's records read as carrying no data (a Label Studio task's `allow_skip`...)
    ignored_keys: set[str] = field(default_factory=set)


def differing_fields(new: Any, old: Any) -> list[str]:
    """The payload's fields whose values differ, one level into nested objects (`reference.sim1`)."""
    if not (isinstance(new, dict) and isinstance(old, dict)):
        return [] if new == old else ["payload"]
    fields = []
    for key in sorted(set(new) | set(old)):
        a, b = new.get(key), old.get(key)
        if a == b and (key in new) == (key in old):
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            fields += [
                f"{key}.{sub}"
                for sub in sorted(set(a) | set(b))
                if a.get(sub) != b.get(sub) or (sub in a) != (sub in b)
            ]
        else:
            fields.append(key)
    return fields


def source_label(filename: str) -> str:
    """The file's name as items record it: without NUL and lone surrogates (an uploaded file's
    name is the client's to choose, and PostgreSQL refuses NUL in text)."""
    return UNSTORABLE.sub("\ufffd", filename) or "upload"


def check_item(item: ParsedItem, *, max_record_bytes: int) -> None:
    """Refuse what the kind's parser let through but a database would refuse, or store differently,
    and a record over `max_record_bytes` as stored (a runaway line would otherwise become an item)."""
    problem = value_problem(item.payload)
    if problem:
        raise ImportProblem(problem[0], line=item.line, field=problem[1])
    size = len(payload_json(item.payload))
    if size > max_record_bytes:
        raise ImportProblem(
            f"the record is {size:,} bytes, over the limit of {max_record_bytes:,} bytes per record "
            "(IMPORT_MAX_RECORD_BYTES)",
            line=item.line,
        )
    if len(item.external_id) > ID_MAX:
        raise ImportProblem(
            f"the item's id is {len(item.external_id):,} characters long; at most {ID_MAX} fit",
            line=item.line,
            field="id",
        )
    if len(item.group_key) > GROUP_MAX:
        raise ImportProblem(f"the item's group key is longer than {GROUP_MAX} characters", line=item.line)
    problem = value_problem([item.external_id, item.group_key])
    if problem:
        raise ImportProblem(problem[0], line=item.line, field="id")


def new_items(
    items: Iterable[ParsedItem], existing: Mapping[str, Any], tally: Tally, *, skip_conflicts: bool
) -> Iterator[ParsedItem]:
    """The items to create: checked, neither in the project (`existing`: id -> payload) nor earlier
    in the file. An identical duplicate is skipped; one with different content raises
    ImportProblem naming its line, id and fields, or with `skip_conflicts` is counted and skipped."""
    seen: dict[str, ParsedItem] = {}
    max_record_bytes = settings.IMPORT_MAX_RECORD_BYTES
    for item in items:
        check_item(item, max_record_bytes=max_record_bytes)
        tally.total += 1
        tally.ignored_keys |= item.ignored_keys
        earlier = seen.get(item.external_id)
        if earlier is not None:
            _compare(item, earlier.payload, f"line {earlier.line}", tally, skip_conflicts)
            continue
        seen[item.external_id] = item
        if item.external_id in existing:
            # the same item again: its annotations are merged onto it (those it has are skipped)
            if _compare(item, existing[item.external_id], "the project", tally, skip_conflicts):
                _carry(item, tally)
            continue
        tally.created += 1
        _carry(item, tally)
        yield item


def _carry(item: ParsedItem, tally: Tally) -> None:
    if item.annotations:
        _check_annotators(item)
        tally.carried.append(Carried(item.external_id, item.annotations))
    tally.skipped_annotations += item.skipped_annotations


def _check_annotators(item: ParsedItem) -> None:
    for annotation in item.annotations:
        if len(annotation.annotator) > ANNOTATOR_MAX:
            raise ImportProblem(
                f"{annotation.where[:200]}: the annotator's id is longer than {ANNOTATOR_MAX} characters",
                line=annotation.line,
                field="completed_by",
            )


def _compare(item: ParsedItem, other: Any, where: str, tally: Tally, skip_conflicts: bool) -> bool:
    """Whether the item's content is `other`'s; a conflict is refused, or skipped and counted."""
    fields = differing_fields(item.payload, other)
    if not fields:
        return True
    if skip_conflicts:
        tally.conflicts += 1
        return False
    raise ImportProblem(
        f"id {item.external_id!r} is already used in {where} by a record with different content "
        f"({', '.join(fields)} differ); change the id, or import with the option to skip such records",
        line=item.line,
        field=", ".join(fields),
    )
