"""What every dataset is made of: its columns and rows (`Dataset`), the researcher's options,
and the error of a dataset that cannot be made yet. Apart from `datasets` so that a dataset of
its own module (`label_studio`) and the registry can both import them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

CHUNK_SIZE = 2000


class ExportUnavailable(Exception):
    """The dataset cannot be made yet (e.g. no finished quality run); the message says why."""


@dataclass(frozen=True)
class Options:
    """What a researcher may choose beside dataset and format.

    `spreadsheet_safe`: CSV/TSV text cells that start like a formula get a leading `'`
    (the default writes every cell exactly, so research data round-trips);
    `item_text`: raw and clean rows carry the item's text (the kind's `item_text_columns`).
    """

    spreadsheet_safe: bool = False
    item_text: bool = False

    @classmethod
    def from_dict(cls, values: dict[str, Any] | None) -> "Options":
        values = values or {}
        return cls(spreadsheet_safe=bool(values.get("spreadsheet_safe")), item_text=bool(values.get("item_text")))

    def as_dict(self) -> dict[str, bool]:
        return {"spreadsheet_safe": self.spreadsheet_safe, "item_text": self.item_text}


#: the default: every cell exactly as stored, no item text
EXACT = Options()


@dataclass(frozen=True)
class Dataset:
    """`sparse`: a row may lack some columns (written empty in CSV, absent in JSONL).
    `total`: how many source records the rows come from, for a job's progress.
    `keyed`: the same rows, each with the id of the item it comes from (a Hub folder splits by it);
    None: the rows' own `item_id`."""

    name: str
    columns: Callable[[], list[str]]
    rows: Callable[[], Iterator[dict[str, Any]]]
    total: Callable[[], int]
    sparse: bool = False
    keyed: Callable[[], Iterator[tuple[int, dict[str, Any]]]] | None = None

    def item_rows(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """(item id, row) pairs: what a Hub folder's splits are decided on."""
        if self.keyed is not None:
            return self.keyed()
        return ((row["item_id"], row) for row in self.rows())
