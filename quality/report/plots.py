"""Drawing the quality report's plots: data in, one SVG document (str) out.

matplotlib's object API on a `Figure` with the Agg-family SVG canvas (no pyplot, no global state,
safe in a web worker); text is drawn as paths (`svg.fonttype` 'path', the default), so an SVG
needs no font and can be inlined in a self-contained HTML file. No Django here.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")

from matplotlib.dates import AutoDateLocator, ConciseDateFormatter  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

SIZE = (6.4, 3.6)
METADATA = {"Date": None}  # no timestamp: the same data draw the same bytes


def to_svg(figure: Figure) -> str:
    """The figure as an SVG document."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata=METADATA, bbox_inches="tight")
    return buffer.getvalue()


def _figure(title: str, xlabel: str = "", ylabel: str = ""):
    figure = Figure(figsize=SIZE, layout="constrained")
    axes = figure.add_subplot()
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    return figure, axes


def histogram(
    values: Sequence[float],
    *,
    title: str,
    xlabel: str,
    threshold: float | None = None,
    threshold_label: str = "threshold",
    ylabel: str = "annotators",
    value_range: tuple[float, float] | None = None,
) -> str:
    """Distribution of one figure over annotators (or items: `ylabel`), with the rule's threshold
    as a vertical line; `value_range` fixes the bins' span (posteriors: 0 to 1)."""
    figure, axes = _figure(title, xlabel, ylabel)
    axes.hist(
        [float(v) for v in values],
        bins=min(20, max(5, len(values))),
        range=value_range,
        color="#417690",
        edgecolor="white",
    )
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    if threshold is not None:
        axes.axvline(float(threshold), color="#ba2121", linestyle="--", label=f"{threshold_label} {threshold:g}")
        axes.legend(loc="upper left")
    return to_svg(figure)


def intervals(
    names: Sequence[str],
    values: Sequence[float | None],
    lows: Sequence[float | None],
    highs: Sequence[float | None],
    *,
    title: str,
    xlabel: str,
) -> str:
    """One point per field with its interval (a field without a value is left blank)."""
    figure, axes = _figure(title, xlabel)
    positions = list(range(len(names)))
    for y, value, low, high in zip(positions, values, lows, highs, strict=True):
        if value is None:
            continue
        if low is not None and high is not None:
            axes.plot([low, high], [y, y], color="#417690", linewidth=2)
        axes.plot([value], [y], "o", color="#205067")
    axes.set_yticks(positions, list(names))
    axes.invert_yaxis()
    axes.axvline(0.0, color="#999999", linewidth=0.8)
    axes.set_xlim(min(-0.1, *[v - 0.05 for v in lows if v is not None] or [0]), 1.05)
    return to_svg(figure)


def bars(labels: Sequence[str], heights: Sequence[float], *, title: str, xlabel: str = "", ylabel: str = "") -> str:
    figure, axes = _figure(title, xlabel, ylabel)
    axes.bar([str(label) for label in labels], [float(h) for h in heights], color="#417690")
    if len(labels) > 12:
        axes.tick_params(axis="x", labelrotation=90, labelsize=6)
    return to_svg(figure)


def scatter(x: Sequence[float], y: Sequence[float], *, title: str, xlabel: str = "", ylabel: str = "") -> str:
    figure, axes = _figure(title, xlabel, ylabel)
    axes.scatter([float(v) for v in x], [float(v) for v in y], alpha=0.6, color="#417690")
    axes.plot([0, 1], [0, 1], color="#999999", linewidth=0.8)
    return to_svg(figure)


def boxes(groups: Sequence[Sequence[float]], labels: Sequence[str], *, title: str, ylabel: str) -> str:
    """One box per annotator (time on task)."""
    figure, axes = _figure(title, "annotator", ylabel)
    axes.boxplot([[float(v) for v in group] for group in groups], tick_labels=[str(label) for label in labels])
    if len(labels) > 12:
        axes.tick_params(axis="x", labelrotation=90, labelsize=6)
    return to_svg(figure)


def stacked(times: Sequence, series: dict[str, Sequence[int]], *, title: str, ylabel: str) -> str:
    """Stacked areas over time (batch progress: done, in progress, open)."""
    figure, axes = _figure(title, "time", ylabel)
    colors = ["#3c8a3c", "#e0a526", "#cccccc"]
    axes.stackplot(
        list(times), *[list(v) for v in series.values()], labels=list(series), colors=colors[: len(series)], step="post"
    )
    axes.legend(loc="upper left")
    axes.set_xlim(times[0], times[-1])  # the batch's own time, not the locator's round years
    locator = AutoDateLocator()
    axes.xaxis.set_major_locator(locator)
    axes.xaxis.set_major_formatter(ConciseDateFormatter(locator))
    return to_svg(figure)
