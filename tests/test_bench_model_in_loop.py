"""bench/bench_model_in_loop.py, small: a crowd of 40 items through the real hand-out and
aggregation as fixed k, adaptive, and adaptive with a good and a guessing model's vote. The
figures are the bench's (bench/README.md); this checks that each run is what it says (no time is
asserted)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import bench_model_in_loop as bench  # noqa: E402
import bench_redundancy as redundancy  # noqa: E402

from annotation.models import ModelCall  # noqa: E402
from tests.annotation.llm_helpers import admin  # noqa: E402


def small_args(*models: str):
    return bench.options().parse_args(
        ["--items", "40", "--annotators", "12", "--update-every", "5", "--model-accuracy", *models]
    )


@pytest.mark.django_db(transaction=True)
def test_the_small_bench_runs_every_policy_through_the_real_handout(local_model):
    args = small_args("0.95", "0.25")
    args.server, args.estimates = local_model, {}
    crowd = redundancy.make_crowd(1, args)
    runs = [bench.run(crowd, 1, args, accuracy, policy) for accuracy, policy in bench.policies(args)]
    fixed, adaptive, good, guessing = runs
    assert [r["policy"] for r in runs] == ["fixed", "adaptive", "model 0.95", "model 0.25"]
    assert fixed["labels"] == 40 * args.k and fixed["money_tokens"] == 0
    assert good["labels"] < adaptive["labels"] < fixed["labels"]  # the good model's vote saves people's labels
    assert good["model_competence"] > 0.7 > 0.2 > guessing["model_competence"]
    assert 0 < good["money_tokens"] <= good["money_tokens_estimated"] * 1.1  # the run's calls, shown first
    requests = admin(local_model, "GET", "requests")
    assert requests["paid_twice"] == 0
    assert good["money_people"] == pytest.approx(good["labels"] * args.price)
    assert ModelCall.objects.filter(outcome="labeled").count() == 80  # every item, each model, before any person
    table = {row["policy"]: row for row in bench.medians(runs, args)}
    assert table["model 0.95"]["labels_vs_adaptive_per_seed"] == [good["labels"] - adaptive["labels"]]
    assert table["fixed"]["fewer_labels_than_fixed_pct"] == 0
