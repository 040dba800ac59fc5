"""A dataset folder ready for the Hugging Face Hub: typed Parquet files per config and split,
and `README.md`, the dataset card. Nothing is uploaded; the card shows the command that does.

The configs are the export's own datasets, read through the same rows every other export
writes (one export path):
- `items` (the default config): the `items` dataset, one row per item with its aggregated labels;
- `annotations`: the `clean` dataset, one row per kept annotation, without the annotators'
  recruiting-site ids (`annotator`): a public release names annotators by number only;
- `final`: the `final_items` dataset, when the project's adjudication stage made final labels.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.kinds import kind_of
from annotation.models import Project
from quality.selectors import latest_run

from ..base import EXACT, ExportUnavailable
from ..datasets import project_datasets
from .card import CardFacts, dataset_card
from .splits import SplitError, SplitPlan, item_splits
from .tables import WrittenConfig, write_config

__all__ = ["HUB_ID", "HubFolder", "HubOptions", "SplitError", "SplitPlan", "hub_folder_write"]

#: a Hub licence id or task category as the Hub's card metadata spells them (`cc-by-4.0`,
#: `text-classification`)
HUB_ID = r"^[a-z0-9]+([.-][a-z0-9]+)*$"

#: config name -> (the export dataset it is made of, columns left out); every config's rows
#: start with `item_id` (the platform's item number), so the configs join on it
CONFIGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "items": ("items", ()),
    "annotations": ("clean", ("annotator",)),
    "final": ("final_items", ()),
}
ITEM_ID = "item_id"


@dataclass(frozen=True)
class HubOptions:
    """The researcher's choices: splits, licence (a Hub licence id; `other` by default) and
    the Hub's task categories (empty: what the kind's label fields suggest)."""

    plan: SplitPlan = field(default_factory=SplitPlan)
    license: str = "other"
    task_categories: Sequence[str] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"split": self.plan.as_dict(), "license": self.license, "task_categories": list(self.task_categories)}

    @classmethod
    def from_dict(cls, values: dict[str, Any] | None) -> "HubOptions":
        values = values or {}
        return cls(
            plan=SplitPlan.from_dict(values.get("split")),
            license=values.get("license") or "other",
            task_categories=tuple(values.get("task_categories") or ()),
        )

    def problems(self) -> list[str]:
        """What the Hub would not read in the licence and task categories (the split rule checks itself)."""
        ids = [("licence", self.license)] + [("task category", c) for c in self.task_categories]
        return [
            f"{what} {value!r} is not a Hub id (lower-case letters, digits, - and .)"
            for what, value in ids
            if not re.fullmatch(HUB_ID, value)
        ]


@dataclass(frozen=True)
class HubFolder:
    directory: Path
    configs: list[WrittenConfig]

    @property
    def rows(self) -> int:
        return sum(c.rows for c in self.configs)


def _published(
    rows: Iterator[tuple[int, dict[str, Any]]], dropped: tuple[str, ...], numeric: frozenset[str] = frozenset()
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The rows with `item_id` first, the `dropped` columns left out and the `numeric` ones (numbers
    the released format writes as text) as numbers."""
    for item_id, row in rows:
        published = {ITEM_ID: item_id, **{k: v for k, v in row.items() if k not in dropped and k != ITEM_ID}}
        for column in numeric & published.keys():
            published[column] = _number(published[column])
        yield item_id, published


def _number(value: Any) -> Any:
    """A released number's text as a float ("" or None: empty); anything else as it is."""
    if isinstance(value, str):
        return float(value) if value.strip() else None
    return value


def _columns(columns: list[str], dropped: tuple[str, ...]) -> list[str]:
    return [ITEM_ID, *(c for c in columns if c not in dropped and c != ITEM_ID)]


def hub_folder_write(*, project: Project, directory: Path, options: HubOptions | None = None) -> HubFolder:
    """Write the folder (created if missing; files of an earlier folder are replaced).

    Preconditions: a finished quality run (ExportUnavailable otherwise: the card reports it);
    items imported; a split rule that fits the project (SplitError names what does not).
    """
    options = options or HubOptions()
    run = latest_run(project)
    if run is None:
        raise ExportUnavailable("A Hub folder needs a finished quality run (its card reports it); run quality first.")
    splits = item_splits(project, options.plan)
    if not splits:
        raise ExportUnavailable("The project has no items to publish.")
    directory.mkdir(parents=True, exist_ok=True)
    for name in CONFIGS:  # an earlier folder's files: its splits may not be this one's
        for old in (directory / name).glob("*.parquet"):
            old.unlink()
    datasets = project_datasets(project)
    kind = kind_of(project)
    written: list[WrittenConfig] = []
    for name, (dataset, dropped) in CONFIGS.items():
        source = datasets[dataset][0](project, EXACT)
        numeric = frozenset(kind.numeric_text_columns if dataset == "items" else ())
        config = write_config(
            directory=directory,
            name=name,
            columns=_columns(source.columns(), dropped),
            rows=lambda source=source, dropped=dropped, numeric=numeric: _published(  # type: ignore[misc]
                source.item_rows(), dropped, numeric
            ),
            split_of=splits.__getitem__,
        )
        if config.splits:
            written.append(config)
    categories = list(options.task_categories) or kind.hub_task_categories()
    facts = CardFacts(configs=written, plan=options.plan, license=options.license, task_categories=categories)
    (directory / "README.md").write_text(dataset_card(project, run, facts), encoding="utf-8")
    return HubFolder(directory=directory, configs=written)
