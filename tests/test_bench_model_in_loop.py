"""bench/bench_model_in_loop.py, small: a crowd of 40 items through the real hand-out and
aggregation as fixed k, adaptive, and adaptive with a good and a guessing model's vote. The
figures are the bench's (bench/README.md); this checks that each run is what it says (no time is
asserted)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import bench_model_in_loop as bench  # noqa: E402
import bench_redundancy as redundancy  # noqa: E402

from annotation.models import ModelCall  # noqa: E402


def small_args(*models: str):
    return bench.options().parse_args(
        ["--items", "40", "--annotators", "12", "--update-every", "5", "--model-accuracy", *models]
    )


def test_the_simulated_model_is_right_as_often_as_asked_and_biased_when_asked():
    crowd = SimpleNamespace(truth=pd.Series(["a", "b", "c", "d"] * 1000), classes=["a", "b", "c", "d"])
    model = bench.simulated_model(crowd, 1, accuracy=0.85, bias=0.0)
    assert (model == crowd.truth).mean() == pytest.approx(0.85, abs=0.02)
    assert model.equals(bench.simulated_model(crowd, 1, accuracy=0.85, bias=0.0))  # seeded
    biased = bench.simulated_model(crowd, 1, accuracy=0.85, bias=0.8)
    # its favourite 80 % of the time, else as the model of 0.85, which gives it a quarter of the rest
    assert biased.value_counts(normalize=True).iloc[0] == pytest.approx(0.8 + 0.2 * 0.25, abs=0.02)


@pytest.mark.django_db(transaction=True)
def test_the_small_bench_runs_every_policy_through_the_real_handout():
    args = small_args("0.95", "0.25")
    crowd = redundancy.make_crowd(1, args)
    runs = [bench.run(crowd, 1, args, accuracy, policy) for accuracy, policy in bench.policies(args)]
    fixed, adaptive, good, guessing = runs
    assert [r["policy"] for r in runs] == ["fixed", "adaptive", "model 0.95", "model 0.25"]
    assert fixed["labels"] == 40 * args.k and fixed["money_tokens"] == 0
    assert good["labels"] < adaptive["labels"] < fixed["labels"]  # the good model's vote saves people's labels
    assert good["model_competence"] > 0.7 > 0.2 > guessing["model_competence"]
    assert good["money_tokens"] == pytest.approx(40 * (700 * 0.15 + 20 * 0.6) / 1e6, abs=1e-4)  # as printed
    assert good["money_people"] == pytest.approx(good["labels"] * args.price)
    assert ModelCall.objects.filter(outcome="labeled").count() == 80  # every item, each model, before any person
    table = {row["policy"]: row for row in bench.medians(runs, args)}
    assert table["model 0.95"]["labels_vs_adaptive_per_seed"] == [good["labels"] - adaptive["labels"]]
    assert table["fixed"]["fewer_labels_than_fixed_pct"] == 0
