"""Which split (train, validation, test, ...) each item goes to in a Hub dataset folder.

The researcher decides, never the platform: by default every item is `train`; `by="batch"`
maps batch ids to splits, `by="key"` reads a key of the item's payload (its value is the split's
name, or is mapped with `mapping`). An item no rule names goes to `default`. An item of two
batches mapped to different splits is refused: the same item in train and test would leak.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from annotation.models import Item, Project, UnitItem

from .markdown import md_code

SPLIT_NAME = re.compile(r"\w+(\.\w+)*")  # what the Hub accepts as a split's name, matched whole
BY = ("", "batch", "key")


class SplitError(ValueError):
    """A split rule that cannot be applied; the message says which and why."""


@dataclass(frozen=True)
class SplitPlan:
    """`by`: "" (one split, `default`), "batch" or "key"; `key`: the payload key of `by="key"`;
    `mapping`: a batch id or key value (as text) -> split name."""

    by: str = ""
    key: str = ""
    mapping: Mapping[str, str] = field(default_factory=dict)
    default: str = "train"

    def __post_init__(self) -> None:
        if self.by not in BY:
            raise SplitError(f"unknown split rule {self.by!r}; known: batch, key")
        if self.by == "key" and not self.key:
            raise SplitError("splitting by an item key needs the key's name")
        if self.by == "" and self.mapping:
            raise SplitError("a split mapping needs a rule: split by batch or by an item key")
        if self.by == "batch" and not self.mapping:
            raise SplitError("splitting by batch needs at least one mapping, e.g. test=5")
        for name in [self.default, *self.mapping.values()]:
            _check_name(name)

    @classmethod
    def parse(cls, *, by: str = "", key: str = "", specs: Iterable[str] = (), default: str = "train") -> "SplitPlan":
        """From the command's words: `by`, `key` and specs like `train=3,4` or `test=5`."""
        mapping: dict[str, str] = {}
        for spec in specs:
            name, sep, values = spec.partition("=")
            if not sep or not name.strip() or not values.strip():
                raise SplitError(f"a split is NAME=VALUE[,VALUE...], not {spec!r}")
            for value in (v.strip() for v in values.split(",")):
                if mapping.get(value, name.strip()) != name.strip():
                    raise SplitError(f"{value!r} is mapped to both {mapping[value]!r} and {name.strip()!r}")
                mapping[value] = name.strip()
        if by == "" and key:
            by = "key"
        return cls(by=by, key=key, mapping=mapping, default=default)

    def as_dict(self) -> dict[str, Any]:
        return {"by": self.by, "key": self.key, "mapping": dict(self.mapping), "default": self.default}

    @classmethod
    def from_dict(cls, values: Mapping[str, Any] | None) -> "SplitPlan":
        values = values or {}
        return cls(
            by=values.get("by", ""),
            key=values.get("key", ""),
            mapping=dict(values.get("mapping") or {}),
            default=values.get("default") or "train",
        )

    def describe(self) -> str:
        """The rule in words, for the dataset card."""
        if self.by == "":
            return f"One split, {md_code(self.default)}, holds every item."
        mapped = "; ".join(f"{md_code(v)} → {md_code(s)}" for v, s in self.mapping.items())
        if self.by == "batch":
            return f"Items are split by the batch they were annotated in (batch id → split: {mapped}); any other item goes to {md_code(self.default)}."
        rule = f"mapped ({mapped})" if self.mapping else "used as the split's name"
        return f"Items are split by their {md_code(self.key)} field, its value {rule}; an item without it goes to {md_code(self.default)}."


def _check_name(name: str) -> None:
    if not SPLIT_NAME.fullmatch(name):
        raise SplitError(f"{name!r} is not a split name the Hub accepts (letters, digits, _ and dots)")


def item_splits(project: Project, plan: SplitPlan) -> dict[int, str]:
    """Every item id of the project -> its split."""
    items = Item.objects.filter(project=project).order_by("id")
    if plan.by == "":
        return {pk: plan.default for pk in items.values_list("pk", flat=True).iterator()}
    if plan.by == "key":
        return {pk: _key_split(plan, payload) for pk, payload in items.values_list("pk", "payload").iterator()}
    return _batch_splits(project, plan, items.values_list("pk", flat=True))


def _key_split(plan: SplitPlan, payload: Mapping[str, Any]) -> str:
    value = payload.get(plan.key)
    if value is None or value == "":
        return plan.default
    name = plan.mapping.get(str(value), plan.default) if plan.mapping else str(value)
    _check_name(name)
    return name


def _batch_splits(project: Project, plan: SplitPlan, item_ids: Iterable[int]) -> dict[int, str]:
    known = {str(b) for b in project.batches.values_list("pk", flat=True)}
    unknown = sorted(set(plan.mapping) - known, key=lambda v: (len(v), v))
    if unknown:
        raise SplitError(f"no batch {', '.join(unknown)} in this project; its batches: {', '.join(sorted(known))}")
    splits = {pk: None for pk in item_ids}
    rows = UnitItem.objects.filter(unit__batch__project=project).values_list("item_id", "unit__batch_id").distinct()
    chosen: dict[int, str] = {}
    for item_id, batch_id in rows.order_by("item_id", "unit__batch_id").iterator():
        name = plan.mapping.get(str(batch_id))
        if name is None:
            continue
        if chosen.setdefault(item_id, name) != name:
            raise SplitError(
                f"item {item_id} is in batches mapped to {chosen[item_id]!r} and {name!r}: "
                "an item must be in one split only"
            )
    return {pk: chosen.get(pk, plan.default) for pk in splits}
