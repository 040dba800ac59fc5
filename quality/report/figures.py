"""Which plots a quality run's report has, from the run's data: the generic ones here, the
kind's own through `TaskKind.report_plots` (data only; drawn here, so no kind is named)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from annotation.kinds import KindPlot

from . import plots
from .format import field_title

#: (name, title, svg, note): a plot with nothing to draw has no svg and a note saying why
Figure = tuple[str, str, str, str]


def annotator_histograms(annotators: pd.DataFrame, settings: Mapping[str, Any]) -> list[Figure]:
    """Accuracy against gold (where the kind has gold) and kappa against the others' majority,
    each with its rule's threshold when the rule is on."""
    found = []
    for column, label, threshold in (
        ("accuracy", "accuracy against the gold labels", settings.get("min_accuracy")),
        ("kappa_vs_majority", "Cohen's kappa against the others' majority", settings.get("min_annotator_kappa")),
    ):
        if column in annotators.columns and annotators[column].notna().any():
            values = annotators[column].dropna().astype(float)
            title = f"Annotators: {label}"
            svg = plots.histogram(
                values.tolist(),
                title=title,
                xlabel=label,
                threshold=None if threshold is None else float(threshold),
            )
            found.append((f"annotators_{column}", title, svg, ""))
    return found


def field_intervals(fields: Mapping[str, Mapping[str, Any]]) -> Figure | None:
    """Krippendorff's alpha of every field that has one, with its bootstrap 95 % interval, each
    field by its title; no field with an alpha: a note instead of an empty frame."""
    if not fields:
        return None
    title = "Krippendorff's alpha per field (95 % bootstrap interval)"
    names = [n for n in fields if (fields[n].get("alpha") or {}).get("value") is not None]
    if not names:
        reasons = {str(why) for n in fields if (why := (fields[n].get("alpha") or {}).get("reason"))}
        why = "; ".join(sorted(reasons)) or "no field has an alpha"
        return ("fields", title, "", f"Not drawn: no field has an alpha in this run ({why}).")
    alphas = [fields[n]["alpha"] for n in names]
    svg = plots.intervals(
        [field_title(n, fields[n].get("title")) for n in names],
        [a["value"] for a in alphas],
        [a["low"] for a in alphas],
        [a["high"] for a in alphas],
        title=title,
        xlabel="Krippendorff's alpha",
    )
    return ("fields", title, svg, "")


def item_confidence(confidence: Mapping[str, Sequence[float]], titles: Mapping[str, str] | None = None) -> list[Figure]:
    """Per aggregated field (by its title): how sure its items' labels are (the posterior of the chosen label)."""
    found = []
    for name, posteriors in confidence.items():
        if posteriors:
            title = f"Item confidence: {field_title(name, (titles or {}).get(name))}"
            svg = plots.histogram(
                posteriors, title=title, xlabel="posterior of the chosen label", ylabel="items", value_range=(0, 1)
            )
            found.append((f"confidence_{name}", title, svg, ""))
    return found


def kind_figure(plot: KindPlot) -> Figure:
    draw = {
        "bar": lambda: plots.bars(plot.x, plot.y, title=plot.title, xlabel=plot.xlabel, ylabel=plot.ylabel),
        "scatter": lambda: plots.scatter(plot.x, plot.y, title=plot.title, xlabel=plot.xlabel, ylabel=plot.ylabel),
        "hist": lambda: plots.histogram(plot.x, title=plot.title, xlabel=plot.xlabel),
    }
    if plot.chart not in draw:
        raise ValueError(f"unknown chart {plot.chart!r} of plot {plot.name!r}; known: {', '.join(draw)}")
    return (plot.name, plot.title, draw[plot.chart](), "")


def time_on_task(frame: pd.DataFrame) -> Figure | None:
    """Seconds per completed annotation, one box per annotator."""
    done = frame[frame["completed"].fillna(False).astype(bool) & frame["seconds"].notna()]
    if done.empty:
        return None
    groups = done.groupby("annotator", sort=True)["seconds"]
    title = "Time on task per annotator"
    svg = plots.boxes(
        [g.astype(float).tolist() for _, g in groups],
        [str(k) for k, _ in groups],
        title=title,
        ylabel="seconds per annotation",
    )
    return ("time_on_task", title, svg, "")


def batch_progress(events: pd.DataFrame, slots: int) -> Figure | None:
    """Assignment slots done, in progress and open over time. `events`: one row per assignment
    with `started` and `ended` (submitted, or released: last activity; NaT while working) and `done`."""
    if events.empty or slots <= 0:
        return None
    times = sorted(set(events["started"]) | set(events["ended"].dropna()))
    title = "Progress of the batches"
    if len(times) < 2:
        return (
            "progress",
            title,
            "",
            "Not drawn: every assignment started and ended at one moment, so there is no time to plot.",
        )
    done, working = [], []
    for moment in times:
        ended = events["ended"].notna() & (events["ended"] <= moment)
        done.append(int((ended & events["done"]).sum()))
        working.append(int(((events["started"] <= moment) & ~ended).sum()))
    free = [max(slots - d - w, 0) for d, w in zip(done, working, strict=True)]
    svg = plots.stacked(
        times, {"done": done, "in progress": working, "open": free}, title=title, ylabel="assignment slots"
    )
    return ("progress", title, svg, "")


def run_figures(
    *,
    fields: Mapping[str, Mapping[str, Any]],
    annotators: pd.DataFrame,
    frame: pd.DataFrame,
    kind_plots: Sequence[KindPlot],
    settings: Mapping[str, Any],
    events: pd.DataFrame,
    slots: int,
    confidence: Mapping[str, Sequence[float]] | None = None,
) -> list[Figure]:
    """Every plot the report shows, in page order; plots without data are left out, or kept
    with a note instead of the drawing where the reader would look for them.
    `confidence`: per aggregated field, its items' posteriors of the chosen label."""
    titles = {name: str(f.get("title") or name) for name, f in fields.items()}
    found = [
        *annotator_histograms(annotators, settings),
        field_intervals(fields),
        *item_confidence(confidence or {}, titles),
        *[kind_figure(plot) for plot in kind_plots],
        time_on_task(frame),
        batch_progress(events, slots),
    ]
    return [figure for figure in found if figure is not None]
