"""Read queries shared by views, admin, API, quality runs and exports."""
from __future__ import annotations

import json
import queue
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from itertools import islice
from operator import itemgetter, methodcaller
from typing import Any, Callable, Iterator, Sequence

import orjson
from django.conf import settings
from django.core.exceptions import EmptyResultSet
from django.db import connection, connections, transaction
from django.db.models import Count, F, Func, IntegerField, Max, Min, Q, QuerySet, Subquery, TextField
from django.db.models.functions import Cast
from django.urls import reverse
from django.utils.dateparse import parse_datetime

from annotation.kinds import TaskKind, get_kind
from annotation.models import Annotator, Assignment, Batch, Item, Project, Response

_orjson_loads = orjson.loads

BASE_ANNOTATION_COLUMNS = [
    "response_id", "item_id", "external_id", "annotator_id", "annotator", "channel",
    "batch_id", "unit_id", "assignment_id", "assignment_status", "completed", "completed_at", "seconds",
]


def annotation_columns(project: Project) -> list[str]:
    return BASE_ANNOTATION_COLUMNS + get_kind(project.kind).annotation_columns()


def annotation_rows(
    project: Project, *, response_ids: QuerySet | None = None, chunk_size: int = 2000
) -> Iterator[dict[str, Any]]:
    """Every response of the project flattened to `annotation_columns(project)`, streamed.

    Hot path of exports and quality runs; `_ResponseReader` says what keeps it fast.
    """
    reader = _ResponseReader(project, response_ids)
    if not reader.fast:
        yield from _rows_via_orm(project, reader.kind, response_ids, chunk_size)
        return
    row_of, loads, seconds_of, iso = reader.kind.annotation_row, _loads, reader.seconds_of, reader.iso
    with _streaming_read():
        items = reader.items()
        for chunk in reader.chunks(chunk_size):
            for rid, item_id, aid, aext, channel, batch_id, unit_id, asg_id, status, done, answers, timings in chunk:
                ext, payload = items[item_id]
                done_at = None if done is None else iso(done)
                row = {
                    "response_id": rid, "item_id": item_id, "external_id": ext, "annotator_id": aid,
                    "annotator": aext, "channel": channel, "batch_id": batch_id, "unit_id": unit_id,
                    "assignment_id": asg_id, "assignment_status": status, "completed": done_at is not None,
                    "completed_at": done_at, "seconds": seconds_of(timings),
                }
                row.update(row_of(payload, loads(answers)))
                yield row


def annotation_value_chunks(
    project: Project, *, response_ids: QuerySet | None = None, chunk_size: int = 2000
) -> Iterator[list[tuple[Any, ...]]]:
    """`annotation_rows` as tuples of cells in `annotation_columns(project)` order, in lists of
    up to `chunk_size`: what a CSV writer takes (`writerows`), without a dict per row.

    The cells are exactly those a writer picks by column name from `annotation_rows`: a kind
    row with keys beyond its columns (which would override a base column of the same name) is
    merged as a dict first, and a kind whose columns repeat or shadow the base columns goes
    through `annotation_rows` itself.
    """
    reader = _ResponseReader(project, response_ids)
    if not _value_path(reader):
        pick = itemgetter(*BASE_ANNOTATION_COLUMNS, *reader.kind.annotation_columns())
        rows = annotation_rows(project, response_ids=response_ids, chunk_size=chunk_size)
        while chunk := list(islice(rows, chunk_size)):
            yield list(map(pick, chunk))
        return
    with _streaming_read():
        items = reader.items()
        for chunk in reader.chunks(chunk_size):
            yield _value_rows(reader, items, chunk)


def _value_path(reader: "_ResponseReader") -> bool:
    """Whether the kind's cells can be picked straight from the driver's rows (`_value_rows`)."""
    own_columns = reader.kind.annotation_columns()
    width = len(own_columns)
    return (reader.fast and width >= 2 and len(set(own_columns)) == width
            and set(own_columns).isdisjoint(BASE_ANNOTATION_COLUMNS))


def annotation_id_bounds(project: Project, *, response_ids: QuerySet | None = None) -> tuple[int, int] | None:
    """(lowest, highest + 1) of the ids `annotation_value_spans` would read, or None when it
    cannot read this project's rows span by span (or there are none)."""
    reader = _ResponseReader(project, response_ids)
    if not _value_path(reader):
        return None
    if response_ids is None and reader.vendor == "sqlite" and _holds_most_items(project):
        # the project's rows are most of the table (as `_ResponseReader.items` decides): the
        # table's ends bound them, read from the primary key at once, where a MIN/MAX over the
        # project's rows reads all of them (0.9 s at 1M)
        queryset = Response.objects.all()
    else:
        queryset = reader.queryset()
    try:
        bounds = queryset.order_by().aggregate(low=Min("id"), high=Max("id"))
    except EmptyResultSet:
        return None
    return None if bounds["low"] is None else (bounds["low"], bounds["high"] + 1)


def _holds_most_items(project: Project) -> bool:
    shares = Item.objects.aggregate(mine=Count("id", filter=Q(project=project)), all=Count("id"))
    return shares["mine"] >= _SCAN_SHARE * shares["all"]


def annotation_value_spans(
    project: Project, spans: Sequence[tuple[int, int]], *, response_ids: QuerySet | None = None,
    chunk_size: int = 2000,
) -> Iterator[tuple[int, list[tuple[Any, ...]]]]:
    """`annotation_value_chunks` of the responses with low <= id < high, span by span, as
    (span's index, chunk) pairs; the items are read once for all spans. Only where
    `annotation_id_bounds` gave bounds; the caller reads in one transaction if the spans must
    share a snapshot (each span is one statement)."""
    reader = _ResponseReader(project, response_ids)
    items = reader.items()
    for index, span in enumerate(spans):
        for chunk in reader.chunks(chunk_size, span):
            yield index, _value_rows(reader, items, chunk)


def _value_rows(
    reader: _ResponseReader, items: dict[int, tuple[str, dict[str, Any]]], chunk: list[tuple[Any, ...]]
) -> list[tuple[Any, ...]]:
    """The driver's rows (`_ResponseReader.chunks`) as cells in column order, for a kind whose
    own columns are unique and apart from the base ones (see `annotation_value_chunks`)."""
    own_columns = reader.kind.annotation_columns()
    pick = itemgetter(*BASE_ANNOTATION_COLUMNS, *own_columns)
    own_cells = itemgetter(*own_columns)
    width = len(own_columns)
    row_of, loads, seconds_of, iso = reader.kind.annotation_row, _loads, reader.seconds_of, reader.iso
    out: list[tuple[Any, ...]] = []
    append = out.append
    for rid, item_id, aid, aext, channel, batch_id, unit_id, asg_id, status, done, answers, timings in chunk:
        ext, payload = items[item_id]
        own = row_of(payload, loads(answers))
        done_at = None if done is None else iso(done)
        base = (rid, item_id, ext, aid, aext, channel, batch_id, unit_id, asg_id, status,
                done_at is not None, done_at, seconds_of(timings))
        if len(own) == width:  # its keys are then exactly own_columns (else own_cells raises)
            append(base + own_cells(own))
        else:
            row = dict(zip(BASE_ANNOTATION_COLUMNS, base))
            row.update(own)
            append(pick(row))
    return out


class _ResponseReader:
    """What the two readers above share, so that per row they do only what differs per row:

    * each item's external id and the payload keys the kind's row reads (`row_payload_keys`)
      are read once per item into a dict keyed by item id (one query; small entries, never
      the passages), instead of being joined into every row;
    * rows come from the driver as they are, through a server-side cursor on PostgreSQL as
      with `QuerySet.iterator()`, without Django's per-row converters; answers arrive as JSON
      text decoded with orjson; `completed_at` as an aware datetime (PostgreSQL) or as the
      text SQLite stores, which becomes the ISO string of the datetime Django would read;
    * timings: PostgreSQL sends only the pages' seconds (`jsonb_path_query_array`, in the
      order of the object's keys, as `timings::text` lists them): printing the whole object
      cost it ~5 µs a row; SQLite's JSON functions are slower than orjson, so there Python
      reads the object (and sums as before: same values, same order);
    * PostgreSQL makes the next chunk while Python turns this one into rows: a thread
      fetches one chunk ahead (`_prefetched`; psycopg2 lets go of the GIL while it waits).
      Not on SQLite, which works in this process and lets go of the GIL at every row: a
      reading thread there waits for the GIL row by row (measured: 15% slower);
    * the Response query filters on the project's item ids, a subquery rather than a join on
      item__project: SQLite would sort the whole join before the first row (measured: 172 s
      to the first byte at 1M rows, 3 s with the subquery). When the project holds a good
      part of the database's items, SQLite is kept off the item_id index too: it then reads
      the table in id order instead of sorting the project's rows first (`_SCAN_SHARE`).

    `fast` is False for kinds that read the whole payload (`row_payload_keys` None) and on
    other databases: those rows are read through the ORM (`_rows_via_orm`).
    """

    def __init__(self, project: Project, response_ids: QuerySet | None):
        self.kind = get_kind(project.kind)
        self.project = project
        self.response_ids = response_ids
        self.connection = connections[Response.objects.db]
        self.vendor = self.connection.vendor
        self.fast = self.kind.row_payload_keys is not None and self.vendor in ("sqlite", "postgresql")
        self.scan = False
        # Aware datetimes in UTC: what Django reads on both when USE_TZ is on and the
        # connection's TIME_ZONE is not set.
        self.utc = settings.USE_TZ and self.connection.timezone_name == "UTC"
        if self.vendor == "sqlite":
            self.iso = self._sqlite_iso if self.utc else self._sqlite_iso_as_django
            self.seconds_of = _seconds_of
        else:
            self.iso = _pg_iso if self.utc else datetime.isoformat
            self.seconds_of = _seconds_of_list

    def items(self) -> dict[int, tuple[str, dict[str, Any]]]:
        sqlite = self.vendor == "sqlite"
        items = _ItemLookup(self.project, self.kind.row_payload_keys, count_all=sqlite)
        self.scan = sqlite and len(items) >= _SCAN_SHARE * items.in_database
        return items

    def queryset(self, span: tuple[int, int] | None = None) -> QuerySet:
        item_ids = Item.objects.filter(project=self.project).values("id")
        if self.scan:  # `+item_id IN (...)`: SQLite uses no index for it
            queryset = Response.objects.alias(
                _item_id=Func(F("item_id"), template="+%(expressions)s", output_field=IntegerField())
            ).filter(_item_id__in=item_ids)
        else:
            queryset = Response.objects.filter(item_id__in=item_ids)
        if self.response_ids is not None:
            queryset = queryset.filter(pk__in=self.response_ids)
        if span is not None:
            queryset = queryset.filter(pk__gte=span[0], pk__lt=span[1])
        if self.vendor == "sqlite":
            # Cast, or sqlite3 itself would parse the column declared datetime (slowly).
            done, answers, timings = Cast("completed_at", TextField()), F("answers"), F("timings")
        else:
            done, answers = F("completed_at"), Cast("answers", TextField())
            if self.utc:  # the UTC wall time as text: cheaper than a datetime and its isoformat()
                done = Func(F("completed_at"), template=_PG_UTC_TEXT, output_field=TextField())
            timings = Func(F("timings"), template="jsonb_path_query_array(%(expressions)s, '$.*.seconds')::text",
                           output_field=TextField())
        # annotated in the order listed, after the fields: the same column order on both
        return queryset.annotate(_done=done, _answers=answers, _timings=timings).order_by("id").values_list(
            "id", "item_id", "assignment__annotator_id", "assignment__annotator__external_id",
            "assignment__annotator__channel", "assignment__unit__batch_id", "assignment__unit_id",
            "assignment_id", "assignment__status", "_done", "_answers", "_timings",
        )

    def chunks(self, chunk_size: int, span: tuple[int, int] | None = None) -> Iterator[list[tuple[Any, ...]]]:
        """The rows as the driver returns them, up to chunk_size at a time (call items() first);
        `span`: only ids low <= id < high."""
        try:
            sql, params = self.queryset(span).query.get_compiler(connection=self.connection).as_sql()
        except EmptyResultSet:  # e.g. response_ids=[]
            return
        server_side = not self.connection.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS")
        cursor = self.connection.chunked_cursor() if server_side else self.connection.cursor()
        try:
            cursor.execute(sql, params)
            if self.vendor == "postgresql":
                with self.connection.wrap_database_errors:
                    yield from _prefetched(cursor.cursor.fetchmany, chunk_size)
            else:
                while rows := cursor.fetchmany(chunk_size):
                    yield rows
        finally:
            cursor.close()

    def _sqlite_iso(self, text: str) -> str | None:
        # Django stores str() of the naive UTC datetime: "YYYY-MM-DD HH:MM:SS.ffffff", without
        # the fraction when it is zero. isoformat() of the aware datetime it reads back is the
        # same text with a T and +00:00; anything else is read the way Django reads it.
        if len(text) == 26 and text[10] == " " and text[19] == "." and text[20:] != "000000":
            return f"{text[:10]}T{text[11:]}+00:00"
        if len(text) == 19 and text[10] == " ":
            return f"{text[:10]}T{text[11:]}+00:00"
        return self._sqlite_iso_as_django(text)

    def _sqlite_iso_as_django(self, text: str) -> str | None:
        """sqlite3's converter (parse_datetime; None when it does not parse), then the
        backend's (made aware in the connection's time zone), then isoformat()."""
        value = parse_datetime(text)
        if value is None:
            return None
        return self.connection.ops.convert_datetimefield_value(value, None, self.connection).isoformat()


_PG_UTC_TEXT = """to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')"""


def _pg_iso(text: str) -> str:
    """isoformat() of the aware UTC datetime, from its wall time as _PG_UTC_TEXT prints it
    (which has the microseconds always; isoformat() leaves them out when they are 0)."""
    return f"{text[:19]}+00:00" if text.endswith(".000000") else f"{text}+00:00"


#: SQLite reads the whole response table in id order when the project holds at least this
#: share of the database's items (reading other projects' rows then costs less than sorting
#: all of its own: ~3 s and a temporary copy of every row at 1M); else it uses the item_id
#: index and sorts.
_SCAN_SHARE = 0.25


class _ItemLookup(dict):
    """item id -> (external id, {payload key: value}), the values exactly as `payload__<key>`
    lookups read them (None left out, as a missing key). Built in one query; an item imported
    after it (while an export runs) is read when a response first refers to it.

    `in_database`: how many items the database holds, all projects (with `count_all`; else 0).
    """

    def __init__(self, project: Project, keys: tuple[str, ...], *, count_all: bool = False):
        super().__init__()
        self.keys = keys
        self.fields = ("id", "external_id", *[f"payload__{key}" for key in keys])
        items = Item.objects.filter(project=project)
        if count_all:  # one uncorrelated subquery, evaluated once: no query of its own
            count = Func(F("id"), function="COUNT", output_field=IntegerField())
            items = items.annotate(_in_database=Subquery(Item.objects.order_by().values(n=count)))
        self.in_database = 0
        fields = (*self.fields, "_in_database") if count_all else self.fields
        for values in items.values_list(*fields).iterator(chunk_size=2000):
            if count_all:
                *values, self.in_database = values
            self._add(values)

    def _add(self, values: list[Any] | tuple[Any, ...]) -> None:
        item_id, external_id, *payload_values = values
        payload = {key: value for key, value in zip(self.keys, payload_values) if value is not None}
        self[item_id] = (external_id, payload)

    def __missing__(self, item_id: int) -> tuple[str, dict[str, Any]]:
        for values in Item.objects.filter(pk=item_id).values_list(*self.fields):
            self._add(values)
        return self[item_id]


def _prefetched(fetch: Callable[[int], list[Any]], size: int, depth: int = 2) -> Iterator[list[Any]]:
    """fetch(size) until it returns nothing, one chunk ahead in a thread, so that the database
    server makes the next chunk while the caller turns this one into rows. At most `depth`
    chunks wait; closing the generator stops the thread (after the fetch under way)."""
    ready: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(value: Any) -> None:
        while not stop.is_set():
            try:
                ready.put(value, timeout=0.1)
                return
            except queue.Full:
                continue

    def run() -> None:
        try:
            while not stop.is_set():
                rows = fetch(size)
                put(rows)
                if not rows:
                    return
        except BaseException as exc:  # handed to the reader, raised there
            put(_Failed(exc))

    thread = threading.Thread(target=run, name="export-prefetch", daemon=True)
    thread.start()
    try:
        while True:
            rows = ready.get()
            if isinstance(rows, _Failed):
                raise rows.exc
            if not rows:
                return
            yield rows
    finally:
        stop.set()
        thread.join()


@dataclass(frozen=True)
class _Failed:
    exc: BaseException


def _rows_via_orm(
    project: Project, kind: TaskKind, response_ids: QuerySet | None, chunk_size: int
) -> Iterator[dict[str, Any]]:
    """`annotation_rows` through the ORM, the item joined into every row: for kinds that read
    the whole payload (`row_payload_keys` None) and for databases other than these two."""
    qs = Response.objects.filter(item_id__in=Item.objects.filter(project=project).values("id"))
    if response_ids is not None:
        qs = qs.filter(pk__in=response_ids)
    keys = kind.row_payload_keys
    payload_fields = ["item__payload"] if keys is None else [f"item__payload__{key}" for key in keys]
    qs = qs.annotate(_answers=Cast("answers", TextField()), _timings=Cast("timings", TextField()))
    fields = (
        "id", "item_id", "item__external_id", "assignment__annotator_id",
        "assignment__annotator__external_id", "assignment__annotator__channel", "assignment__unit__batch_id",
        "assignment__unit_id", "assignment_id", "assignment__status", "completed_at", "_answers", "_timings",
        *payload_fields,
    )
    width = len(fields) - len(payload_fields)
    with _streaming_read():
        for values in qs.order_by("id").values_list(*fields).iterator(chunk_size=chunk_size):
            (rid, item_id, ext, aid, aext, channel, batch_id, unit_id, asg_id, status, done_at,
             answers, timings) = values[:width]
            if keys is None:
                payload = values[width]
            else:
                payload = {key: value for key, value in zip(keys, values[width:]) if value is not None}
            row = {
                "response_id": rid, "item_id": item_id, "external_id": ext, "annotator_id": aid,
                "annotator": aext, "channel": channel, "batch_id": batch_id, "unit_id": unit_id,
                "assignment_id": asg_id, "assignment_status": status, "completed": done_at is not None,
                "completed_at": done_at.isoformat() if done_at else None,
                "seconds": _seconds_of(timings),
            }
            row.update(kind.annotation_row(payload, _loads(answers)))
            yield row


@contextmanager
def _streaming_read() -> Iterator[None]:
    """On PostgreSQL a server-side cursor outside a transaction is declared WITH HOLD and the
    whole result is built before the first row; inside one, rows stream. SQLite's transactions
    take the write lock (IMMEDIATE), so there the read runs in autocommit."""
    if connection.vendor == "postgresql" and connection.get_autocommit():
        with transaction.atomic():
            yield
    else:
        yield


def _loads(text: str) -> Any:
    """json.loads, with orjson where it can (2-3x faster here). orjson refuses a few things
    json reads (NaN, Infinity, lone surrogates), which then go to json. It reads integers
    beyond 64 bits as floats: answers and timings never hold those (page forms store small
    choices, ratings and offsets; timings store float seconds)."""
    try:
        return _orjson_loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def _seconds_of(timings: str) -> float | None:
    """Total seconds over the pages timed, from the JSON text of {page: {..., "seconds": s}}."""
    return _total_seconds(list(map(_page_seconds, _loads(timings).values())))


def _seconds_of_list(seconds: str) -> float | None:
    """The same from the JSON text of the pages' seconds alone, in page order."""
    return _total_seconds(_loads(seconds))


_page_seconds = methodcaller("get", "seconds")


def _total_seconds(seconds: list[Any]) -> float | None:
    if None in seconds:
        seconds = [value for value in seconds if value is not None]
    return round(sum(seconds), 3) if seconds else None


def batch_progress(batch: Batch) -> dict[str, int]:
    """Slots filled, submitted and in progress, for the admin and the API (the consistency
    unit, done by everyone, has no slots and is not counted)."""
    units = batch.units.filter(every_annotator=False).count()
    by_status = dict(
        Assignment.objects.filter(unit__batch=batch, unit__every_annotator=False)
        .values_list("status")
        .annotate(n=Count("id"))
        .order_by()
    )
    return {
        "units": units,
        "slots": units * batch.assignments_per_unit,
        "active": by_status.get(Assignment.Status.ACTIVE, 0),
        "submitted": by_status.get(Assignment.Status.SUBMITTED, 0)
        + by_status.get(Assignment.Status.APPROVED, 0)
        + by_status.get(Assignment.Status.REJECTED, 0),
        "released": by_status.get(Assignment.Status.RELEASED, 0),
    }


def batches_with_progress(queryset: QuerySet | None = None) -> QuerySet:
    """Batches annotated with `batch_progress`'s counts: one query however many batches a
    list shows (admin changelist, API list)."""
    qs = Batch.objects.all() if queryset is None else queryset
    done = (Assignment.Status.SUBMITTED, Assignment.Status.APPROVED, Assignment.Status.REJECTED)

    def count(*statuses: str) -> Count:
        return Count(
            "units__assignments",
            filter=Q(units__assignments__status__in=statuses, units__every_annotator=False),
            distinct=True,
        )

    return qs.annotate(
        progress_units=Count("units", filter=Q(units__every_annotator=False), distinct=True),
        progress_active=count(Assignment.Status.ACTIVE),
        progress_submitted=count(*done),
        progress_released=count(Assignment.Status.RELEASED),
    )


def progress_of(batch: Batch) -> dict[str, int]:
    """`batch_progress` read from `batches_with_progress` annotations when present."""
    if not hasattr(batch, "progress_units"):
        return batch_progress(batch)
    return {
        "units": batch.progress_units,
        "slots": batch.progress_units * batch.assignments_per_unit,
        "active": batch.progress_active,
        "submitted": batch.progress_submitted,
        "released": batch.progress_released,
    }


def invite_url(token: str, *, base_url: str) -> str:
    """The absolute address an invited annotator opens (the surveys app's entry page)."""
    return base_url.rstrip("/") + reverse("surveys:invite", args=[token])
