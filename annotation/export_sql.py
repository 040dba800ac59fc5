"""Raw and clean annotation exports as CSV/TSV lines written by PostgreSQL.

Python's work per row (decode the answers, `annotation_row`, render the cells) caps the export
near 80,000 rows/s; here PostgreSQL writes every line, a chunk of lines arrives as one text
value, and Python only passes the bytes on. Two connections sharing one snapshot work on id
ranges in turn, so the server's work runs on two cores; chunks are yielded in id order, at
most AHEAD of them waiting (memory stays flat).

The bytes are those of the Python path (`annotation_value_chunks` + the delimited writer),
which stays the reference: the SQL writes a cell only where it can prove the text equal to
what Python writes, and writes UNSURE otherwise (a page answer that is not an object, a
float, an object as a value, seconds it cannot sum exactly ...). A chunk holding UNSURE is
read again and written by the Python path (which also raises where it raised before). What
the SQL knows of a kind comes from `TaskKind.annotation_sources()`; cells that depend on the
item alone are written in Python once per item (from `annotation_row(payload, {})`), the
assignment's cells by the database once per assignment, both into temporary tables.
PostgreSQL only: SQLite's JSON functions parse the text again for every value (and read
duplicate keys and surrogate escapes their own way), so there the Python path stays.
"""
from __future__ import annotations

import io
import queue
import uuid
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import psycopg2.extensions
from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.models import QuerySet

from annotation.kinds.base import AnswerIsNone, AnswerMatchesItem, AnswerValue, ColumnSource, ItemValue
from annotation.models import Annotator, Assignment, Batch, Response, Unit
from annotation import selectors

#: rows per chunk the database renders (one text value of ~300 bytes a row)
TARGET_ROWS = 8_000
#: id ranges are never wider than this, so a chunk never holds more rows (ids are unique)
MAX_ROWS = 4 * TARGET_ROWS
#: connections that render chunks at the same time (one per core the database may use)
CONNECTIONS = 2
#: chunks asked for ahead of the one being yielded
AHEAD = 4
#: numbers the SQL writes as they are: integers of at most this many characters (orjson reads
#: them as int, whose str() is the same text)
INT_CHARS = 15
#: seconds: the SQL sums at most this many values, below this total; then Python's float sum
#: and the SQL's are within 1e-8 of the exact one (see `_Sql.seconds`)
MAX_TIMED = 16
MAX_SECONDS = 1_000_000
#: what a cell holds where the SQL cannot prove its text equal to Python's: a chunk with it
#: anywhere is written by the Python path (a control character: text holding it goes that way too)
UNSURE = b"\x01"
UNSURE_SQL = "chr(1)"

Render = Callable[[list[tuple[Any, ...]]], str]


def text_chunks(
    project: Any,
    *,
    response_ids: QuerySet | Sequence[int] | None,
    delimiter: str,
    terminator: str,
    quoting: tuple[str, str, str] | None,
    render: Render,
) -> Iterator[bytes] | None:
    """The export's lines (no header), a chunk at a time as UTF-8 bytes, built by PostgreSQL;
    None where this path does not apply (another database, a kind without
    `annotation_sources`, a dialect it cannot write): the caller then uses the Python path.

    `quoting`: the characters that make csv.writer quote a cell (writers `_quoting_characters`);
    `render`: the Python path's renderer of cell tuples, for chunks the SQL leaves to it.
    """
    plan = _plan(project, response_ids, delimiter, terminator, quoting)
    if plan is None:
        return None
    return _chunks(plan, render)


# --- what the SQL can do ---------------------------------------------------------------------
@dataclass
class _Plan:
    reader: Any  # selectors._ResponseReader
    sources: list[tuple[str, ColumnSource]]
    item_columns: list[str]
    match_keys: list[str]
    delimiter: str
    terminator: str
    special: str
    kept_sql: str
    kept_params: tuple[Any, ...]


def _plan(
    project: Any, response_ids: Any, delimiter: str, terminator: str, quoting: tuple[str, str, str] | None
) -> _Plan | None:
    reader = selectors._ResponseReader(project, response_ids)
    sources = reader.kind.annotation_sources()
    own = reader.kind.annotation_columns()
    if (
        reader.vendor != "postgresql"
        or not reader.fast
        or not reader.utc
        or quoting is None
        or sources is None
        or len(own) < 2
        or len(set(own)) != len(own)
        or sorted(sources) != sorted(own)
        or not set(own).isdisjoint(selectors.BASE_ANNOTATION_COLUMNS)
    ):
        return None
    special = "".join(sorted(set(quoting)))
    if any(c in "%]\\^-\x00'" for c in special + delimiter + terminator) or '"' in special:
        return None  # characters the SQL literals and the regular expression would have to escape
    try:
        kept = _kept(response_ids)
    except EmptyResultSet:  # e.g. response_ids=[]: nothing to read
        kept = ("AND FALSE", ())
    if kept is None:
        return None
    kept_sql, kept_params = kept
    ordered = [(column, sources[column]) for column in own]
    match_keys = sorted({s.item_key for _, s in ordered if isinstance(s, AnswerMatchesItem)})
    return _Plan(
        reader=reader,
        sources=ordered,
        item_columns=[column for column, source in ordered if isinstance(source, ItemValue)],
        match_keys=match_keys,
        delimiter=delimiter,
        terminator=terminator,
        special=special,
        kept_sql=kept_sql,
        kept_params=kept_params,
    )


def _kept(response_ids: Any) -> tuple[str, tuple[Any, ...]] | None:
    """`AND r.id IN (...)` for a selection of responses (the clean dataset's kept ones); None
    where its SQL holds a literal % (this SQL's parameters are interpolated by the driver)."""
    if response_ids is None:
        return "", ()
    query = Response.objects.filter(pk__in=response_ids).values("id").query
    sql, params = query.get_compiler(using=Response.objects.db).as_sql()
    if "%" in sql.replace("%s", ""):
        return None
    return f"AND r.id IN ({sql})", tuple(params)


# --- SQL ------------------------------------------------------------------------------------
def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class _Sql:
    """The SQL of one plan: the assignments' cells, and one text of lines per id range.

    Built in levels (subqueries PostgreSQL does not flatten, `OFFSET 0`) so that each JSON
    value's text is taken out of the answers once and then only referred to (several tests
    name it). Measured in the server's CPU per row, every function call counts (~0.03-0.3 µs
    each; `translate` and long regular expressions ~1-3 µs): hence types asked only where a
    text leaves them open, strpos rather than regular expressions, one jsonpath test for the
    pages' types, float and integer arithmetic for the seconds, the assignment's seven cells
    written once per assignment, and one concat_ws for the line.
    """

    def __init__(self, plan: _Plan, table: str, exact: bool, project_id: int):
        self.plan = plan
        self.items_table = f"{table}_items"
        self.assignments_table = f"{table}_assignments"
        self.statement = f"{table}_chunk"
        self.special = '"' + plan.special  # strpos: 3x cheaper than a regular expression here
        self.exact = exact
        self.project_id = int(project_id)
        self.values = sorted({(s.page, s.key) for _, s in plan.sources if not isinstance(s, ItemValue)})
        self.pages = sorted({s.page for _, s in plan.sources if isinstance(s, AnswerIsNone)})

    def quoted(self, expr: str) -> str:
        """csv.writer's QUOTE_MINIMAL of a text: quoted, quotes doubled, when it holds a quote
        or one of the characters that make csv quote it."""
        found = " OR ".join(f"strpos({expr}, {_literal(c)}) > 0" for c in self.special)
        return f"""CASE WHEN {found} THEN '"' || replace({expr}, '"', '""') || '"' ELSE {expr} END"""

    def typed(self, k: int) -> str:
        """The JSON value itself (only where its text leaves its type open: a call more)."""
        page, key = self.values[k]
        return f"jsonb_typeof(ans #> {_literal('{' + _path(page) + ',' + _path(key) + '}')})"

    def answer_value(self, k: int) -> str:
        """Python writes a str quoted as needed, an int as is, a bool as True/False, None as
        nothing; anything else (a float, an object) is UNSURE.

        From the value's text `s` alone where that says what Python writes: no text (null or
        missing) is nothing; a text that does not open like a number, true, false, an object
        or a list (its first character: one integer test, the common case) can only be a
        str's. A text of digits, minus signs and points (a number's text is never anything
        else) without a point and short is what Python writes of the int and of the str
        alike. The type is asked for the rest.
        """
        s, typed = f"s{k}", self.typed(k)
        first = f"ascii({s})"
        return (
            f"CASE WHEN {s} IS NULL THEN ''"
            f" WHEN ({first} > 57 OR {first} BETWEEN 1 AND 44 OR {first} = 47)"
            f" AND {first} NOT IN (91, 102, 116, 123) THEN {self.quoted(s)}"
            f" WHEN ltrim({s}, '-0123456789.') = '' THEN CASE"
            f" WHEN strpos({s}, '.') = 0 AND octet_length({s}) <= {INT_CHARS} THEN {s}"
            f" WHEN {typed} = 'string' THEN {s} ELSE {UNSURE_SQL} END"
            f" WHEN {s} IN ('true', 'false') OR {first} IN (91, 123) THEN CASE {typed}"
            f" WHEN 'string' THEN {self.quoted(s)} WHEN 'boolean' THEN initcap({s}) ELSE {UNSURE_SQL} END"
            f" ELSE {self.quoted(s)} END"
        )

    @staticmethod
    def answer_is_none(page: int, k: int) -> str:
        return (
            f"CASE coalesce(p{page}, 'null') WHEN 'null' THEN ''"
            f" WHEN 'object' THEN CASE WHEN s{k} IS NULL THEN 'True' ELSE 'False' END"
            f" ELSE {UNSURE_SQL} END"
        )

    def answer_matches(self, k: int, item_key: str) -> str:
        """Python compares the answer with the payload's value: the SQL, an int with an int."""
        item = f"m{self.plan.match_keys.index(item_key)}"
        return (
            f"CASE WHEN s{k} IS NULL OR {item} IS NULL THEN ''"
            f" WHEN strpos(s{k}, '.') = 0 AND octet_length(s{k}) <= {INT_CHARS} AND {self.typed(k)} = 'number'"
            f" THEN CASE WHEN s{k} = {item} THEN 'True' ELSE 'False' END ELSE {UNSURE_SQL} END"
        )

    @staticmethod
    def total() -> str:
        """The float sum of the seconds array `sa`, where its text `st` holds nulls and
        non-negative numbers only (inside its brackets no character but digits, points, commas,
        spaces and the letters of null: no string, boolean, nested value or minus sign), none of them
        long enough to overflow a double (the text is short), at most MAX_TIMED of them; else
        NULL. See seconds()."""
        branches = " ".join(
            f"WHEN {n} THEN " + " + ".join(f"coalesce((sa ->> {i})::float8, 0)" for i in range(n))
            for n in range(1, MAX_TIMED + 1)
        )
        return (f"CASE WHEN octet_length(st) >= 300 OR st !~ '^\\[[0-9., nul]*\\]$' THEN NULL"
                f" ELSE CASE jsonb_array_length(sa) WHEN 0 THEN 0::float8 {branches} END END")

    @staticmethod
    def seconds() -> str:
        """The seconds cell: round(sum(the pages' seconds), 3) as Python writes it, from the same
        values the Python path reads (`jsonb_path_query_array(timings, '$.*.seconds')`, text `st`).

        Only where `total` could sum them (see total()) and they sum below MAX_SECONDS; else
        UNSURE. Then:

        * no number (total 0 and no zero digit): Python writes None, nothing;
        * all integers (no point): Python sums ints, exactly, as a double does below 2**53;
        * else both float sums, Python's and `total` (same values, any order), are within 1e-8
          of the exact sum D. Where D * 1000 is not within 1e-3 of a half (a tie of rounding
          to 3 decimals; those are UNSURE), Python's round(., 3) is the double nearest
          R = D rounded to 3 decimals, R * 1000 = round(total * 1000) here, and Python's repr
          of that double is R's decimals without trailing zeros (one digit kept after the
          point; no exponent below 1e16; never -0.0 for non-negative values).
        """
        thousandths = "total * 1000"
        ms = f"round({thousandths})::bigint"
        fraction = f"CASE WHEN mod({ms}, 1000) = 0 THEN '0' ELSE rtrim(lpad(mod({ms}, 1000)::text, 3, '0'), '0') END"
        return (
            f"CASE WHEN total IS NULL OR total >= {MAX_SECONDS} THEN {UNSURE_SQL}"
            " WHEN total = 0 AND strpos(st, '0') = 0 THEN ''"
            " WHEN strpos(st, '.') = 0 THEN total::bigint::text"
            f" WHEN abs({thousandths} - floor({thousandths}) - 0.5) < 0.001 THEN {UNSURE_SQL}"
            f" ELSE ({ms} / 1000)::text || '.' || {fraction} END"
        )

    def line(self) -> str:
        """The whole line; UNSURE in it where some cell is not proven equal to Python's."""
        cells = [
            "id::text", "item_id::text", "ext", "asg",
            "CASE WHEN done IS NULL THEN 'False' ELSE 'True' END",
            # isoformat() of the aware UTC datetime from its ISO text (DateStyle ISO, see
            # _SETTINGS), which leaves out trailing zeros of the microseconds: all six, or none
            "CASE WHEN done IS NULL THEN '' WHEN octet_length(done) = 19 THEN replace(done, ' ', 'T') || '+00:00'"
            " ELSE rpad(replace(done, ' ', 'T'), 26, '0') || '+00:00' END",
            self.seconds(),
        ]
        for column, source in self.plan.sources:
            if isinstance(source, ItemValue):
                cells.append(f"c{self.plan.item_columns.index(column)}")
                continue
            k = self.values.index((source.page, source.key))
            if isinstance(source, AnswerValue):
                cells.append(self.answer_value(k))
            elif isinstance(source, AnswerIsNone):
                cells.append(self.answer_is_none(self.pages.index(source.page), k))
            else:
                cells.append(self.answer_matches(k, source.item_key))
        # concat_ws skips NULLs: every cell is coalesced, so a NULL (never expected) is UNSURE too
        body = ", ".join(f"coalesce({cell}, {UNSURE_SQL})" for cell in cells)
        return (f"CASE WHEN sure THEN concat_ws({_literal(self.plan.delimiter)}, {body})"
                f" || {_literal(self.plan.terminator)} ELSE {UNSURE_SQL} END")

    def assignments(self) -> str:
        """The assignment's cells (annotator_id ... assignment_status), rendered once for each
        of the project's assignments: a temporary table on every connection."""
        cells = ", ".join([
            "a.annotator_id::text", self.quoted("n.external_id"), self.quoted("n.channel"), "u.batch_id::text",
            "a.unit_id::text", "a.id::text", self.quoted("a.status"),
        ])
        return (
            f"CREATE TEMPORARY TABLE {self.assignments_table} ON COMMIT DROP AS"
            f" SELECT a.id, concat_ws({_literal(self.plan.delimiter)}, {cells}) AS cells"
            f" FROM {Assignment._meta.db_table} a JOIN {Annotator._meta.db_table} n ON n.id = a.annotator_id"
            f" JOIN {Unit._meta.db_table} u ON u.id = a.unit_id"
            f" WHERE u.batch_id IN (SELECT id FROM {Batch._meta.db_table} WHERE project_id = {self.project_id});"
            f" ALTER TABLE {self.assignments_table} ADD PRIMARY KEY (id); ANALYZE {self.assignments_table}"
        )

    def rows(self) -> str:
        """Level 1: the responses of [%s, %s) with what their lines need, each JSON value once."""
        response, item = Response._meta.db_table, selectors.Item._meta.db_table
        join = "JOIN" if self.exact else "LEFT JOIN"
        # exact (one snapshot, the items read after it): the item table is the project filter.
        # Else (the caller's transaction) an item made since the table was filled is not in it:
        # its lines are UNSURE and Python reads them. So is an assignment not in its table.
        project = "" if self.exact else (
            f"AND r.item_id IN (SELECT id FROM {item} WHERE project_id = {self.project_id})")
        item_cells = [f"i.c{k}" for k in range(len(self.plan.item_columns))]
        item_cells += [f"i.m{k}" for k in range(len(self.plan.match_keys))]
        pages = [f"jsonb_typeof(r.answers -> {_literal(page)}) AS p{j}" for j, page in enumerate(self.pages)]
        values = [f"r.answers #>> {_literal('{' + _path(page) + ',' + _path(key) + '}')} AS s{k}"
                  for k, (page, key) in enumerate(self.values)]
        columns = [
            "r.id", "r.item_id", "i.ext", "s.cells AS asg", *item_cells, "r.answers AS ans",
            "(r.completed_at AT TIME ZONE 'UTC')::text AS done",
            "coalesce(i.ok, false) AND s.cells IS NOT NULL AS known", *pages, *values,
            "jsonb_path_query_array(r.timings, '$.*.seconds') AS sa",
        ]
        # the assignment by a range condition: no hash of all assignments for every chunk, but a
        # lookup remembered for the next rows (Memoize), which mostly share it
        return (
            f"SELECT {', '.join(columns)} FROM {response} r {join} {self.items_table} i ON i.id = r.item_id"
            f" LEFT JOIN {self.assignments_table} s ON s.id >= r.assignment_id AND s.id <= r.assignment_id"
            f" WHERE r.id >= %s AND r.id < %s {project} {self.plan.kept_sql} OFFSET 0"
        )

    def sure(self) -> str:
        """Whether the answers are as Python reads them: an object, whose pages read are each
        an object, null or missing (Python reads `(answers.get(page) or {})` and raises on
        anything else truthy; such rows go to it). A value found under a page (a key that is
        not a number) says the page is an object; only a page with no value found is asked."""
        found: dict[str, list[str]] = {}
        for k, (page, key) in enumerate(self.values):
            found.setdefault(page, []).append("FALSE" if key.lstrip("-").isdigit() else f"s{k} IS NOT NULL")
        pages = [
            f"({' OR '.join(tests)} OR coalesce(jsonb_typeof(ans -> {_literal(page)}), 'null') IN ('object', 'null'))"
            for page, tests in found.items()
        ]
        anything = " OR ".join(test for tests in found.values() for test in tests if test != "FALSE") or "FALSE"
        return " AND ".join(["known", f"({anything} OR jsonb_typeof(ans) = 'object')", *pages])

    def chunk(self) -> str:
        """The lines of [%s, %s) as one text in id order, and how many rows."""
        level2 = f"SELECT l1.*, sa::text AS st, {self.sure()} AS sure FROM ({self.rows()}) AS l1 OFFSET 0"
        level3 = f"SELECT l2.*, {self.total()} AS total FROM ({level2}) AS l2 OFFSET 0"
        return (
            "SELECT string_agg(x.line, '' ORDER BY x.id), count(*)"
            f" FROM (SELECT id, {self.line()} AS line FROM ({level3}) AS l3) AS x"
        )

    def prepare(self) -> str:
        """PREPARE the chunk query on a connection (the selection's parameters go in now)."""
        sql = self.chunk().replace("%s", "$1", 1).replace("%s", "$2", 1)
        return f"PREPARE {self.statement} (bigint, bigint) AS {sql}"

    def execute(self) -> str:
        return f"EXECUTE {self.statement} (%s, %s)"

    @staticmethod
    def bounds() -> str:
        """The first and last response id of the items (one array parameter: a query on one
        table, which PostgreSQL answers from the primary key's ends)."""
        return f"SELECT min(id), max(id) FROM {Response._meta.db_table} WHERE item_id = ANY(%s)"


def _path(key: str) -> str:
    """A key as an element of a text[] literal (quoted, `"` and `\\` escaped)."""
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


# --- the items' own cells ----------------------------------------------------------------------
def _cell(value: Any, special: str) -> str | None:
    """A cell as the delimited writer renders it (`writers._DelimitedLines`); None for a type
    it leaves to csv.writer."""
    kind = type(value)
    if kind is str:
        if '"' in value:
            return '"' + value.replace('"', '""') + '"'
        return '"' + value + '"' if any(c in value for c in special) else value
    if value is None:
        return ""
    if kind is int or kind is float or kind is bool:
        return str(value)
    return None


def _item_row(plan: _Plan, item_id: int, external_id: str, payload: dict[str, Any]) -> tuple[Any, ...]:
    """(id, ok, external id cell, the item columns' cells, the payload values answers are matched
    with as integer text). ok is False where a cell is not one the SQL can pass on as it is:
    that item's lines are then left to Python (which raises where it raised before)."""
    ok = True
    try:
        row = plan.reader.kind.annotation_row(payload, {})
        cells = [_cell(external_id, plan.special), *[_cell(row[column], plan.special) for column in plan.item_columns]]
    except Exception:  # noqa: BLE001 - Python reads these rows and says what is wrong
        ok, cells = False, [None] * (1 + len(plan.item_columns))
    matches: list[str | None] = []
    for key in plan.match_keys:
        value = payload.get(key)
        if value is None:
            matches.append(None)
        elif type(value) is int and len(str(value)) <= INT_CHARS:
            matches.append(str(value))
        else:
            ok = False
            matches.append(None)
    ok = ok and None not in cells
    return (item_id, ok, *[cell or "" for cell in cells], *matches)


def _copy_text(value: Any) -> str:
    if value is None:
        return "\\N"
    if value is True or value is False:
        return "t" if value else "f"
    return str(value).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _fill_items(connection: Any, table: str, plan: _Plan, rows: list[tuple[Any, ...]]) -> None:
    """A temporary table of the items' rows on this connection (dropped at its transaction's end)."""
    columns = ["id bigint PRIMARY KEY", "ok boolean NOT NULL", "ext text NOT NULL"]
    columns += [f"c{k} text NOT NULL" for k in range(len(plan.item_columns))]
    columns += [f"m{k} text" for k in range(len(plan.match_keys))]
    buffer = io.StringIO()
    for row in rows:
        buffer.write("\t".join(map(_copy_text, row)))
        buffer.write("\n")
    buffer.seek(0)
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TEMPORARY TABLE {table} ({', '.join(columns)}) ON COMMIT DROP")
        cursor.copy_expert(f"COPY {table} FROM STDIN", buffer)
        cursor.execute(f"ANALYZE {table}")


# --- running it -----------------------------------------------------------------------------
@dataclass
class _Chunk:
    low: int
    high: int
    text: bytes
    rows: int
    #: the reader's rows of [low, high) when some line was left NULL, for the Python path
    fallback: list[tuple[Any, ...]] | None


def _chunks(plan: _Plan, render: Render) -> Iterator[bytes]:
    django = connections[Response.objects.db]
    with ExitStack() as stack:
        links, parallel = _links(stack, django, CONNECTIONS > 1 and not django.in_atomic_block)
        items = plan.reader.items()
        sql = _Sql(plan, f"export_{uuid.uuid4().hex[:12]}", exact=parallel, project_id=plan.reader.project.pk)
        if not parallel:  # Django's connection lives on: leave no statement behind
            stack.callback(_deallocate, links[0], sql.statement)
        pool = stack.enter_context(ThreadPoolExecutor(max_workers=len(links), thread_name_prefix="export-sql"))
        bounds = _prepare(pool, links, sql, plan, items)
        if bounds is None:
            return
        futures: deque[Future] = deque()
        stack.callback(lambda: [future.cancel() for future in futures])
        with django.wrap_database_errors:
            for chunk in _in_order(pool, _Runner(links, sql, plan), futures, *bounds):
                if chunk.fallback is not None:
                    yield render(selectors._value_rows(plan.reader, items, chunk.fallback)).encode("utf-8")
                elif chunk.text:
                    yield chunk.text


def _links(stack: ExitStack, django: Any, parallel: bool) -> tuple[list[Any], bool]:
    """The connections chunks are read on, and whether there are several: new ones on one
    snapshot, taken before the items are read; or Django's own, inside the caller's
    transaction (which may hold rows nobody else sees yet) or when the server has no
    connection to spare (max_connections reached)."""
    if parallel:
        try:
            return stack.enter_context(_snapshot_connections(django, CONNECTIONS)), True
        except django.Database.OperationalError:
            pass
    stack.enter_context(selectors._streaming_read())
    django.ensure_connection()
    return [stack.enter_context(_borrowed(django.connection))], False


def _prepare(
    pool: ThreadPoolExecutor, links: list[Any], sql: _Sql, plan: _Plan, items: dict[int, Any]
) -> tuple[int, int] | None:
    """Fill the temporary tables and prepare the chunk query on every connection (at the same
    time: each is ~0.2 s of the server's work at 1M rows); the first and last response id to
    read (None: no response)."""
    rows = [_item_row(plan, item_id, ext, payload) for item_id, (ext, payload) in items.items()]

    def ready(link: Any) -> None:
        _fill_items(link, sql.items_table, plan, rows)
        with link.cursor() as cursor:
            cursor.execute(sql.assignments())
            # planned once, not for every chunk (~2 ms each)
            cursor.execute(sql.prepare(), plan.kept_params or None)

    list(pool.map(ready, links))
    with links[0].cursor() as cursor:
        cursor.execute(sql.bounds(), [list(items)])
        first, last = cursor.fetchone()
    return None if first is None else (first, last)


class _Runner:
    """Reads one id range's chunk on whichever connection is free (called in pool threads)."""

    def __init__(self, links: list[Any], sql: _Sql, plan: _Plan):
        self.free: queue.Queue = queue.Queue()
        for link in links:
            self.free.put(link)
        self.chunk_sql = sql.execute()
        self.reader_sql, self.reader_params = _reader_sql(plan)

    def __call__(self, low: int, high: int) -> _Chunk:
        link = self.free.get()
        try:
            with link.cursor() as cursor:
                # the UTF-8 bytes as they come (the connection's encoding): no str made
                psycopg2.extensions.register_type(psycopg2.extensions.BYTES, cursor)
                cursor.execute(self.chunk_sql, (low, high))
                text, count = cursor.fetchone()
            if not text or UNSURE not in text:
                return _Chunk(low, high, text or b"", count, None)
            with link.cursor() as cursor:  # the Python path's rows of this range
                cursor.execute(self.reader_sql, (*self.reader_params, low, high))
                return _Chunk(low, high, b"", count, cursor.fetchall())
        finally:
            self.free.put(link)


def _in_order(
    pool: ThreadPoolExecutor, run: Callable[[int, int], _Chunk], futures: deque[Future], first: int, last: int
) -> Iterator[_Chunk]:
    """Chunks of [first, last] in id order, AHEAD of them asked for at a time. Range widths
    follow the share of ids that are the project's so far (TARGET_ROWS a chunk), never above
    MAX_ROWS ids: a range never holds more rows than ids."""
    low, width, rows_seen, span_seen = first, TARGET_ROWS, 0, 0
    while True:
        while len(futures) < AHEAD and low <= last:
            high = min(low + width, last + 1)
            futures.append(pool.submit(run, low, high))
            low = high
        if not futures:
            return
        chunk = futures.popleft().result()
        yield chunk
        rows_seen, span_seen = rows_seen + chunk.rows, span_seen + chunk.high - chunk.low
        wanted = TARGET_ROWS * span_seen / rows_seen if rows_seen else MAX_ROWS
        width = max(1, min(int(wanted), MAX_ROWS))


def _reader_sql(plan: _Plan) -> tuple[str, tuple[Any, ...]]:
    """The Python path's query (`_ResponseReader.queryset`) for the ids of [%s, %s]."""
    connection = connections[Response.objects.db]
    sql, params = plan.reader.queryset().query.get_compiler(connection=connection).as_sql()
    return f"SELECT * FROM ({sql}) AS q WHERE q.id >= %s AND q.id < %s ORDER BY q.id", tuple(params)


#: JIT would compile each chunk's query anew (~0.1 s); a chunk's lines are sorted in memory;
#: timestamps as ISO text (see _Sql.line)
_SETTINGS = "SET LOCAL jit = off; SET LOCAL work_mem = '32MB'; SET LOCAL datestyle = 'ISO, MDY'"
_SETTING_NAMES = ("jit", "work_mem", "datestyle")


@contextmanager
def _snapshot_connections(django: Any, count: int) -> Iterator[list[Any]]:
    """`count` new connections in REPEATABLE READ transactions on one snapshot (the first
    exports it): together they read the database as of one moment, as one cursor would."""
    params = django.get_connection_params()
    links: list[Any] = []
    try:
        for _ in range(count):
            link = django.Database.connect(**params)
            link.set_session(isolation_level="REPEATABLE READ")
            links.append(link)
        with links[0].cursor() as cursor:
            cursor.execute("SELECT pg_export_snapshot()")
            snapshot = cursor.fetchone()[0]
            cursor.execute(_SETTINGS)
        for link in links[1:]:
            with link.cursor() as cursor:
                cursor.execute("SET TRANSACTION SNAPSHOT %s", [snapshot])
                cursor.execute(_SETTINGS)
        yield links
    finally:
        for link in links:
            link.close()


def _deallocate(link: Any, statement: str) -> None:
    try:
        with link.cursor() as cursor:
            cursor.execute(f"DEALLOCATE {statement}")
    except Exception:  # noqa: BLE001 - an aborted transaction drops it with everything else
        pass


@contextmanager
def _borrowed(link: Any) -> Iterator[Any]:
    """Django's own connection, inside its transaction, with _SETTINGS while the export runs and
    as they were afterwards (SET LOCAL would last until the caller's transaction ends)."""
    with link.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(f'current_setting({_literal(n)})' for n in _SETTING_NAMES)}")
        before = cursor.fetchone()
        cursor.execute(_SETTINGS)
    try:
        yield link
    finally:
        try:
            with link.cursor() as cursor:
                for name, value in zip(_SETTING_NAMES, before):
                    cursor.execute("SELECT set_config(%s, %s, true)", [name, value])
        except Exception:  # noqa: BLE001 - a failed transaction: its end restores them anyway
            pass
