"""A seeded simulated crowd: true labels, annotators of known kinds, and the labels they give.

Aggregators (majority, Dawid-Skene, MACE, GLAD, ...) are judged by how many true labels they
recover, which only a crowd with a known truth can show. The kinds of annotator are those of
issue 28's measurements: good (right with probability `good_accuracy`), mediocre (right with
`mediocre_accuracy`), spammers (a uniformly random class whatever the item) and biased
annotators (their favourite class with probability `bias`, else the true one). A wrong answer of
a good or mediocre annotator is uniform over the other classes.

Pure and deterministic: the same arguments give the same crowd on every machine with the same
numpy (one `numpy.random.default_rng(seed)` drives every draw, in a fixed order).
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

KINDS = ("good", "mediocre", "spammer", "biased")


@dataclass(frozen=True)
class CrowdMix:
    """Shares of each kind of annotator (normalised) and what each kind does."""

    good: float = 0.40
    mediocre: float = 0.33
    spammer: float = 0.20
    biased: float = 0.07
    good_accuracy: float = 0.85
    mediocre_accuracy: float = 0.60
    bias: float = 0.80  # a biased annotator's chance of giving their favourite class

    def counts(self, n_annotators: int) -> list[int]:
        """Annotators of each kind: the shares times n, rounded by largest remainder (sum n)."""
        shares = np.array([self.good, self.mediocre, self.spammer, self.biased], dtype=float)
        if (shares < 0).any() or shares.sum() <= 0:
            raise ValueError("the crowd mix needs non-negative shares, not all zero")
        exact = shares / shares.sum() * n_annotators
        counts = np.floor(exact).astype(int)
        order = np.argsort(-(exact - counts), kind="stable")
        counts[order[: n_annotators - counts.sum()]] += 1
        return [int(n) for n in counts]


@dataclass(frozen=True)
class SimulatedCrowd:
    labels: pd.DataFrame  # item, annotator, value: one row per label, as `clean_labels` returns
    truth: pd.Series  # index item: the true label
    annotators: pd.DataFrame  # index annotator: kind, accuracy (nan for spammers/biased), favourite
    classes: list[str] = field(default_factory=list)

    def fingerprint(self) -> str:
        """A short hash of the labels and the truth, to tell whether a pinned reference still
        describes the crowd this code draws."""
        text = self.labels.to_csv(index=False) + self.truth.to_csv()
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def simulate_crowd(
    *,
    seed: int,
    n_items: int = 600,
    n_classes: int = 4,
    n_annotators: int = 30,
    labels_per_item: int = 3,
    class_prior: tuple[float, ...] | None = None,
    mix: CrowdMix | None = None,
) -> SimulatedCrowd:
    """Items with a true class drawn from `class_prior` (uniform by default), each labelled by
    `labels_per_item` distinct annotators chosen uniformly at random. Classes are "a", "b", ..."""
    if not 2 <= n_classes <= 26:
        raise ValueError("n_classes must be between 2 and 26")
    if not 1 <= labels_per_item <= n_annotators:
        raise ValueError("labels_per_item must be between 1 and n_annotators")
    mix = mix or CrowdMix()
    prior = np.full(n_classes, 1.0 / n_classes) if class_prior is None else np.asarray(class_prior, float)
    if prior.shape != (n_classes,) or (prior < 0).any():
        raise ValueError("class_prior needs one non-negative share per class")
    prior = prior / prior.sum()
    rng = np.random.default_rng(seed)
    classes = list(string.ascii_lowercase[:n_classes])
    truth = rng.choice(n_classes, size=n_items, p=prior)
    kinds = np.repeat(np.arange(len(KINDS)), mix.counts(n_annotators))
    rng.shuffle(kinds)
    favourite = rng.integers(n_classes, size=n_annotators)
    chosen = np.argsort(rng.random((n_items, n_annotators)), axis=1)[:, :labels_per_item]
    item = np.repeat(np.arange(n_items), labels_per_item)
    who = chosen.ravel()
    values = _answers(rng, truth[item], kinds[who], favourite[who], n_classes, mix)
    ids = [f"w{number:03d}" for number in range(n_annotators)]
    frame = pd.DataFrame({"item": item, "annotator": [ids[w] for w in who], "value": [classes[v] for v in values]})
    accuracy = {0: mix.good_accuracy, 1: mix.mediocre_accuracy}
    annotators = pd.DataFrame(
        {
            "kind": [KINDS[k] for k in kinds],
            "accuracy": [accuracy.get(int(k), np.nan) for k in kinds],
            "favourite": [classes[f] if k == 3 else None for k, f in zip(kinds, favourite)],
        },
        index=pd.Index(ids, name="annotator"),
    )
    return SimulatedCrowd(
        frame.sort_values(["item", "annotator"], ignore_index=True),
        pd.Series([classes[t] for t in truth], index=pd.Index(range(n_items), name="item"), name="truth"),
        annotators,
        classes,
    )


def _answers(
    rng: np.random.Generator, truth: np.ndarray, kind: np.ndarray, favourite: np.ndarray, k: int, mix: CrowdMix
) -> np.ndarray:
    """One label per (true class, annotator kind): draws made for every row, then picked by kind,
    so the stream of random numbers does not depend on who labelled what."""
    n = len(truth)
    right, coin = rng.random(n), rng.random(n)
    other = (truth + 1 + rng.integers(k - 1, size=n)) % k  # uniform over the wrong classes
    uniform = rng.integers(k, size=n)
    accuracy = np.where(kind == 0, mix.good_accuracy, mix.mediocre_accuracy)
    skilled = np.where(right < accuracy, truth, other)
    biased = np.where(coin < mix.bias, favourite, truth)
    return np.select([kind <= 1, kind == 2], [skilled, uniform], default=biased)
