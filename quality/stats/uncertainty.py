"""Each item's label with how sure it is: the chosen label, its posterior, and a bootstrap interval
over annotators; and each annotator's estimated competence with its interval (issue 28).

Any of the aggregators (`METHODS`) gives, per item, a posterior over the labels. Majority vote's
"posterior" is the share of votes. The interval resamples *annotators* with replacement (a
cluster bootstrap: an annotator's labels stay together, since their errors do), fits the same
method again on every resample, and takes the percentile interval of the chosen label's
posterior (the label chosen on all the data) over the resamples in which the item has a label.
An annotator drawn twice counts as two annotators with the same labels. The resample indices are
drawn as `scipy.stats.bootstrap` draws them (`rng.integers(0, n, (rounds, n))`) and the
percentiles are NumPy's linear ones, as its `percentile` method uses; tested against it.

Competence is one figure for every method: the mean posterior of the labels an annotator gave,
the expected share of their labels that are right. For one-coin Dawid-Skene it is the model's
own accuracy; for the others it puts MACE's, GLAD's and a confusion matrix on one 0-1 scale.

Input: a frame cleaned by `labels.clean_labels` (columns item, annotator, value).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd
from scipy import sparse

from .dawid_skene import dawid_skene
from .glad import glad
from .label_codes import encode_labels, item_answers, vote_shares
from .mace import mace
from .one_coin import one_coin_dawid_skene

METHODS = ("majority", "dawid_skene", "one_coin", "mace", "glad")
#: fewer distinct annotators than this: `auto_method` keeps the majority vote
MIN_MODEL_ANNOTATORS = 3
#: the method `auto_method` picks when a model can be fitted (see its docstring)
MODEL_METHOD = "one_coin"


def _majority(labels: pd.DataFrame) -> pd.DataFrame:
    codes = encode_labels(labels, method="majority vote")
    return item_answers(codes, vote_shares(codes))[1]


def _glad(labels: pd.DataFrame) -> pd.DataFrame:
    if labels["value"].nunique() < 2:  # GLAD needs two classes; one label everywhere is certain
        return _majority(labels)
    return glad(labels).posteriors


#: method -> items x labels posteriors (Dawid-Skene with its Dirichlet prior, the function's default)
FITS: dict[str, Callable[[pd.DataFrame], pd.DataFrame]] = {
    "majority": _majority,
    "dawid_skene": lambda labels: dawid_skene(labels).posteriors,
    "one_coin": lambda labels: one_coin_dawid_skene(labels).posteriors,
    "mace": lambda labels: mace(labels).posteriors,
    "glad": _glad,
}


@dataclass(frozen=True)
class Uncertainty:
    method: str
    rounds: int  # bootstrap resamples asked for (0: no interval)
    confidence: float
    # index item: label (None on a tie), posterior (of the label; on a tie, of the first tied label
    # in sort order), tie, n_labels, low, high (NaN without rounds), n_rounds (resamples with a label)
    items: pd.DataFrame
    # index annotator: n_labels, competence (mean posterior of their labels), low, high, n_rounds
    annotators: pd.DataFrame


def auto_method(labels: pd.DataFrame) -> str:
    """The method "auto" means for a nominal or ordinal field: one-coin Dawid-Skene once at least
    `MIN_MODEL_ANNOTATORS` annotators labelled and some item has two labels, else majority vote.

    Why one-coin: on the bench's simulated crowds (bench/README.md, "Aggregators": 600 items,
    4 classes, 3 labels an item, 40 % good, 33 % mediocre, 20 % spamming, 7 % biased annotators)
    the models with one competence per annotator recover the most true labels (one-coin 80.8 and
    81.6 %, MACE 81.0 and 81.4 %, GLAD 81.0 and 81.2 % on seeds 41-46 and 101-106), well above
    Dawid-Skene's full confusion matrices (78.4 %) and majority vote (67 %). Of the three,
    one-coin is the fastest (the bootstrap fits it again `rounds` times; GLAD is about 7 times
    slower), agrees with crowd-kit on 99.4-99.6 % of items, and its competence is a plain
    probability of being right. Why the minimum: with two annotators a disagreement has nobody
    to settle it, so a model has nothing to learn that the votes do not show."""
    if labels.empty or labels["annotator"].nunique() < MIN_MODEL_ANNOTATORS:
        return "majority"
    if not (labels.groupby("item")["annotator"].size() >= 2).any():
        return "majority"
    return MODEL_METHOD


def label_uncertainty(
    labels: pd.DataFrame, *, method: str, rounds: int = 200, seed: int = 0, confidence: float = 0.95
) -> Uncertainty:
    """The chosen label of every item with its posterior under `method`, and the percentile
    bootstrap interval (over `rounds` resamples of the annotators, seeded) of that posterior and
    of every annotator's competence. `rounds=0`: the point estimates only (intervals NaN)."""
    if method not in FITS:
        raise ValueError(f"unknown aggregation method {method!r}; known: {', '.join(METHODS)}")
    if rounds < 0:
        raise ValueError("bootstrap rounds cannot be negative")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    fit = FITS[method]
    posteriors = fit(labels)
    chosen, n_labels = _chosen(posteriors), labels.groupby("item").size()
    competence, given = _competence(labels, posteriors)
    items = chosen.assign(n_labels=n_labels.reindex(chosen.index).to_numpy())
    annotators = pd.DataFrame({"n_labels": given, "competence": competence})
    resample = _bootstrap_votes if method == "majority" else partial(_bootstrap, fit=fit)
    item_draws, annotator_draws = resample(labels, chosen["first"], rounds, seed)
    items = items.drop(columns="first").join(_percentiles(item_draws, confidence, items.index))
    annotators = annotators.join(_percentiles(annotator_draws, confidence, annotators.index))
    return Uncertainty(method, rounds, confidence, items, annotators)


def percentile_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """The two-sided percentile interval of bootstrap values (NaN ignored; NaN when none):
    NumPy's linear quantiles at (1 - confidence) / 2 and 1 minus that, as scipy's bootstrap."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    if values.size == 0:
        return np.nan, np.nan
    tail = (1 - confidence) / 2
    low, high = np.quantile(values, [tail, 1 - tail])
    return float(low), float(high)


def _chosen(posteriors: pd.DataFrame) -> pd.DataFrame:
    """Per item: the most probable label (None when another is as probable), its posterior, the
    tie, and `first`, the first of the top labels (whose posterior the bootstrap follows)."""
    values = posteriors.to_numpy()
    best = values.argmax(axis=1)
    top = values[np.arange(len(best)), best]
    tie = np.isclose(values, top[:, None]).sum(axis=1) > 1
    first = [posteriors.columns[j] for j in best]
    index = posteriors.index
    return pd.DataFrame(  # object columns: pandas would read text with a None as str, the None as NaN
        {
            "label": pd.Series([None if t else f for f, t in zip(first, tie)], index=index, dtype=object),
            "posterior": pd.Series(top, index=index),
            "tie": pd.Series(tie, index=index),
            "first": pd.Series(first, index=index, dtype=object),
        }
    )


def _competence(labels: pd.DataFrame, posteriors: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Per annotator: the mean posterior of the labels they gave, and how many they gave."""
    rows = posteriors.index.get_indexer(labels["item"])
    columns = pd.Index(posteriors.columns.to_list(), dtype=object).get_indexer(labels["value"])
    right = posteriors.to_numpy()[rows, columns]
    grouped = pd.Series(right, index=labels["annotator"].to_numpy()).groupby(level=0, sort=True)
    return grouped.mean().rename("competence"), grouped.size().rename("n_labels")


def _draws(n_annotators: int, rounds: int, seed: int) -> np.ndarray:
    """rounds x n_annotators: which annotator fills each place of each resample (scipy's draw)."""
    return np.random.default_rng(seed).integers(0, n_annotators, (rounds, n_annotators))


def _bootstrap(
    labels: pd.DataFrame, chosen: pd.Series, rounds: int, seed: int, *, fit: Callable[[pd.DataFrame], pd.DataFrame]
) -> tuple[np.ndarray, np.ndarray]:
    """(rounds x items, rounds x annotators): the chosen labels' posteriors and the annotators'
    competence in every resample of the annotators (NaN: item without a label, annotator not drawn)."""
    who, annotators = pd.factorize(labels["annotator"], sort=True)
    items = chosen.index
    item_draws = np.full((rounds, len(items)), np.nan)
    annotator_draws = np.full((rounds, len(annotators)), np.nan)
    if rounds == 0:
        return item_draws, annotator_draws
    order = np.argsort(who, kind="stable")
    starts = np.searchsorted(who[order], np.arange(len(annotators) + 1))
    rows_of = [order[starts[a] : starts[a + 1]] for a in range(len(annotators))]
    draws = _draws(len(annotators), rounds, seed)
    item_values, label_values = labels["item"].to_numpy(), labels["value"].to_numpy()
    for r, drawn in enumerate(draws):
        rows = np.concatenate([rows_of[a] for a in drawn])
        slots = np.repeat(np.arange(len(drawn)), [len(rows_of[a]) for a in drawn])
        sample = pd.DataFrame({"item": item_values[rows], "annotator": slots, "value": label_values[rows]})
        posteriors = fit(sample)
        at = items.get_indexer(posteriors.index)
        wanted = pd.Index(posteriors.columns.to_list(), dtype=object).get_indexer(chosen.to_numpy()[at])
        values = posteriors.to_numpy()
        item_draws[r, at] = np.where(wanted >= 0, values[np.arange(len(at)), np.maximum(wanted, 0)], 0.0)
        per_slot, _ = _competence(sample, posteriors)
        by_annotator = pd.Series(per_slot.to_numpy(), index=drawn[per_slot.index.to_numpy()]).groupby(level=0).mean()
        annotator_draws[r, by_annotator.index.to_numpy()] = by_annotator.to_numpy()
    return item_draws, annotator_draws


def _bootstrap_votes(labels: pd.DataFrame, chosen: pd.Series, rounds: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """`_bootstrap` for majority vote, without refitting: a resample's vote counts are each
    annotator's one-hot labels times how often the annotator was drawn (one sparse product per
    chunk of rounds), its posteriors the shares, and a competence the mean share of the labels
    an annotator gave. Same draws, same numbers, far fewer Python steps."""
    codes = encode_labels(labels, method="majority vote")
    n_items, n_annotators, n_values = codes.shape
    item_draws = np.full((rounds, n_items), np.nan)
    annotator_draws = np.full((rounds, n_annotators), np.nan)
    if rounds == 0:
        return item_draws, annotator_draws
    onehot = sparse.csr_matrix(
        (np.ones(len(codes.item)), (codes.who, codes.item * n_values + codes.value)),
        shape=(n_annotators, n_items * n_values),
    )
    given = np.asarray(onehot.sum(axis=1)).ravel()
    wanted = pd.Index(pd.Series(codes.domain, dtype=object)).get_indexer(chosen.to_numpy())
    draws = _draws(n_annotators, rounds, seed)
    chunk = max(1, 2_000_000 // max(n_items * n_values, 1))
    for start in range(0, rounds, chunk):
        drawn = draws[start : start + chunk]
        times = np.zeros((len(drawn), n_annotators))
        np.add.at(times, (np.arange(len(drawn))[:, None], drawn), 1.0)
        counts = np.asarray((onehot.T @ times.T).T).reshape(len(drawn), n_items, n_values)
        totals = counts.sum(axis=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            shares = counts / totals[:, :, None]
        item_draws[start : start + len(drawn)] = shares[:, np.arange(n_items), wanted]
        right = onehot @ np.nan_to_num(shares.reshape(len(drawn), -1)).T  # annotators x rounds
        annotator_draws[start : start + len(drawn)] = np.where(times > 0, right.T / np.maximum(given, 1), np.nan)
    return item_draws, annotator_draws


def _percentiles(draws: np.ndarray, confidence: float, index: pd.Index) -> pd.DataFrame:
    """low, high and n_rounds of every column of `draws`, on `index`."""
    intervals = [percentile_interval(draws[:, j], confidence) for j in range(draws.shape[1])]
    return pd.DataFrame(
        {
            "low": [low for low, _ in intervals],
            "high": [high for _, high in intervals],
            "n_rounds": (~np.isnan(draws)).sum(axis=0),
        },
        index=index,
    )
