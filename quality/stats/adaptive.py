"""Adaptive redundancy's two rules, on plain numbers: when an item has labels enough, and when an
annotator is a spammer whose work no longer helps (docs/adaptive-redundancy.md).

Stop rule: an item is settled once it has at least `min_labels` labels and the posterior of its
most probable label reaches `target`; an item with `max_labels` labels is settled whatever its
posterior (nobody may give it more). Spammer rule: an annotator with at least `min_judged`
labels whose competence (MACE's probability of labelling knowingly, Hovy et al. 2013) is below
`min_competence` with posterior probability `STOP_CREDIBILITY` gets no more work: a uniform
spammer's is near 0, a biased annotator's the share of labels that are not their favourite, a
good annotator's near their accuracy. The point estimate alone is not enough: from 15 labels it
strays far (two good annotators of thirty, right 85 % of the time, were estimated at 0.49 and
stopped by a floor of 0.5 on one simulated crowd; bench/README.md).

Model vote: a language model's label of each item counts as one more annotator's, its
competence fitted by the same model as a person's, over the items people labelled too and any
gold items it answered (their expected answers as MACE's control items), never assumed. It adds
evidence to an item's posterior, not a label to its count: the stop rule's minimum and maximum
count people.

Routing rule: an annotator is handed first the items that one agreeing label of theirs would
settle, those whose posterior is at least their `settles_from`, so that good annotators close
items on their second label while weaker ones take the items that need a third anyway.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy.stats import beta as scipy_beta

from .dawid_skene import dawid_skene
from .label_codes import encode_labels, vote_shares
from .mace import mace

#: labels an annotator gives before the spammer rule judges them: MACE's competence from fewer
#: is mostly its prior, and from 15 the 90 % rule still stopped one good annotator of thirty on
#: two all-good crowds of five, from 20 on none (bench/README.md, "Adaptive redundancy")
MIN_JUDGED = 20
#: the posterior probability that an annotator's competence is below the floor before they are
#: stopped (under MACE's variational Beta posterior of their competence)
STOP_CREDIBILITY = 0.9
METHODS = ("mace", "dawid_skene")


def settled(
    posterior: np.ndarray, labels: np.ndarray, *, target: float, min_labels: int, max_labels: int
) -> np.ndarray:
    """Per item, whether it needs no more labels (the stop rule above)."""
    posterior, labels = np.asarray(posterior, float), np.asarray(labels, int)
    return ((labels >= min_labels) & (posterior >= target)) | (labels >= max_labels)


def spammers(
    beta: pd.DataFrame,
    labels: pd.Series,
    *,
    min_competence: float,
    min_judged: int = MIN_JUDGED,
    credibility: float = STOP_CREDIBILITY,
) -> pd.Series:
    """Per annotator (index of `beta`, MACE's `competence_beta`), whether the spammer rule stops
    them: at least `min_judged` labels and P(competence < min_competence) >= `credibility`."""
    counts = labels.reindex(beta.index).fillna(0)
    below = scipy_beta.cdf(min_competence, beta["knowing"], beta["spamming"])
    return (counts >= min_judged) & (pd.Series(below, index=beta.index) >= credibility)


def settles_from(competence: pd.Series, *, classes: int, target: float) -> pd.Series:
    """Per annotator, the lowest posterior of an item's label from which one more label of theirs,
    agreeing with it, lifts it to `target`. Under MACE with a uniform spamming strategy over
    `classes` labels, agreeing multiplies the label's odds against all others by
    r = 1 + classes * theta / (1 - theta), whatever the other labels' shares; so the odds needed
    are target's odds over r: p >= O / (O + r), O = target / (1 - target). A spammer (theta 0,
    r 1) settles nothing below the target itself; a perfect annotator (theta 1) anything."""
    theta = competence.astype(float).clip(0.0, 1.0 - 1e-9)
    if target >= 1:  # no label reaches certainty
        return pd.Series(1.0, index=theta.index)
    ratio = 1.0 + max(classes, 2) * theta / (1.0 - theta)
    odds = target / (1.0 - target)
    return odds / (odds + ratio)


@dataclass(frozen=True)
class ModelVote:
    """The model's fitted competence as a voter (MACE's, as a person's) and what it rests on."""

    competence: float
    knowing: float  # its Beta posterior, as `Estimates.competence_beta`
    spamming: float
    items: int  # items people labelled too, whose labels it was judged against
    gold: int  # gold items it answered, judged against their expected answers
    counted: bool = True  # False: the spammer rule stopped its vote (`estimate`'s min_competence)


@dataclass(frozen=True)
class Estimates:
    items: pd.DataFrame  # index item: label, posterior (of that label), labels (people's: how many)
    competence: pd.Series  # index annotator: MACE's competence (empty with one annotator)
    competence_beta: pd.DataFrame  # index annotator: knowing, spamming (its Beta posterior)
    classes: int  # labels seen in the batch (MACE's strategies spread over them)
    model: ModelVote | None = None  # the model's vote, when it had one


def estimate(
    labels: pd.DataFrame,
    *,
    method: str = "mace",
    model: pd.Series | None = None,
    gold: pd.Series | None = None,
    min_competence: float | None = None,
) -> Estimates:
    """Each item's label and posterior by `method`, and each annotator's MACE competence. MACE
    fits both at once; its posteriors are the sharper ones on a few labels an item (bench/README.md,
    "Adaptive redundancy": two agreeing labels of good annotators reach 0.99 under MACE, never 0.9
    under Dawid-Skene's Dirichlet prior, which shrinks the confusion matrices of annotators with
    few labels). With one annotator in all no model can tell competence from the labels: the vote
    shares are the posterior.

    `model`: item -> the model's label, a vote on the items people labelled (`with_model`);
    `gold`: item -> the expected answer of gold items, where the model's answers of them judge it."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")
    counts = labels.groupby("item").size().rename("labels")
    if labels["annotator"].nunique() < 2:
        codes = encode_labels(labels, method=method)
        shares = vote_shares(codes)
        table = pd.DataFrame(
            {"label": [codes.domain[i] for i in shares.argmax(axis=1)], "posterior": shares.max(axis=1)},
            index=pd.Index(codes.items, name="item"),
        )
        return Estimates(
            table.join(counts), pd.Series(dtype=float), pd.DataFrame(columns=["knowing", "spamming"]), len(codes.domain)
        )
    if model is not None and not model.empty:
        voted = with_model(labels, model, gold=gold, method=method)
        vote = voted.model
        if vote is None or min_competence is None or not model_stopped(vote, min_competence=min_competence):
            return voted
        return replace(estimate(labels, method=method), model=replace(vote, counted=False))
    fitted = mace(labels)
    table = fitted.labels if method == "mace" else dawid_skene(labels).labels
    return Estimates(
        table[["label", "posterior"]].join(counts), fitted.competence, fitted.competence_beta, fitted.strategy.shape[1]
    )


def with_model(labels: pd.DataFrame, model: pd.Series, *, gold: pd.Series | None, method: str) -> Estimates:
    """`estimate` with the model's label as one more annotator's. People are numbered 0..n-1 and
    the model n for the fit (no id of a person's can be taken for it); its labels enter on the
    items people labelled and on the gold items it answered, whose expected answers are control
    items (a gold answer nobody gave cannot be a control and is left out). Items only the model
    or the gold answers speak for get no estimate: the stop rule waits for people."""
    people = labels["item"].unique()
    gold = pd.Series(dtype=object) if gold is None else gold[~gold.index.isin(people)]
    voted = model[model.index.isin(people) | model.index.isin(gold.index)]
    who, names = pd.factorize(labels["annotator"], sort=True)
    frame = pd.concat(
        [
            labels.assign(annotator=who),
            pd.DataFrame({"item": voted.index, "annotator": len(names), "value": voted.to_numpy()}),
        ],
        ignore_index=True,
    )
    known = gold[gold.index.isin(voted.index) & gold.isin(set(frame["value"]))]
    fitted = mace(frame, known=known)
    table = fitted.labels if method == "mace" else dawid_skene(frame).labels
    counts = labels.groupby("item").size().rename("labels")
    beta = fitted.competence_beta
    vote = ModelVote(
        float(fitted.competence.iloc[-1]),
        float(beta["knowing"].iloc[-1]),
        float(beta["spamming"].iloc[-1]),
        int(voted.index.isin(people).sum()),
        len(known),
    )
    humans = beta.iloc[: len(names)].set_axis(pd.Index(names, name="annotator"))
    return Estimates(
        table.loc[counts.index, ["label", "posterior"]].join(counts),
        fitted.competence.iloc[: len(names)].set_axis(humans.index),
        humans,
        fitted.strategy.shape[1],
        vote,
    )


def model_stopped(vote: ModelVote, *, min_competence: float) -> bool:
    """Whether the spammer rule would stop the model were it a person (`spammers`)."""
    beta = pd.DataFrame({"knowing": [vote.knowing], "spamming": [vote.spamming]})
    return bool(spammers(beta, pd.Series([vote.items + vote.gold]), min_competence=min_competence).iloc[0])
