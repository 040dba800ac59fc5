"""What a researcher checks by eye on a report and on downloads, written down."""

from __future__ import annotations

import json
import re
from typing import Any

from .researcher import Download

#: a number printed with more digits than any figure means (0.3333333333333333)
UNROUNDED = re.compile(r"\d\.\d{5,}")
#: a template's placeholder left in a sentence ("accuracy #% on # labeled item")
PLACEHOLDER = re.compile(r"(?<![\w&])#(?![\w\d])")


def report_reads_well(text: str) -> None:
    """Numbers rounded, no placeholders, no note said twice in one place (a row's notes)."""
    assert not UNROUNDED.findall(text), UNROUNDED.findall(text)[:5]
    assert not PLACEHOLDER.findall(text), [line for line in text.splitlines() if PLACEHOLDER.search(line)][:5]
    for line in text.splitlines():
        notes = [note.strip() for note in line.split(";") if len(note.strip()) > 20]
        assert len(notes) == len(set(notes)), line


def fits_the_window(page: Any) -> None:
    """Nothing wider than the window: no horizontal scrolling."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], (width, page.viewport_size)


#: the datasets of the adjudication stage, empty in a study without one
NO_ADJUDICATION = frozenset({"final", "final_items", "adjudications"})
#: the study steps' dataset, empty (its header only) where no batch has a study file
NO_STUDY = frozenset({"participants"})
#: the answers to check and training items, empty where the project has none
NO_CHECKS = frozenset({"checks"})


def every_export_parses(downloads: dict[str, Download], *, empty: frozenset[str] = frozenset()) -> None:
    """Each dataset in each format has a header (CSV/TSV) and rows, except the datasets the study
    has nothing for (`empty`); CSV and TSV hold the same rows as JSONL, as plain values."""
    datasets = {key.rsplit(".", 1)[0] for key in downloads}
    assert datasets, "no export buttons"
    for dataset in sorted(datasets):
        if f"{dataset}.csv" not in downloads:  # Label Studio's tasks: one JSON array, a task per item
            tasks = downloads[f"{dataset}.json"].rows
            assert tasks and all({"id", "data", "annotations"} <= set(task) for task in tasks), dataset
            assert any(task["annotations"] for task in tasks), f"{dataset}: no annotation in any task"
            continue
        csv_, tsv, jsonl = (downloads[f"{dataset}.{fmt}"] for fmt in ("csv", "tsv", "jsonl"))
        if dataset in empty:
            assert csv_.rows == tsv.rows == jsonl.rows == [], dataset
            continue
        assert csv_.header and csv_.rows, f"{dataset}.csv has no header or no rows"
        assert csv_.header == tsv.header, dataset
        assert len(csv_.rows) == len(tsv.rows) == len(jsonl.rows), dataset
        for row in csv_.rows:  # plain values: no quoted JSON strings, lists joined by ";"
            for column, value in row.items():
                assert not (value.startswith('"') and value.endswith('"')), (dataset, column, value)
                if value.startswith("["):  # only a list of lists stays JSON; a flat one is ";"-joined
                    assert isinstance(json.loads(value)[0], list | dict), (dataset, column, value)
