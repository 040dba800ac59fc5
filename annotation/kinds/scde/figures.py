"""SCDE's figures as the quality report names and prints them: the paper's metrics (Kong et al.
2020, §5.2): BA, the share of blanks right; PA, the share of passages with every blank right;
DE, the number of chosen sentences per passage that are distractors (a count, not a share)."""

from __future__ import annotations

from ..base import FigureStyle
from .page import DIFFICULTIES

_LEVELS = {code: str(name) for code, name in DIFFICULTIES}

FIGURES: dict[str, FigureStyle] = {
    "ba": FigureStyle("BA: blank accuracy", "share"),
    "pa": FigureStyle("PA: passage accuracy", "share"),
    "de": FigureStyle("DE: distractor error", "number"),
    "paper_human_ba": FigureStyle("BA of the paper's humans", "share"),
    "paper_human_pa": FigureStyle("PA of the paper's humans", "share"),
    "paper_human_de": FigureStyle("DE of the paper's humans", "number"),
    "min_ba": FigureStyle("Rule: minimum BA of a worker", "share"),
    "min_seconds": FigureStyle("Rule: minimum median seconds per passage", "seconds"),
    "dropped_too_fast": FigureStyle("Workers dropped: too fast", "count"),
    "dropped_low_ba": FigureStyle("Workers dropped: BA below the minimum", "count"),
    "passages_answered": FigureStyle("Passages answered", "count"),
    "n_gold": FigureStyle("Passages with gold", "count"),
    "mean_seconds_per_passage": FigureStyle("Mean seconds per passage", "seconds"),
    "median_seconds_per_passage": FigureStyle("Median seconds per passage", "seconds"),
    "paper_human_seconds_per_passage": FigureStyle("Seconds per passage of the paper's humans", "seconds"),
    **{f"share_{code}": FigureStyle(f"Rated {name.lower()}", "share") for code, name in _LEVELS.items()},
    **{
        f"share_{code}_paper_human": FigureStyle(f"Rated {name.lower()} by the paper's humans", "share")
        for code, name in _LEVELS.items()
    },
    **{f"difficulty_{code}": FigureStyle(f"Rated {name.lower()}", "count") for code, name in _LEVELS.items()},
}
