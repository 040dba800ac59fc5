"""Items a worker process rendered lately, so that saving the next page needs no read of them.

An item never changes once imported (re-importing the same items adds nothing; the admin shows
them read-only), so a copy stays true as long as the row with that id and creation time exists.
Whoever uses a copy for a write checks both in the same statement (`response_save_next_page`),
and a copy that is gone or stale only sends the save the usual way. Payloads are shared between
the instances made from one copy: nothing may change them in place.
"""
from __future__ import annotations

from typing import Any

from annotation.models import Item
from annotation.sqlrows import Columns

#: items kept per process (a ReCAM item is about 3 KB: ~12 MB at most)
MAX_ITEMS = 4096

_items: dict[int, tuple[Any, ...]] = {}
_COLUMNS = Columns(Item, "i")
_FIELDS = tuple(f.attname for f in _COLUMNS.fields)


def remember(item: Item) -> None:
    """Keep a copy of an item just read from the database (whole: not one with deferred fields)."""
    fields = item.__dict__
    if item.pk is None or item._state.adding or any(name not in fields for name in _FIELDS):
        return
    if item.pk not in _items and len(_items) >= MAX_ITEMS:
        try:  # the oldest entry goes first (a thread worker's other threads may change the dict meanwhile)
            _items.pop(next(iter(_items)), None)
        except (StopIteration, RuntimeError):
            pass
    _items[item.pk] = tuple(fields[name] for name in _FIELDS)


def recall(item_id: int, db_alias: str = "default") -> Item | None:
    """A fresh instance of a remembered item, or None."""
    values = _items.get(item_id)
    if values is None:
        return None
    return _COLUMNS.instance(db_alias, list(values))


def forget_all() -> None:
    """Drop every copy (tests)."""
    _items.clear()
