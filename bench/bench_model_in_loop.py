"""Model first, then people where it is unsure (issue 41, parts 6-7): the simulated crowd of
`bench_redundancy.py` plus a simulated model of accuracy p, worked through the real hand-out and
aggregation. For each seed three batches of the same crowd: fixed k humans, adaptive humans only,
and adaptive with the model's label as one vote (`Batch.model_votes`). Prints, per run and as
medians over the seeds, human labels, accuracy against the truth and money (people and the
model's tokens); asserts nothing.

    python bench/bench_model_in_loop.py                           # models right 85 % and 50 % of the time, seeds 1-5
    python bench/bench_model_in_loop.py --model-accuracy 0.85     # one model
    python bench/bench_model_in_loop.py --model-biased            # its wrong answers all one class

Each model accuracy given is one more batch a seed ("model 0.85"), against the same seed's fixed
and adaptive batches.

The model answers every item first: a model run (`model_run_execute`, the real `openai` client,
the kind's prompts and checks) over HTTP against the local OpenAI-compatible endpoint, scripted
through its admin API with each item's true class and the model's accuracy; the people then work
as in bench_redundancy.py.
Accuracy is Dawid-Skene's aggregate of the human labels (as bench_redundancy.py reports it) and,
for the run with the model, also of the human labels and the model's together (`accuracy_with_model`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import urllib.request
from decimal import Decimal
from typing import Any

import bench_redundancy as redundancy
import common
import numpy as np
import pandas as pd

#: the policies of a seed without a model, in the order they run; then one a model accuracy
POLICIES = ("fixed", "adaptive")


def arguments() -> argparse.Namespace:
    return options().parse_args()


def options() -> argparse.ArgumentParser:
    """bench_redundancy.py's options and the model's."""
    parser = redundancy.options(__doc__)
    parser.add_argument(
        "--model-accuracy", type=float, nargs="+", default=[0.85, 0.5], help="the model's chance of the true label"
    )
    parser.add_argument(
        "--model-min-annotators",
        type=int,
        default=2,
        help="people an item gets at least in a batch with the model's vote (the model never counts as one; "
        "below 2 the service asks for 2 anyway)",
    )
    parser.add_argument(
        "--model-min-judged",
        type=int,
        default=None,
        help="labels a person gives before the spammer rule judges them while the model votes "
        "(default: the service's MODEL_MIN_JUDGED)",
    )
    parser.add_argument(
        "--only-models", action="store_true", help="run the model batches only (no fixed or adaptive baseline)"
    )
    parser.add_argument(
        "--model-biased", action="store_true", help="its wrong answers are all its favourite class (else uniform)"
    )
    parser.add_argument("--input-price", type=float, default=0.15, help="money per million prompt tokens")
    parser.add_argument("--output-price", type=float, default=0.60, help="money per million reply tokens")
    return parser


def scripted_model(server: Any, name: str, crowd: Any, items: dict, seed: int, accuracy: float, biased: bool) -> None:
    """The local endpoint's model `name`: given each item's true class through its admin API (never
    in a request), it answers right with probability `accuracy` (seeded by item and model) and
    otherwise another class; `biased`: every wrong answer is its favourite class (drawn once)."""
    truth = {ext: {"post_choice": crowd.classes.index(crowd.truth[int(ext)])} for ext in items.values()}
    favourite = int(np.random.default_rng([seed, 41]).integers(len(crowd.classes)))
    script = {"model": name, "accuracy": accuracy, "seed": seed, "answers": truth}
    if biased:
        script["bias"] = {"post_choice": favourite}
    request = urllib.request.Request(f"{server.url}/_local/models", data=json.dumps(script).encode(), method="POST")
    with urllib.request.urlopen(request) as reply:
        reply.read()


def with_model(batch: Any, crowd: Any, items: dict, seed: int, args: argparse.Namespace, accuracy: float) -> None:
    """The batch's model: a connection to the local OpenAI-compatible endpoint, a model run over
    HTTP that labels every item first (the real client, prompts and checks: `model_run_execute`),
    and its vote turned on."""
    from annotation.models import ModelConnection
    from annotation.services import adaptive
    from annotation.services.model_runs import model_run_estimate, model_run_execute

    name = f"p{accuracy}-{batch.pk}"
    scripted_model(args.server, name, crowd, items, seed, accuracy, args.model_biased)
    connection = ModelConnection.objects.create(
        team=batch.project.team,
        name=f"simulated-{batch.pk}",
        base_url=args.server.base_url,
        model=name,
        input_price=Decimal(str(args.input_price)),
        output_price=Decimal(str(args.output_price)),
        concurrency=4,
        requests_per_minute=1_000_000,  # the local endpoint: no pace to keep
    )
    estimate = model_run_estimate(project=batch.project, connection=connection)
    done = model_run_execute(run=estimate)
    if done.status != "done" or done.items_done != len(items):
        raise SystemExit(f"the model run ended {done.status}: {done.error or done.items_done}")
    args.estimates[batch.pk] = float(estimate.estimated_cost)
    if args.model_min_judged is not None:
        adaptive.MODEL_MIN_JUDGED = args.model_min_judged  # for this process only
    batch.model, batch.model_votes, batch.min_annotators = connection, True, args.model_min_annotators
    batch.save()


def run(crowd: Any, seed: int, args: argparse.Namespace, accuracy: float | None, policy: str) -> dict:
    """One batch of the crowd worked through to the end under `policy` (with a model of
    `accuracy`, or none)."""
    from annotation.selectors.batches import labels_saved

    target = None if policy == "fixed" else args.targets[0]
    batch, items, people = redundancy.crowd_batch(crowd, seed, args, target)
    if accuracy is not None:
        with_model(batch, crowd, items, seed, args, accuracy)
    seconds, stopped = redundancy.work_through(crowd, batch, items, people, seed, args)
    out = redundancy.summary(crowd, batch, items, people, args, target, seconds, labels_saved(batch), stopped)
    return {"seed": seed, **out, "policy": policy, **model_figures(batch, crowd, items, args)}


def model_figures(batch: Any, crowd: Any, items: dict, args: argparse.Namespace) -> dict:
    """Money for people and tokens; with the model: its learned competence and the accuracy of
    the human labels and its labels aggregated together."""
    from django.db.models import Sum

    from annotation.models import ModelCall, ModelEstimate
    from annotation.selectors.model_labels import model_labels
    from annotation.services.adaptive import adaptive_field, batch_labels
    from quality.stats.dawid_skene import dawid_skene

    labels = batch_labels(batch, adaptive_field(batch))
    people = round(len(labels) * args.price, 2)
    if batch.model_id is None:
        return {"money_people": people, "money_tokens": 0.0}
    tokens = float(ModelCall.objects.filter(connection=batch.model_id).aggregate(s=Sum("cost"))["s"] or 0)
    estimated = args.estimates.get(batch.pk)
    model = pd.DataFrame(
        [(pk, -1, call["post_choice"]) for pk, call in model_labels(connection=batch.model_id).items()],
        columns=["item", "annotator", "value"],
    )
    chosen = dawid_skene(pd.concat([labels, model], ignore_index=True)).labels["label"]
    right = sum(int(chosen.get(pk) == crowd.classes.index(crowd.truth[int(ext)])) for pk, ext in items.items())
    estimate = ModelEstimate.objects.filter(batch=batch).first()
    return {
        "money_people": people,
        "money_tokens": round(tokens, 4),
        "money_tokens_estimated": None if estimated is None else round(estimated, 4),
        "accuracy_with_model": round(100 * right / len(items), 2),
        "model_competence": None if estimate is None else round(estimate.competence, 3),
    }


def policies(args: argparse.Namespace) -> list[tuple[float | None, str]]:
    """(model accuracy or None, policy name) of each batch a seed, in the order they run."""
    baselines = [] if args.only_models else [(None, name) for name in POLICIES]
    return baselines + [(p, f"model {p}") for p in args.model_accuracy]


def medians(runs: list[dict], args: argparse.Namespace) -> list[dict]:
    """Per policy, the median over seeds, and each seed's difference to fixed k and to adaptive
    without the model (in brackets in bench/README.md)."""
    by = {(r["seed"], r["policy"]): r for r in runs}
    seeds = sorted({r["seed"] for r in runs})
    out = []
    for accuracy, policy in policies(args):
        mine = [by[(s, policy)] for s in seeds]
        fewer = [round(100 * (1 - r["labels"] / by[(r["seed"], "fixed")]["labels"]), 1) for r in mine]
        points = [round(r["accuracy"] - by[(r["seed"], "fixed")]["accuracy"], 2) for r in mine]
        row = {
            "policy": policy,
            "human_labels_per_item": statistics.median(r["labels_per_item"] for r in mine),
            "accuracy": statistics.median(r["accuracy"] for r in mine),
            "money_people": statistics.median(r["money_people"] for r in mine),
            "money_tokens": statistics.median(r["money_tokens"] for r in mine),
            "fewer_labels_than_fixed_pct": statistics.median(fewer),
            "fewer_per_seed": fewer,
            "accuracy_vs_fixed": statistics.median(points),
            "accuracy_vs_fixed_per_seed": points,
        }
        if accuracy is not None:
            row |= against_humans_only(mine, by)
        out.append(row)
    return out


def against_humans_only(mine: list[dict], by: dict) -> dict:
    """The run with the model against adaptive humans only, per seed: labels and accuracy."""
    labels = [r["labels"] - by[(r["seed"], "adaptive")]["labels"] for r in mine]
    points = [round(r["accuracy"] - by[(r["seed"], "adaptive")]["accuracy"], 2) for r in mine]
    return {
        "accuracy_with_model": statistics.median(r["accuracy_with_model"] for r in mine),
        "model_competence": statistics.median(r["model_competence"] for r in mine),
        "labels_vs_adaptive_per_seed": labels,
        "accuracy_vs_adaptive_per_seed": points,
    }


def main() -> None:
    args = arguments()
    name = f"model_in_loop_{os.getpid()}"
    url = common.database_create(args.db, name)
    try:
        common.django_setup(url)
        from annotation.llm.local import LocalModelServer

        with LocalModelServer() as server:  # its own thread, until the end of the bench
            args.server, args.estimates = server, {}
            runs = []
            for seed in args.seeds:
                crowd = redundancy.make_crowd(seed, args)
                for accuracy, policy in policies(args):
                    runs.append(run(crowd, seed, args, accuracy, policy))
                    print(json.dumps(runs[-1]), flush=True)
        table = None if args.only_models else medians(runs, args)
        shown = {key: value for key, value in vars(args).items() if key not in ("server", "estimates")}
        print(json.dumps({"benchmark": "model_in_loop", "args": shown, "medians": table}, indent=1))
    finally:
        common.database_drop(args.db, name)


if __name__ == "__main__":
    main()
