"""The too-fast rule a quality run adds to every kind's own rules (off by default): answers
below a time threshold, as a whole or on any of their pages, are flagged with their times; the
settings may drop them, and drop the annotators with more than a share of their answers flagged.
The run's report gets a "time on task" section (`quality.report.time_on_task` shows it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from annotation.kinds import QualityOutcome
from annotation.naming import annotator_name
from quality.stats.speed import PageFloor, flag_too_fast, flag_too_fast_pages, flagged_pages, too_fast_shares

#: flagged rows the report keeps (the count says how many there were)
FLAGGED_SHOWN = 200
#: a suspect's reason: a page saved without a valid note of when it was shown (`untimed_saves: suspect`)
UNTIMED_REASON = "time unknown (saved without its page's valid timing note)"


@dataclass(frozen=True)
class SpeedRule:
    """The rule's settings, read once: None where a setting is off."""

    min_seconds: float | None
    page_seconds: PageFloor | None
    median_share: float | None
    drop: bool
    max_share: float | None

    @classmethod
    def of(cls, settings: Mapping[str, Any]) -> SpeedRule:
        pages = settings.get("too_fast_page_seconds")
        if isinstance(pages, Mapping):  # an empty mapping names no page: off
            page_seconds: PageFloor | None = {str(k): float(v) for k, v in pages.items()} or None
        else:
            page_seconds = _number(pages)
        return cls(
            min_seconds=_number(settings.get("too_fast_seconds")),
            page_seconds=page_seconds,
            median_share=_number(settings.get("too_fast_median_share")),
            drop=bool(settings.get("drop_too_fast")),
            max_share=_number(settings.get("max_too_fast_share")),
        )

    @property
    def on(self) -> bool:
        return self.min_seconds is not None or self.median_share is not None or self.per_page

    @property
    def per_page(self) -> bool:
        """Pages are judged when `too_fast_page_seconds` is set (0: by the median share alone)."""
        return self.page_seconds is not None


@dataclass(frozen=True)
class SpeedResult:
    outcome: QualityOutcome
    report: dict[str, Any] | None  # the report's "time_on_task" section; None with the rule off


def pages_needed(settings: Mapping[str, Any]) -> bool:
    """Whether a run must read the per-page times: with any too-fast rule on (the page rule judges
    them; every rule judges the pages saved untimed as suspects)."""
    return SpeedRule.of(settings).on


def _number(value: Any) -> float | None:
    return None if value is None or value == "" else float(value)


def _reason(seconds: float, threshold: float) -> str:
    return f"answered in {seconds:.1f} s, below the too-fast threshold of {threshold:.1f} s"


def _page_reason(page: str, seconds: float | None, threshold: float) -> str:
    if seconds is None:
        return f"page '{page}' {UNTIMED_REASON}, judged below its too-fast threshold of {threshold:.1f} s"
    return f"page '{page}' answered in {seconds:.1f} s, below its too-fast threshold of {threshold:.1f} s"


def _whole_reason(responses: pd.DataFrame, flags: pd.DataFrame, rid: Any) -> str:
    threshold = responses.at[rid, "too_fast_threshold"]
    if flags.at[rid, "untimed"]:
        return f"{UNTIMED_REASON}, judged below the too-fast threshold of {threshold:.1f} s"
    return _reason(responses.at[rid, "seconds"], threshold)


def _with_suspects(frame: pd.DataFrame, pages: pd.DataFrame) -> pd.DataFrame:
    """`frame` with `untimed`: whether any page of the response was saved untimed (a suspect)."""
    untimed = pages["untimed"].fillna(False).astype(bool) if "untimed" in pages else pd.Series(False, index=pages.index)
    return frame.assign(untimed=frame["response_id"].isin(set(pages.loc[untimed, "response_id"])))


def _with_reason(responses: pd.DataFrame, rid: Any, reason: str) -> None:
    responses.at[rid, "reasons"] = [*responses.at[rid, "reasons"], reason]
    responses.at[rid, "keep"] = False


def apply_speed_rule(
    frame: pd.DataFrame,
    outcome: QualityOutcome,
    settings: Mapping[str, Any],
    pages: pd.DataFrame | None = None,
) -> SpeedResult:
    """The kind's outcome with each answer's `seconds`, `too_fast_threshold` (the whole answer's),
    `too_fast` flag (the answer's or any page's) and, with the page rule, `too_fast_pages`
    ({page: {seconds, threshold}}), all stored with the run's decisions and exported; the
    annotators' `too_fast_share`; the drops `drop_too_fast` and `max_too_fast_share` ask for, each
    with its reason. `pages`: (response_id, page, seconds, untimed) rows (`pages_needed`): the
    page rule judges them, and an answer with an untimed page is a suspect, flagged by any rule on."""
    rule = SpeedRule.of(settings)
    if not rule.on:
        return SpeedResult(outcome, None)
    pages = pages if pages is not None else pd.DataFrame(columns=["response_id", "page", "seconds", "untimed"])
    frame = _with_suspects(frame, pages)
    flags = flag_too_fast(frame, min_seconds=rule.min_seconds, median_share=rule.median_share)
    whole = flags["too_fast"].copy()
    by_page = pd.Series(dtype=object)
    if rule.per_page:
        page_flags = flag_too_fast_pages(
            frame,
            pages,
            min_seconds=rule.page_seconds,
            median_share=rule.median_share,
        )
        by_page = flagged_pages(page_flags)
        flags["too_fast"] = flags["too_fast"] | flags.index.isin(by_page.index)
    responses = outcome.responses.copy()
    responses["reasons"] = [list(r) for r in responses["reasons"]]
    mine = flags.reindex(responses.index)
    responses["seconds"] = mine["seconds"]
    responses["too_fast_threshold"] = mine["threshold"].round(3)
    responses["too_fast"] = mine["too_fast"].fillna(False).astype(bool)
    if rule.per_page:
        responses["too_fast_pages"] = pd.Series(
            [by_page.get(rid) for rid in responses.index], index=responses.index, dtype=object
        )
    dropped_answers: set[Any] = set()
    if rule.drop:
        for rid in responses.index[responses["too_fast"]]:
            if whole.get(rid, False):
                _with_reason(responses, rid, _whole_reason(responses, flags, rid))
            for page, times in (by_page.get(rid) or {}).items():
                _with_reason(responses, rid, _page_reason(page, times["seconds"], times["threshold"]))
            dropped_answers.add(rid)
    shares = too_fast_shares(frame, flags)
    annotators = outcome.annotators.copy()
    annotators["too_fast_share"] = shares["share"].reindex(annotators.index)
    annotators["reasons"] = [list(r) for r in annotators["reasons"]]
    dropped_people: dict[Any, str] = {}
    if rule.max_share is not None:
        for who, row in shares.iterrows():
            if who in annotators.index and row["timed"] and row["share"] > rule.max_share:
                dropped_people[who] = (
                    f"{int(row['fast'])} of {int(row['timed'])} answers too fast "
                    f"({row['share']:.0%}, above the maximum of {rule.max_share:.0%})"
                )
    for who, reason in dropped_people.items():
        annotators.at[who, "reasons"] = [*annotators.at[who, "reasons"], reason]
        annotators.at[who, "keep"] = False
    owner = frame.set_index("response_id")["annotator_id"].reindex(responses.index)
    for rid, who in owner.items():
        if who in dropped_people:
            _with_reason(responses, rid, "annotator dropped: " + dropped_people[who])
    summary = {
        **outcome.summary,
        "flagged_too_fast": int(responses["too_fast"].sum()),
        "dropped_too_fast": len(dropped_answers),
        "dropped_too_fast_annotator": int(owner.isin(list(dropped_people)).sum()),
    }
    if rule.per_page:
        summary["flagged_too_fast_page"] = len(by_page)
    for key, table in (("responses_kept", responses), ("annotators_kept", annotators)):
        if key in summary:
            summary[key] = int(table["keep"].sum())
    merged = QualityOutcome(responses=responses, annotators=annotators, items=outcome.items, summary=summary)
    report = _time_on_task(frame, flags, whole, by_page, shares, rule, dropped_answers, dropped_people)
    return SpeedResult(merged, report)


def _time_on_task(
    frame: pd.DataFrame,
    flags: pd.DataFrame,
    whole: pd.Series,
    by_page: pd.Series,
    shares: pd.DataFrame,
    rule: SpeedRule,
    dropped_answers: set[Any],
    dropped_people: Mapping[Any, str],
) -> dict[str, Any]:
    """The report's section: each flag (the whole answer's, or a page's) with its item, annotator,
    seconds and threshold, the first FLAGGED_SHOWN of them; per annotator the timed answers,
    those flagged, the share and the median seconds; the drops by rule when a drop is asked."""
    info = frame.set_index("response_id")
    rows: list[dict[str, Any]] = []
    for rid in flags.index[flags["too_fast"]]:
        base = {
            "response_id": int(rid),
            "item_id": int(info.at[rid, "item_id"]),
            "item": str(info.at[rid, "external_id"]),
            "annotator": annotator_name(int(info.at[rid, "annotator_id"]), str(info.at[rid, "annotator"])),
            "dropped": rid in dropped_answers or info.at[rid, "annotator_id"] in dropped_people,
        }
        if whole.get(rid, False):
            rows.append(
                {
                    **base,
                    "page": None,
                    "seconds": _plain(flags.at[rid, "seconds"]),
                    "threshold": _plain(flags.at[rid, "threshold"]),
                    **({"untimed": True} if flags.at[rid, "untimed"] else {}),
                }
            )
        for page, times in (by_page.get(rid) or {}).items():
            seconds, threshold = times["seconds"], times["threshold"]
            untimed = {"untimed": True} if seconds is None else {}  # a page saved untimed: a suspect
            rows.append({**base, "page": page, "seconds": seconds, "threshold": threshold, **untimed})
    names = info.groupby("annotator_id")["annotator"].first()
    people = [
        {
            "annotator": annotator_name(who, str(names.get(who, ""))),
            "timed": int(row["timed"]),
            "flagged": int(row["fast"]),
            "share": _plain(row["share"]),
            "median_seconds": _plain(row["median_seconds"]),
            "dropped": who in dropped_people,
        }
        for who, row in shares.sort_values(["share", "fast"], ascending=False, na_position="last").iterrows()
    ]
    section: dict[str, Any] = {
        "flagged": rows[:FLAGGED_SHOWN],
        "n_flagged": len(rows),
        "n_answers_flagged": int(flags["too_fast"].sum()),
        "per_page": rule.per_page,
        "annotators": people,
    }
    if rule.drop or rule.max_share is not None:
        decisions = []
        if rule.drop:
            decisions.append({"rule": "drop_too_fast", "annotators": 0, "answers": len(dropped_answers)})
        if rule.max_share is not None:
            owner = info["annotator_id"]
            with_people = int(owner.isin(list(dropped_people)).sum())
            decisions.append({"rule": "max_too_fast_share", "annotators": len(dropped_people), "answers": with_people})
        section["decisions"] = decisions
    return section


def _plain(value: Any) -> float | None:
    value = float(value)
    return None if value != value else round(value, 3)
