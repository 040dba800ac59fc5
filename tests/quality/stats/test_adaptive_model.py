"""Adaptive redundancy with a model's vote, on plain numbers: the model is one more annotator of
MACE's (the fit is MACE's own on the frame with the model added), its competence learned from
the people's labels and gold items, and MACE's control items (the gold answers) are the limit of
items whose true label the evidence leaves in no doubt."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from quality.stats.adaptive import STOP_CREDIBILITY, ModelVote, estimate, model_stopped, settled
from quality.stats.mace import mace
from quality.stats.simulated_crowd import simulate_crowd


def crowd_and_model(accuracy: float, *, bias: float = 0.0, seed: int = 1, labels_per_item: int = 3):
    """The issue's mixed crowd (300 items, 4 classes) and a model right with probability
    `accuracy` (else another class, uniformly), or its favourite "a" with probability `bias`."""
    crowd = simulate_crowd(seed=seed, n_items=300, labels_per_item=labels_per_item)
    rng = np.random.default_rng(seed + 100)
    answers = {}
    for item, truth in crowd.truth.items():
        other = rng.choice([c for c in crowd.classes if c != truth])
        answers[item] = "a" if rng.random() < bias else truth if rng.random() < accuracy else other
    return crowd, pd.Series(answers)


def test_the_model_vote_is_maces_fit_with_the_model_as_one_more_annotator():
    crowd, model = crowd_and_model(0.85)
    people = crowd.labels[crowd.labels["item"] < 250]  # the last 50 items: only the model labelled them
    got = estimate(people, model=model)
    frame = pd.concat([people, pd.DataFrame({"item": range(250), "annotator": "zz-model", "value": model[:250]})])
    reference = mace(frame)  # "zz-model" sorts after every "wNNN": the last annotator
    assert got.items.index.tolist() == list(range(250))  # no estimate where only the model spoke
    assert got.items["posterior"].to_numpy() == pytest.approx(reference.labels["posterior"].to_numpy())
    assert got.items["label"].tolist() == reference.labels["label"].tolist()
    assert got.competence.to_numpy() == pytest.approx(reference.competence.iloc[:-1].to_numpy())
    assert got.competence.index.tolist() == reference.competence.index[:-1].tolist()  # people keep their ids
    assert got.model.competence == pytest.approx(reference.competence["zz-model"])
    assert (got.model.knowing, got.model.spamming) == pytest.approx(tuple(reference.competence_beta.loc["zz-model"]))
    assert (got.model.items, got.model.gold) == (250, 0)
    assert (got.items["labels"] == 3).all()  # the people's labels: the model adds evidence, not a label


@pytest.mark.parametrize(
    ("accuracy", "bias", "low", "high"),
    [(0.85, 0.0, 0.72, 0.88), (0.5, 0.0, 0.25, 0.45), (0.85, 0.8, 0.0, 0.3), (0.25, 0.0, 0.0, 0.1)],
)
def test_the_models_competence_is_learned_as_a_persons_is(accuracy, bias, low, high):
    """MACE's competence theta of a model right with probability p on K classes, wrong answers
    uniform: p = theta + (1 - theta) / K, so theta = (p - 1/4) / (3/4): 0.8 at 0.85, 1/3 at 0.5,
    0 at chance; a model giving one class 80 % of the time knows at most the other 20 %."""
    crowd, model = crowd_and_model(accuracy, bias=bias)
    got = estimate(crowd.labels, model=model).model
    assert low <= got.competence <= high
    good = crowd.annotators.index[crowd.annotators["kind"] == "good"]
    assert estimate(crowd.labels, model=model).competence[good].median() > 0.6  # people are still told apart


@pytest.mark.parametrize(("accuracy", "bias"), [(0.5, 0.0), (0.85, 0.8), (0.25, 0.0)])
def test_a_poor_model_settles_no_more_items_wrongly_than_the_people_alone(accuracy, bias):
    """Under the spammer rule's floor of live quality (0.3): a model right half the time
    (competence about 1/3) keeps its vote, a guessing one loses it."""
    crowd, model = crowd_and_model(accuracy, bias=bias, labels_per_item=2)

    def wrongly_settled(fitted):
        done = settled(fitted.items["posterior"], fitted.items["labels"], target=0.98, min_labels=2, max_labels=5)
        return int((done & (fitted.items["label"] != crowd.truth[fitted.items.index])).sum())

    voted = estimate(crowd.labels, model=model, min_competence=0.3)
    assert wrongly_settled(voted) <= wrongly_settled(estimate(crowd.labels))
    assert voted.model.counted == (accuracy == 0.5)


def test_a_good_model_settles_items_the_people_alone_would_not():
    crowd, model = crowd_and_model(0.85, labels_per_item=2)
    alone, voted = estimate(crowd.labels), estimate(crowd.labels, model=model)

    def settled_right(fitted):
        done = settled(fitted.items["posterior"], fitted.items["labels"], target=0.98, min_labels=2, max_labels=5)
        right = fitted.items["label"] == crowd.truth[fitted.items.index]
        return int((done & right).sum()), int((done & ~right).sum())

    (right_alone, wrong_alone), (right_voted, wrong_voted) = settled_right(alone), settled_right(voted)
    assert right_voted > right_alone + 30 and wrong_voted <= wrong_alone + 2


def test_gold_items_judge_the_model_by_their_expected_answers():
    crowd, model = crowd_and_model(0.5)
    gold_items = range(1000, 1060)
    right = pd.concat([model, pd.Series("b", index=gold_items)])
    wrong = pd.concat([model, pd.Series("c", index=gold_items)])
    gold = pd.Series("b", index=gold_items)
    plain = estimate(crowd.labels, model=model).model
    judged_right = estimate(crowd.labels, model=right, gold=gold)
    judged_wrong = estimate(crowd.labels, model=wrong, gold=gold).model
    assert judged_right.model.gold == 60 and judged_right.model.items == 300
    assert judged_wrong.competence < plain.competence < judged_right.model.competence
    assert 1000 not in judged_right.items.index  # a gold item is no item of the batch
    # without the expected answers the model's lone labels of the gold items judge nothing
    unjudged = estimate(crowd.labels, model=right).model
    assert unjudged.competence == pytest.approx(plain.competence) and unjudged.gold == 0


def test_control_items_are_the_limit_of_items_whose_label_nobody_doubts():
    """A control item's posterior is all on its given label; the reference is the same frame
    with ten extra annotators who give each control item its label and label nothing else:
    MACE then leaves no doubt about those items, and everybody else's competence is the same."""
    crowd = simulate_crowd(seed=2, n_items=120, labels_per_item=3)
    controls = crowd.truth[:40]
    got = mace(crowd.labels, known=controls)
    assert (got.labels.loc[controls.index, "label"] == controls).all()
    assert got.labels.loc[controls.index, "posterior"].to_numpy() == pytest.approx(1.0)
    witnesses = pd.DataFrame(
        [(item, f"zz{n}", value) for item, value in controls.items() for n in range(10)],
        columns=["item", "annotator", "value"],
    )
    reference = mace(pd.concat([crowd.labels, witnesses], ignore_index=True))
    people = crowd.annotators.index
    assert got.competence[people].to_numpy() == pytest.approx(reference.competence[people].to_numpy(), abs=2e-3)
    assert reference.labels.loc[controls.index, "posterior"].min() > 0.999
    assert mace(crowd.labels, known=pd.Series(dtype=object)).competence.equals(mace(crowd.labels).competence)


def test_a_control_label_nobody_gave_is_refused_by_name():
    frame = pd.DataFrame({"item": [1, 1, 2], "annotator": ["x", "y", "x"], "value": ["a", "a", "b"]})
    with pytest.raises(ValueError, match=r"true label nobody gave: \[2\]"):
        mace(frame, known=pd.Series({1: "a", 2: "z"}))


def test_the_spammer_rule_judges_the_model_as_a_person():
    """The reference is the closed-form CDF of Beta(1, 15), 1 - (1 - x) ** 15, which reaches the
    rule's 0.9 at x = 1 - 0.1 ** (1 / 15); and the rule judges nobody before 20 labels."""
    edge = 1 - (1 - STOP_CREDIBILITY) ** (1 / 15)
    vote = ModelVote(competence=1 / 16, knowing=1.0, spamming=15.0, items=15, gold=5)
    assert model_stopped(vote, min_competence=edge + 0.002)
    assert not model_stopped(vote, min_competence=edge - 0.002)
    assert not model_stopped(replace(vote, gold=4), min_competence=0.9)  # 19 judged: too few
