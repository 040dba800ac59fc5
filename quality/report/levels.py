"""The report's section on the fields that are not voted on: per interval field the agreement that
fits scores (Krippendorff's alpha, interval, and the ICC) with the per-item scores' summary; per
span field pairwise span F1 and the spans marked and agreed per label. Read from the run's report
(`quality.level_results` and `quality.agreement` write it); empty without such fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _fixed(value: Any, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _interval(low: Any, high: Any) -> str:
    return "—" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"


def level_context(
    agreement: Mapping[str, Mapping[str, Any]],
    scores: Mapping[str, Mapping[str, Any]],
    spans: Mapping[str, Mapping[str, Any]],
    titles: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Rows ready to print: `score_rows` (interval fields) and `span_rows` (span fields), in the
    order of the agreement table."""
    order = [name for name in agreement if name in scores or name in spans]
    order += [name for name in [*scores, *spans] if name not in order]
    score_rows, span_rows = [], []
    for name in order:
        figures = agreement.get(name) or {}
        if name in scores:
            s, alpha, icc = scores[name], figures.get("alpha") or {}, figures.get("icc") or {}
            score_rows.append(
                {
                    "name": name,
                    "title": (titles or {}).get(name) or s.get("title") or name,
                    "n_items": s.get("n_items"),
                    "mean": _fixed(s.get("mean_of_means"), 2),
                    "sd": _fixed(s.get("mean_sd"), 2),
                    "alpha": _fixed(alpha.get("value")),
                    "alpha_interval": _interval(alpha.get("low"), alpha.get("high")),
                    "icc": _fixed(icc.get("single")),
                    "icc_k": _fixed(icc.get("average")),
                    "k0": _fixed(icc.get("k0"), 1),
                    "notes": [why for why in (icc.get("reason"), alpha.get("reason")) if why],
                    "why": "; ".join(w for w in (icc.get("reason"), alpha.get("reason")) if w)
                    or "not computed: too few items with two kept scores",
                    "without_z": s.get("annotators_without_z") or 0,
                }
            )
        if name in spans:
            s = spans[name]
            span_rows.append(
                {
                    "name": name,
                    "title": (titles or {}).get(name) or s.get("title") or name,
                    "n_items": s.get("n_items"),
                    "items_with_spans": s.get("items_with_spans"),
                    "exact_f1": _fixed(s.get("exact_f1")),
                    "overlap_f1": _fixed(s.get("overlap_f1")),
                    "n_pairs": s.get("n_pairs"),
                    "labels": [
                        {"label": label, "marked": n.get("marked"), "agreed": n.get("agreed")}
                        for label, n in (s.get("labels") or {}).items()
                    ],
                }
            )
    return {"score_rows": score_rows, "span_rows": span_rows}
