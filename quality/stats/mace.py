"""MACE, Multi-Annotator Competence Estimation (Hovy, Berg-Kirkpatrick, Vaswani and Hovy,
"Learning Whom to Trust with MACE", NAACL-HLT 2013): who is spamming, and the labels despite them.

Each label is either given knowingly, and then it is the true label, or by spamming, with the
annotator's own strategy (a distribution over the labels, whatever the item). Annotator j knows
with probability theta_j (their competence), so

    P(label a | true t) = theta_j [a = t] + (1 - theta_j) xi_j[a]

and the true labels are uniform a priori. Trained as in the paper by variational Bayes EM with a
Beta(0.5, 0.5) prior on theta_j (the paper's choice: it favours annotators who either try or do
not care) and a symmetric Dirichlet(10) on each strategy xi_j (crowd-kit's `MACE` value). Unlike the paper's random restarts, EM starts deterministically from theta = 0.5
and uniform strategies, which treats every label alike in the first round (a majority vote).
Compared with crowd-kit 1.4.2 in tests/quality/stats/test_aggregators.py.

Control items (`known`, the paper's tool's `--controls`): items whose true label is given. Their
prior is all on that label, so their posterior is too, and their labels tell each annotator's
competence directly (a gold item's expected answer).

Input: a frame cleaned by `labels.clean_labels` (columns item, annotator, value).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import digamma

from .label_codes import LabelCodes, encode_labels, item_answers, label_columns, normalise_log

BETA_PRIOR = (0.5, 0.5)  # on (spamming, knowing)
STRATEGY_PRIOR = 10.0


@dataclass(frozen=True)
class Mace:
    labels: pd.DataFrame  # index item: label (most probable), posterior (its probability), tie
    posteriors: pd.DataFrame  # items x labels: P(true label | all labels), rows sum to 1
    competence: pd.Series  # annotator -> theta, the probability they label knowingly (not spamming)
    # annotator -> (knowing, spamming): theta's variational posterior is Beta(knowing, spamming),
    # expected labels of each sort plus the prior; `competence` is its mean
    competence_beta: pd.DataFrame
    strategy: pd.DataFrame  # annotator x label: what they give when spamming, rows sum to 1
    iterations: int
    converged: bool
    log_likelihood: float  # log marginal likelihood of the labels


@dataclass
class _Weights:
    """What the E-step uses: under variational Bayes, the geometric means of the Beta and
    Dirichlet posteriors, which need not sum to 1."""

    knowing: np.ndarray  # per annotator
    spamming: np.ndarray  # per annotator
    strategy: np.ndarray  # annotator x label


@dataclass
class _Counts:
    knowing: np.ndarray  # per annotator: expected labels given knowingly
    spamming: np.ndarray  # annotator x label: expected labels given by spamming


def mace(
    labels: pd.DataFrame,
    *,
    beta_prior: tuple[float, float] = BETA_PRIOR,
    strategy_prior: float = STRATEGY_PRIOR,
    tol: float = 1e-7,
    max_iter: int = 500,
    known: pd.Series | None = None,
) -> Mace:
    """Variational EM until the log marginal likelihood changes by less than `tol` (or
    `max_iter` rounds). Deterministic; posterior ties go to the first label and are flagged.
    `known`: item -> its true label, for control items (a label no annotator gave is refused)."""
    codes = encode_labels(labels, method="MACE")
    _, n_annotators, n_values = codes.shape
    controls = _controls(codes, known)
    weights = _Weights(
        np.full(n_annotators, 0.5), np.full(n_annotators, 0.5), np.full((n_annotators, n_values), 1 / n_values)
    )
    previous, converged, rounds = -np.inf, False, 0
    while True:
        posteriors, log_likelihood, counts = _e_step(codes, weights, controls)
        converged = abs(log_likelihood - previous) < tol
        previous = log_likelihood
        if converged or rounds == max_iter:
            break
        rounds += 1
        weights = _variational_m_step(counts, beta_prior, strategy_prior)
    chosen, table = item_answers(codes, posteriors)
    spam_prior, know_prior = beta_prior
    strategy = counts.spamming + strategy_prior
    beta = pd.DataFrame(
        {"knowing": counts.knowing + know_prior, "spamming": counts.spamming.sum(axis=1) + spam_prior},
        index=codes.annotators,
    )
    return Mace(
        chosen,
        table,
        (beta["knowing"] / beta.sum(axis=1)).rename("competence"),
        beta,
        pd.DataFrame(
            strategy / strategy.sum(axis=1, keepdims=True), index=codes.annotators, columns=label_columns(codes)
        ),
        rounds,
        converged,
        previous,
    )


def _controls(codes: LabelCodes, known: pd.Series | None) -> np.ndarray | None:
    """Items x values: 0 where a true label may be, -inf where a control item's cannot (added to
    the log prior); None without control items."""
    if known is None or known.empty:
        return None
    rows = codes.items.get_indexer(known.index)
    values = pd.Index(pd.Series(codes.domain, dtype=object)).get_indexer(known.to_numpy())
    unknown = [item for item, row, value in zip(known.index, rows, values) if row < 0 or value < 0]
    if unknown:
        raise ValueError(f"control items without a label, or with a true label nobody gave: {unknown[:5]}")
    n_items, _, n_values = codes.shape
    controls = np.zeros((n_items, n_values))
    controls[rows] = -np.inf
    controls[rows, values] = 0.0
    return controls


def _e_step(
    codes: LabelCodes, weights: _Weights, controls: np.ndarray | None = None
) -> tuple[np.ndarray, float, _Counts]:
    """Posteriors of the true labels, the log marginal likelihood, and the expected counts of
    knowing and spamming labels (a label can be knowing only if it is the true one)."""
    n_items, n_annotators, n_values = codes.shape
    know = weights.knowing[codes.who]
    spam = weights.spamming[codes.who] * weights.strategy[codes.who, codes.value]  # any true label
    match = know + spam  # P(label | the true label is this one)
    joint = np.full((n_items, n_values), -np.log(n_values))
    joint += np.bincount(codes.item, weights=np.log(spam), minlength=n_items)[:, None]
    np.add.at(joint, (codes.item, codes.value), np.log(match) - np.log(spam))
    if controls is not None:
        joint += controls
    posteriors, evidence = normalise_log(joint)
    knowing = posteriors[codes.item, codes.value] * know / match
    spamming = np.zeros((n_annotators, n_values))
    np.add.at(spamming, (codes.who, codes.value), 1 - knowing)
    counts = _Counts(np.bincount(codes.who, weights=knowing, minlength=n_annotators), spamming)
    return posteriors, float(evidence.sum()), counts


def _variational_m_step(counts: _Counts, beta_prior: tuple[float, float], strategy_prior: float) -> _Weights:
    """Mean-field updates: exp(digamma(count + prior)) over exp(digamma(total + priors))."""
    spam_prior, know_prior = beta_prior
    spammed = counts.spamming.sum(axis=1)
    total = digamma(counts.knowing + spammed + spam_prior + know_prior)
    strategy = counts.spamming + strategy_prior
    return _Weights(
        np.exp(digamma(counts.knowing + know_prior) - total),
        np.exp(digamma(spammed + spam_prior) - total),
        np.exp(digamma(strategy) - digamma(strategy.sum(axis=1, keepdims=True))),
    )
