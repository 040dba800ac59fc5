"""The import fast path (orjson, executemany / COPY, lz4) gives exactly what the ORM path gave."""

import hashlib
import importlib
import json

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.kinds import ImportProblem, get_kind
from annotation.kinds.formats import canonical_json, content_id, jsonl_records, payload_json
from annotation.models import Item
from annotation.services import imports, item_inserts
from annotation.services.imports import items_import
from annotation.structured_input import value_problem
from tests.factories import RECAM_PAYLOAD, ProjectFactory

lz4_migration = importlib.import_module("annotation.migrations.0005_item_payload_lz4")


def old_canonical(record) -> bytes:
    """The canonical form content ids have always hashed (before orjson)."""
    return json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


# records where orjson and the json module could part ways
TRICKY = {
    "non-ascii": {"b": 1, "a": "é", "z": "日本語 Â£ mojibake", "e": "😀 astral", "ä": 0, "Ω": "ελληνικά"},
    "floats": {
        "f": 0.1,
        "g": 1e-07,
        "h": 1e16,
        "i": -0.0,
        "j": 5e-324,
        "k": 1.7976931348623157e308,
        "l": 1.0,
        "m": 123456789.125,
        "n": 1e22,
        "o": 2.5e-5,
    },
    "nested": {"nested": {"z": [1, {"y": None, "x": True}], "a": {"c": [], "b": {}}}, "list": [3, "2", [False, {}]]},
    "nested-float": {"deep": [{"b": [0.5, {"a": 1e100}]}]},
    "escapes": {"esc": 'quote " backslash \\ slash / tab \t nl \n cr \r bell \x07 nul \x00 del \x7f esc \x1b \\u0041'},
    "u2028": {"u2028": "line\u2028separator\u2029paragraph\x85next\x0cff\x0bvt", "\u2028key": 1},
    "key-order": {"keys": {"\uffff": 1, "\U0001f600": 2, "é": 3, "E": 4, "": 5, "a\x00": 6, "a": 7, "ab": 8}},
    "big-ints": {"big": 2**64, "neg": -(2**63) - 1, "max": 2**64 - 1, "min": -(2**63), "huge": 10**40},
    "non-finite": {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")},
    "plain": dict(RECAM_PAYLOAD),
}


@pytest.mark.parametrize("record", TRICKY.values(), ids=TRICKY.keys())
def test_canonical_form_is_byte_identical_to_json_dumps(record):
    assert canonical_json(record) == old_canonical(record)
    assert content_id(record) == "sha1:" + hashlib.sha1(old_canonical(record)).hexdigest()[:20]


def test_content_ids_of_items_imported_before_are_unchanged(recam_dev_bytes):
    # computed with the json module before orjson was used: a re-import must find these items
    first = json.loads(recam_dev_bytes.split(b"\r\n")[0])
    assert content_id(first) == "sha1:7ca70f71d29130cf1b10"
    assert (
        content_id({"b": 1, "a": "é", "nested": {"z": [1.5, None, True], "y": "\u2028"}}) == "sha1:a3d5279fe711d6116127"
    )


def test_a_lone_surrogate_fails_as_before():
    record = {"s": "\ud800 lone"}
    with pytest.raises(UnicodeEncodeError):
        old_canonical(record)
    with pytest.raises(UnicodeEncodeError):
        canonical_json(record)


RAW_LINES = [
    '{"a": 1E+2, "b": 18446744073709551616, "c": -0, "d": "\\uD83D\\uDE00", "e": 1, "e": 2, "f": 1.50}',
    '{"deep": [[{"x": 0.30000000000000004}]]}',
    '{"big": 123456789012345678901234567890, "neg": -9223372036854775809, "ok": 9223372036854775807}',
    '{"esc": "\\u2028\\t\\"\\\\\\/", "raw": "\u2028 \x85 \x7f", "é": "\\u00e9"}',
]
#: what json.loads reads but no database stores alike: refused, naming the field (issue 20, item 9)
REFUSED_LINES = {
    '{"a": 1, "d": "\\uDE00\\uD83D"}': "d",
    '{"n": NaN}': "n",
    '{"x": {"i": [1, -Infinity]}}': "x.i[1]",
    '{"esc": "a\\u0000b"}': "esc",
}


@pytest.mark.parametrize("line", REFUSED_LINES)
def test_values_no_database_stores_alike_are_refused_naming_the_field(line):
    with pytest.raises(ImportProblem) as caught:
        list(jsonl_records('{"ok": 1}\n' + line + "\n"))
    assert (caught.value.line, caught.value.field) == (2, REFUSED_LINES[line])


def test_json_lines_read_exactly_what_json_loads_reads():
    storable = [r for r in TRICKY.values() if value_problem(r) is None]  # the rest: REFUSED_LINES
    lines = RAW_LINES + [json.dumps(r) for r in storable] + [json.dumps(r, ensure_ascii=False) for r in storable]
    for newline in ("\n", "\r\n"):
        text = newline.join(lines) + newline
        got = list(jsonl_records(text))
        # repr tells 1 from 1.0 and True, and shows key order
        assert repr(got) == repr([(n, json.loads(line)) for n, line in enumerate(lines, start=1)])


@pytest.mark.parametrize("bad", ['{"article": "x", ', '{"a": 1', "[1, 2", '{"a": "x\ty"}', '{"a": 1}}', "{"])
def test_invalid_json_is_reported_as_before_with_lf_and_crlf(bad):
    try:
        json.loads(bad)
    except json.JSONDecodeError as exc:
        expected = f"line 2: invalid JSON ({exc.msg} at column {exc.colno})"
    for newline in ("\n", "\r\n"):
        with pytest.raises(ImportProblem) as caught:
            list(jsonl_records(newline.join(['{"ok": 1}', bad, '{"ok": 2}'])))
        assert str(caught.value) == expected


@pytest.mark.parametrize("payload", TRICKY.values(), ids=TRICKY.keys())
def test_payload_json_reads_back_as_the_same_objects(payload):
    assert repr(json.loads(payload_json(payload))) == repr(payload)


def test_payload_json_writes_what_django_would_where_orjson_differs():
    assert payload_json({"nan": float("nan")}) == b'{"nan": NaN}'
    assert payload_json({"s": "\ud800"}) == b'{"s": "\\ud800"}'


def recam_line(**extra) -> str:
    return json.dumps({**RECAM_PAYLOAD, **extra}, ensure_ascii=False)


# what both databases store: PostgreSQL's jsonb refuses NaN, \u0000 and lone surrogates
STORABLE = [
    recam_line(),
    recam_line(label=3, extra={"b": [1.5, 1e16, 1e-07, -0.0, 10**40], "a": {"z": None, "y": True}}),
    recam_line(label=0, article='Ünïcödé \u2028 \x85 \\ " \t tabs \n and 😀 astral £'),
    recam_line(label=2, **{"é": "x", "\uffff": 1, "\U0001f600": 2}),
    '{"article": "a", "question": "@placeholder", "option_0": "x", "option_1": "y", '
    '"option_2": "z", "option_3": "w", "option_4": "v", "label": 4, "f": 1E+2, "g": 1.50}',
]


@pytest.mark.django_db
def test_items_read_back_through_the_orm_exactly_as_with_bulk_create():
    data = ("\r\n".join(STORABLE) + "\r\n").encode("utf-8")
    new, old = ProjectFactory(), ProjectFactory()
    report = items_import(project=new, data=data, filename="tricky.jsonl")
    assert (report.created, report.duplicates, report.total) == (5, 0, 5)
    # what the import did before: Item instances through bulk_create
    Item.objects.bulk_create(
        Item(
            project=old,
            external_id=p.external_id,
            payload=p.payload,
            group_key=p.group_key,
            source=f"tricky.jsonl:{p.line}",
        )
        for p in get_kind("recam").parse(data.decode("utf-8"))
    )

    def stored(project):
        return [
            (i.external_id, repr(i.payload), i.group_key, i.source)
            for i in Item.objects.filter(project=project).order_by("id")
        ]

    assert stored(new) == stored(old)
    if connection.vendor == "sqlite":  # jsonb (PostgreSQL) orders keys its own way
        assert [repr(i.payload) for i in Item.objects.filter(project=new).order_by("id")] == [
            repr(json.loads(line)) for line in STORABLE
        ]
    # the database's JSON functions read the stored text
    assert Item.objects.filter(project=new, payload__label=3, payload__extra__a__y=True).count() == 1
    article = json.loads(STORABLE[2])["article"]
    assert Item.objects.filter(project=new, payload__article=article).count() == 1


@pytest.mark.django_db
def test_sqlite_stores_payloads_as_text():
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only")
    project = ProjectFactory()
    items_import(project=project, data=(recam_line() + "\n").encode())
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT typeof(payload), json_valid(payload) FROM annotation_item WHERE project_id = %s", [project.pk]
        )
        assert cursor.fetchall() == [("text", 1)]


@pytest.mark.django_db
def test_every_column_is_written_as_django_would():
    written = {Item._meta.get_field(name).column for name in item_inserts.ITEM_FIELDS}
    # a column the importer leaves out is one the database fills as Django would: NULL, or its
    # db_default (an imported item is never a check item: those are marked after the import)
    left = [f for f in Item._meta.concrete_fields if not f.primary_key and f.column not in written]
    assert {f.name for f in left} == {"check_answer", "check_explanation"}
    assert all(f.null or f.has_db_default() for f in left)
    project = ProjectFactory()
    before = timezone.now()
    items_import(
        project=project,
        data=("\n".join([recam_line(), "", recam_line(label=4)]) + "\n").encode(),
        filename="we\tird \\N name\n.jsonl",
    )
    after = timezone.now()
    items = list(Item.objects.filter(project=project).order_by("id"))
    assert [i.source for i in items] == ["we\tird \\N name\n.jsonl:1", "we\tird \\N name\n.jsonl:3"]
    assert all(before <= i.created_at <= after and i.group_key == "" and i.project_id == project.pk for i in items)
    assert all(i.check_answer is None and i.check_explanation == "" for i in items)
    assert [i.external_id for i in items] == [
        content_id(json.loads(recam_line())),
        content_id(json.loads(recam_line(label=4))),
    ]


@pytest.mark.django_db
def test_released_ids_with_tabs_and_backslashes_are_kept_exactly():
    ids = ["a\tb", "back\\slash", "\\N", "new\nline", "cr\r", "  spaced  "]
    project = ProjectFactory()
    data = "\n".join(recam_line(id=i) for i in ids).encode()
    assert items_import(project=project, data=data).created == len(ids)
    assert sorted(Item.objects.filter(project=project).values_list("external_id", flat=True)) == sorted(ids)
    assert items_import(project=project, data=data).duplicates == len(ids)


@pytest.mark.django_db
def test_a_bad_line_after_rows_were_sent_imports_nothing(monkeypatch, recam_dev_bytes):
    monkeypatch.setattr(item_inserts, "COPY_CHUNK_BYTES", 1)  # COPY sends each row on its own
    sent = []
    read = item_inserts._CopyStream.read

    def counting_read(self, size=-1):
        sent.append(read(self, size))
        return sent[-1]

    monkeypatch.setattr(item_inserts._CopyStream, "read", counting_read)
    project = ProjectFactory()
    bad = recam_dev_bytes + b'{"article": "x", "question": "no blank"}\r\n' + recam_dev_bytes
    with pytest.raises(ImportProblem) as caught:
        items_import(project=project, data=bad)
    assert (caught.value.line, caught.value.field) == (21, "question")
    assert not Item.objects.exists()
    if connection.vendor == "postgresql":
        assert len(sent) == 20 and all(sent)  # the 20 good rows had reached PostgreSQL
    # the transaction was rolled back cleanly: the connection imports the good file
    assert items_import(project=project, data=recam_dev_bytes).created == 20


@pytest.mark.django_db
def test_other_databases_fall_back_to_bulk_create(monkeypatch, recam_dev_bytes):
    fast, fallback = ProjectFactory(), ProjectFactory()
    items_import(project=fast, data=recam_dev_bytes, filename="dev.jsonl")
    monkeypatch.setattr(imports, "inserter", lambda connection: (item_inserts._insert_orm, False))
    report = items_import(project=fallback, data=recam_dev_bytes, filename="dev.jsonl")
    assert (report.created, report.duplicates) == (20, 0)
    assert items_import(project=fallback, data=recam_dev_bytes).duplicates == 20

    def stored(project):
        return [
            (i.external_id, repr(i.payload), i.group_key, i.source)
            for i in Item.objects.filter(project=project).order_by("id")
        ]

    assert stored(fast) == stored(fallback)


def test_iter_parse_yields_items_before_a_later_bad_line():
    lines = [recam_line(label=1), recam_line(label=2), recam_line(label=9)]
    items = get_kind("recam").iter_parse("\n".join(lines))
    assert [next(items).payload["label"], next(items).payload["label"]] == [1, 2]
    with pytest.raises(ImportProblem, match="line 3, field 'label'"):
        next(items)


# --- the lz4 migration ---------------------------------------------------------------------
class FakeEditor:
    """Records what the migration would execute."""

    def __init__(self):
        self.connection = connection
        self.executed = []

    def quote_name(self, name):
        return connection.ops.quote_name(name)

    def execute(self, sql, params=()):
        self.executed.append(sql)


def migration_functions():
    operation = lz4_migration.Migration.operations[0]
    return operation.code, operation.reverse_code


def test_lz4_migration_depends_on_the_previous_one():
    assert lz4_migration.Migration.dependencies == [("annotation", "0004_mturk_publish_watchdog")]
    assert migration_functions()[1] is not None  # reversible


@pytest.mark.django_db
def test_lz4_migration_does_nothing_off_postgresql():
    if connection.vendor == "postgresql":
        pytest.skip("checked on PostgreSQL by the next tests")
    editor = FakeEditor()
    with CaptureQueriesContext(connection) as queries:
        for run in migration_functions():
            run(apps, editor)
    assert editor.executed == [] and len(queries) == 0


@pytest.mark.django_db
def test_lz4_migration_is_skipped_on_a_server_without_lz4(monkeypatch):
    monkeypatch.setattr(lz4_migration, "_lz4_available", lambda connection: False)
    editor = FakeEditor()
    for run in migration_functions():
        run(apps, editor)
    assert editor.executed == []


def payload_compression() -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attcompression FROM pg_attribute "
            "WHERE attrelid = 'annotation_item'::regclass AND attname = 'payload'"
        )
        return cursor.fetchone()[0]


@pytest.mark.django_db
def test_payloads_are_compressed_with_lz4_on_postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only")
    if not lz4_migration._lz4_available(connection):
        pytest.skip("this PostgreSQL server was built without lz4")
    assert payload_compression() == "l"  # the test database was migrated
    forward, backward = migration_functions()
    with connection.schema_editor() as editor:
        backward(apps, editor)
    assert payload_compression() == "p"
    with connection.schema_editor() as editor:
        forward(apps, editor)
    assert payload_compression() == "l"
    project = ProjectFactory()
    items_import(project=project, data=(recam_line(article="A long passage. " * 1000) + "\n").encode())
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_column_compression(payload) FROM annotation_item WHERE project_id = %s", [project.pk])
        assert cursor.fetchall() == [("lz4",)]
