"""Dawid-Skene (1979): the true label of each item, from each annotator's confusion matrix, by EM.

Written here rather than taken from Toloka's crowd-kit, whose install drags transformers,
huggingface-hub, tokenizers and pyarrow into the runtime; it follows crowd-kit's `DawidSkene`
(initialised from the majority-vote shares, probabilities floored at 1e-10) and is tested against
numbers crowd-kit 1.4.2 printed (tests/quality/stats/test_dawid_skene.py).

Input: a frame cleaned by `labels.clean_labels` (columns item, annotator, value).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from .labels import value_domain

EPS = 1e-10


@dataclass(frozen=True)
class DawidSkene:
    labels: pd.DataFrame  # index item: label (most probable), posterior (its probability), tie
    posteriors: pd.DataFrame  # items x labels: P(true label | all labels), rows sum to 1
    priors: pd.Series  # label -> estimated share of items whose true label it is
    errors: pd.DataFrame  # (annotator, observed label) x true label: P(observed | true)
    iterations: int
    converged: bool
    log_likelihood: float  # of the labels under the fitted model (the EM objective)


@dataclass(frozen=True)
class _Coded:
    item: np.ndarray  # per label row: item index
    who: np.ndarray  # annotator index
    value: np.ndarray  # label index
    shape: tuple[int, int, int]  # items, annotators, labels


def dawid_skene(labels: pd.DataFrame, *, tol: float = 1e-7, max_iter: int = 500) -> DawidSkene:
    """EM from the majority-vote shares until the log-likelihood rises by less than `tol`
    (or `max_iter` rounds). Deterministic: no random start. Posterior ties go to the first label
    in sort order and are flagged in `labels.tie`."""
    if labels.empty:
        raise ValueError("Dawid-Skene needs at least one label")
    domain = value_domain(labels)
    item_codes, items = pd.factorize(labels["item"], sort=True)
    who_codes, annotators = pd.factorize(labels["annotator"], sort=True)
    value_codes = pd.Index(pd.Series(domain, dtype=object)).get_indexer(labels["value"])
    coded = _Coded(item_codes, who_codes, value_codes, (len(items), len(annotators), len(domain)))
    posteriors = np.zeros((len(items), len(domain)))
    np.add.at(posteriors, (coded.item, coded.value), 1.0)
    posteriors /= posteriors.sum(axis=1, keepdims=True)
    previous, converged, rounds = -np.inf, False, 0
    while rounds < max_iter and not converged:
        rounds += 1
        priors, errors = _m_step(coded, posteriors)
        posteriors, log_likelihood = _e_step(coded, priors, errors)
        converged = abs(log_likelihood - previous) < tol
        previous = log_likelihood
    priors, errors = _m_step(coded, posteriors)
    return _result(items, annotators, domain, posteriors, priors, errors, rounds, converged, previous)


def _m_step(coded: _Coded, posteriors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Priors: mean posterior. errors[w, observed, true]: expected counts, each column normalised."""
    _, n_who, n_values = coded.shape
    counts = np.zeros((n_who, n_values, n_values))
    np.add.at(counts, (coded.who, coded.value), posteriors[coded.item])
    counts = np.clip(counts, EPS, None)
    return np.clip(posteriors.mean(axis=0), EPS, None), counts / counts.sum(axis=1, keepdims=True)


def _e_step(coded: _Coded, priors: np.ndarray, errors: np.ndarray) -> tuple[np.ndarray, float]:
    """Posterior of each item's true label given its labels; log-likelihood of all labels."""
    n_items = coded.shape[0]
    joint = np.tile(np.log(priors), (n_items, 1))
    np.add.at(joint, coded.item, np.log(errors[coded.who, coded.value]))
    evidence = logsumexp(joint, axis=1)
    return np.exp(joint - evidence[:, None]), float(evidence.sum())


def _result(items, annotators, domain, posteriors, priors, errors, rounds, converged, log_likelihood) -> DawidSkene:
    """Wrap the arrays in frames labelled by item, annotator and label."""
    columns = pd.Index(pd.Series(domain, dtype=object), name="label")
    table = pd.DataFrame(posteriors, index=pd.Index(items, name="item"), columns=columns)
    best = posteriors.argmax(axis=1)
    top = posteriors[np.arange(len(best)), best]
    chosen = pd.DataFrame(
        {
            "label": [domain[j] for j in best],
            "posterior": top,
            "tie": np.isclose(posteriors, top[:, None]).sum(axis=1) > 1,
        },
        index=table.index,
    )
    index = pd.MultiIndex.from_product([annotators, columns], names=["annotator", "observed"])
    flat = pd.DataFrame(errors.reshape(-1, len(domain)), index=index, columns=columns.rename("true"))
    return DawidSkene(
        chosen, table, pd.Series(priors, index=columns, name="prior"), flat, rounds, converged, log_likelihood
    )
