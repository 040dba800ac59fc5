"""Fixed SQL for the annotator's hot requests, with the ORM's own columns and converters.

Compiling a queryset costs 0.3-0.5 ms of CPU, more than the query itself takes to run, and an
annotator's page view and save run the same few queries hundreds of times a second. Those
queries are written here once, as SQL built from the models' metadata (table and column names
are never typed by hand), and their rows become model instances through `Model.from_db` with
the converters the ORM would apply, so callers get the same objects a queryset gives.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Any, Callable, Sequence

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Model
from django.db.models.base import ModelState
from django.db.models.expressions import Col
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query_utils import DeferredAttribute
from django.db.models.signals import post_init, pre_init

#: descriptors that only read and write the instance's __dict__ (a FileField's, say, do more)
_PLAIN_DESCRIPTORS = (DeferredAttribute, ForeignKeyDeferredAttribute)


def db_connection() -> Any:
    """This thread's connection to the default database. A hot read or write looks it up once
    and passes it on: every `django.db.connection.<attribute>` goes through asgiref's Local, and
    one annotator read asked it 18 times."""
    return connections[DEFAULT_DB_ALIAS]


class Columns:
    """A model's concrete columns under a table alias, and how to turn them back into an instance."""

    def __init__(self, model: type[Model], alias: str):
        self.model = model
        self.alias = alias
        self.fields = list(model._meta.concrete_fields)
        self.width = len(self.fields)
        self._pk = self.fields.index(model._meta.pk)
        self._attnames = tuple(f.attname for f in self.fields)
        self._plain = all(type(model.__dict__.get(name)) in _PLAIN_DESCRIPTORS for name in self._attnames)

    @property
    def table(self) -> str:
        return connection.ops.quote_name(self.model._meta.db_table)

    def sql(self) -> str:
        qn = connection.ops.quote_name
        return ", ".join(f"{self.alias}.{qn(f.column)}" for f in self.fields)

    @property
    def pk(self) -> str:
        """`alias.column` of the primary key."""
        return self.column(self.model._meta.pk.name)

    def column(self, name: str) -> str:
        """`alias.column` of a field, by field name."""
        return f"{self.alias}.{connection.ops.quote_name(self.model._meta.get_field(name).column)}"

    def bare(self, name: str) -> str:
        """A field's column without the alias, by field name (UPDATE's SET and INSERT's column
        list take none)."""
        return connection.ops.quote_name(self.model._meta.get_field(name).column)

    def index(self, name: str) -> int:
        """Where a field's column is among these columns."""
        return self.fields.index(self.model._meta.get_field(name))

    def build(self, row: Sequence[Any], start: int, db: Any = None) -> Model | None:
        """The instance in `row[start:start + width]`; None when its primary key is NULL (an
        outer join that found nothing). `db`: the connection the row came from (`db_connection()`)."""
        values = list(row[start:start + self.width])
        if values[self._pk] is None:
            return None
        db = db or db_connection()
        for index, functions, expression in _converters(self.model, db.vendor):
            value = values[index]
            for function in functions:
                value = function(value, expression, db)
            values[index] = value
        return self.instance(db.alias, values)

    def instance(self, alias: str, values: list[Any]) -> Model:
        """`Model.from_db(alias, None, values)`: the same instance, made without `Model.__init__`
        when nothing could tell (no init signal receivers, only plain field descriptors). A page
        builds six of these per read, and `__init__` cost about 80,000 instructions each: 6 % of
        an annotator request (counted with callgrind)."""
        if not self._plain or pre_init.receivers or post_init.receivers:
            return self.model.from_db(alias, None, values)
        instance = self.model.__new__(self.model)
        state = ModelState()
        state.adding, state.db = False, alias
        fields = instance.__dict__
        fields["_state"] = state
        fields.update(zip(self._attnames, values))
        return instance


@lru_cache(maxsize=None)
def _converters(model: type[Model], vendor: str) -> list[tuple[int, list[Callable], Col]]:
    """Per column, what the SQL compiler would call on a fetched value (backend, then field)."""
    found = []
    for index, field in enumerate(model._meta.concrete_fields):
        expression = Col(model._meta.db_table, field)
        functions = connection.ops.get_db_converters(expression) + expression.get_db_converters(connection)
        if functions:
            found.append((index, functions, expression))
    return found


def attach(instance: Model, relation: str, related: Model | None) -> None:
    """Cache `related` as `instance.<relation>`, as `select_related` does (no query later)."""
    instance._meta.get_field(relation).set_cached_value(instance, related)


def fetch_all(sql: str, params: Sequence[Any], *, name: str | None = None, db: Any = None) -> list[tuple[Any, ...]]:
    """The rows of one query. With a `name`, on PostgreSQL, the query is a prepared statement
    of the connection (planning a join of five tables cost the server ~0.45 ms of its
    ~0.58 ms), unless the database settings say a pooler sits between
    (`DISABLE_SERVER_SIDE_CURSORS`, as Django's docs advise for pgbouncer)."""
    db = db or db_connection()
    with db.cursor() as cursor:
        _execute(db, cursor, sql, params, name)
        return cursor.fetchall()


def execute(sql: str, params: Sequence[Any], *, name: str | None = None, db: Any = None) -> int:
    """Run one statement that returns no rows (prepared with a `name`, as `fetch_all`); the
    rows it changed."""
    db = db or db_connection()
    with db.cursor() as cursor:
        _execute(db, cursor, sql, params, name)
        return cursor.rowcount


def _execute(db: Any, cursor: Any, sql: str, params: Sequence[Any], name: str | None) -> None:
    if name is None or not _can_prepare(db):
        cursor.execute(sql, params)
        return
    state = getattr(db, "_sqlrows_prepared", None)
    if state is None or state.link is not db.connection:
        state = db._sqlrows_prepared = _Prepared(db.connection)
    statement = f"sqlrows_{name}_{state.generation}"
    run = f"EXECUTE {statement}" + (f" ({', '.join(['%s'] * len(params))})" if params else "")
    try:
        if statement in state.names:
            cursor.execute(run, params)
        else:  # one round trip: PREPARE (not undone by a rollback), then EXECUTE
            cursor.execute(f"PREPARE {statement} AS {_numbered(sql)}; {run}", params)
    except Exception:
        state.forget()  # whether it was prepared is unknown now: new names from here on
        raise
    state.names.add(statement)


class _Prepared:
    """The statements prepared on one physical connection."""

    def __init__(self, link: Any):
        self.link, self.generation, self.names = link, 0, set()

    def forget(self) -> None:
        self.generation += 1
        self.names = set()


def _can_prepare(db: Any) -> bool:
    return db.vendor == "postgresql" and not db.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS")


def _numbered(sql: str) -> str:
    """`%s` placeholders as PREPARE's `$1, $2, ...` (the queries here hold no other `%`)."""
    parts = sql.split("%s")
    return "".join(f"{part}${n}" for n, part in enumerate(parts[:-1], start=1)) + parts[-1]


def update_row(model: type[Model], pk: Any, values: dict[str, Any], *, unless_changed: dict[str, Any] | None = None,
               where_related: tuple[type[Model], Any, dict[str, Any]] | None = None) -> int:
    """`Model.objects.filter(pk=pk).update(**values)` as fixed SQL, values prepared as the ORM
    prepares them (JSON, datetimes); returns the rows changed (0 or 1).

    Compare-and-set: `unless_changed` ({field: value read earlier}) and `where_related`
    ((model, pk, {field: value})) make it write only if those still hold.
    """
    db = db_connection()
    unless = unless_changed or {}
    other, other_pk, conditions = where_related or (None, None, {})
    sql, name = _update_sql(
        db.vendor, model, tuple(values), tuple((k, v is None) for k, v in unless.items()),
        other, tuple((k, v is None) for k, v in conditions.items()),
    )
    params = [_prep(model, field, value, db) for field, value in values.items()] + [pk]
    params += [_prep(model, field, value, db) for field, value in unless.items() if value is not None]
    if other is not None:
        params += [other_pk] + [_prep(other, field, value, db) for field, value in conditions.items() if value is not None]
    return execute(sql, params, name=name, db=db)


def _prep(model: type[Model], field: str, value: Any, db: Any) -> Any:
    return model._meta.get_field(field).get_db_prep_save(value, db)


@lru_cache(maxsize=None)
def _update_sql(vendor: str, model: type[Model], fields: tuple[str, ...], unless: tuple[tuple[str, bool], ...],
                other: type[Model] | None, conditions: tuple[tuple[str, bool], ...]) -> tuple[str, str]:
    """The UPDATE of `update_row` for one shape of call, and its prepared statement's name.

    A JSON value compares as jsonb on PostgreSQL; on SQLite as the stored text, which Django
    wrote from an equal value (a spurious mismatch only makes a compare-and-set fail, never
    write wrongly). A None compares with IS NULL.
    """
    qn = connection.ops.quote_name

    def equals(table_model: type[Model], name: str, is_none: bool) -> str:
        column = qn(table_model._meta.get_field(name).column)
        return f"{column} IS NULL" if is_none else f"{column} = %s"

    meta = model._meta
    assignments = ", ".join(f"{qn(meta.get_field(name).column)} = %s" for name in fields)
    where = [f"{qn(meta.pk.column)} = %s"] + [equals(model, name, is_none) for name, is_none in unless]
    if other is not None:
        other_where = [f"{qn(other._meta.pk.column)} = %s"] + [equals(other, n, is_none) for n, is_none in conditions]
        where.append(f"EXISTS (SELECT 1 FROM {qn(other._meta.db_table)} WHERE {' AND '.join(other_where)})")
    sql = f"UPDATE {qn(meta.db_table)} SET {assignments} WHERE {' AND '.join(where)}"
    return sql, "upd" + hashlib.blake2b(sql.encode(), digest_size=8).hexdigest()
