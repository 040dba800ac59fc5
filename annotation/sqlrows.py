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

from django.db import connection
from django.db.models import Model
from django.db.models.expressions import Col


class Columns:
    """A model's concrete columns under a table alias, and how to turn them back into an instance."""

    def __init__(self, model: type[Model], alias: str):
        self.model = model
        self.alias = alias
        self.fields = list(model._meta.concrete_fields)
        self.width = len(self.fields)
        self._pk = self.fields.index(model._meta.pk)

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

    def index(self, name: str) -> int:
        """Where a field's column is among these columns."""
        return self.fields.index(self.model._meta.get_field(name))

    def build(self, row: Sequence[Any], start: int) -> Model | None:
        """The instance in `row[start:start + width]`; None when its primary key is NULL (an
        outer join that found nothing)."""
        values = list(row[start:start + self.width])
        if values[self._pk] is None:
            return None
        for index, functions, expression in _converters(self.model, connection.vendor):
            value = values[index]
            for function in functions:
                value = function(value, expression, connection)
            values[index] = value
        return self.model.from_db(connection.alias, None, values)


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


def fetch_all(sql: str, params: Sequence[Any], *, name: str | None = None) -> list[tuple[Any, ...]]:
    """The rows of one query. With a `name`, on PostgreSQL, the query is a prepared statement
    of the connection (planning a join of five tables cost the server ~0.45 ms of its
    ~0.58 ms), unless the database settings say a pooler sits between
    (`DISABLE_SERVER_SIDE_CURSORS`, as Django's docs advise for pgbouncer)."""
    with connection.cursor() as cursor:
        _execute(cursor, sql, params, name)
        return cursor.fetchall()


def _execute(cursor: Any, sql: str, params: Sequence[Any], name: str | None) -> None:
    if name is None or not _can_prepare():
        cursor.execute(sql, params)
        return
    state = getattr(connection, "_sqlrows_prepared", None)
    if state is None or state.link is not connection.connection:
        state = connection._sqlrows_prepared = _Prepared(connection.connection)
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


def _can_prepare() -> bool:
    return connection.vendor == "postgresql" and not connection.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS")


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
    unless = unless_changed or {}
    other, other_pk, conditions = where_related or (None, None, {})
    sql, name = _update_sql(
        connection.vendor, model, tuple(values), tuple((k, v is None) for k, v in unless.items()),
        other, tuple((k, v is None) for k, v in conditions.items()),
    )
    params = [_prep(model, field, value) for field, value in values.items()] + [pk]
    params += [_prep(model, field, value) for field, value in unless.items() if value is not None]
    if other is not None:
        params += [other_pk] + [_prep(other, field, value) for field, value in conditions.items() if value is not None]
    with connection.cursor() as cursor:
        _execute(cursor, sql, params, name)
        return cursor.rowcount


def _prep(model: type[Model], field: str, value: Any) -> Any:
    return model._meta.get_field(field).get_db_prep_save(value, connection)


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
