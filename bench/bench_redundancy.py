"""Adaptive redundancy against fixed redundancy on a simulated crowd (issue 28): labels per item,
accuracy against the truth and money spent. Prints JSON; asserts nothing.

A seeded crowd (`quality.stats.simulated_crowd`) has a label drawn for every (item, annotator)
pair; annotators then arrive one at a time in a seeded random order and work through the real
hand-out (`assignment_next`) on a real database. Each handed-out item is answered with that
annotator's drawn label (written to the response as a save would store it, the unit submitted by
`assignment_submit_if_complete`) and the completion goes through `completion_queue`, so in an
adaptive batch the aggregation task runs after every unit (inline: no broker). An annotator
stops when the hand-out has nothing more for them. At the end every policy's labels are
aggregated by the same model, Dawid-Skene, and compared with the truth.

    python bench/bench_redundancy.py                                 # the issue's mixed crowd, seeds 1-5
    python bench/bench_redundancy.py --mix good=1                    # an all-good crowd
    python bench/bench_redundancy.py --targets 0.97 0.99 --max-annotators 7 --min-competence 0.3

The defaults are the setting bench/README.md reports ("Adaptive redundancy"): at most 5 labels an
item, target 0.98, competence floor 0.6, an aggregation every 20 completed units.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from collections import Counter
from typing import Any

import common

PAYLOAD = {
    "article": "A passage.",
    "question": "A @placeholder question .",
    **{f"option_{n}": f"word{n}" for n in range(5)},
    "label": 0,
}


def arguments() -> argparse.Namespace:
    return options(__doc__).parse_args()


def options(description: str | None) -> argparse.ArgumentParser:
    """The crowd's, the batch's and the run's options (bench_model_in_loop.py adds its model's)."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default="sqlite", choices=["sqlite", "postgres"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--items", type=int, default=600)
    parser.add_argument("--classes", type=int, default=4, help="at most 5 (the ReCAM options)")
    parser.add_argument("--prior", type=float, nargs="*", default=None, help="class shares (default: uniform)")
    parser.add_argument("--annotators", type=int, default=30)
    parser.add_argument(
        "--mix", default="good=0.40,mediocre=0.33,spammer=0.20,biased=0.07", help="shares of good, mediocre, ..."
    )
    parser.add_argument("--good-p", type=float, default=0.85)
    parser.add_argument("--mediocre-p", type=float, default=0.60)
    parser.add_argument("--bias", type=float, default=0.80, help="a biased annotator's chance of their favourite")
    parser.add_argument("--k", type=int, default=5, help="fixed redundancy: labels an item")
    parser.add_argument("--targets", type=float, nargs="+", default=[0.98])
    parser.add_argument("--min-annotators", type=int, default=2)
    parser.add_argument("--max-annotators", type=int, default=5)
    parser.add_argument("--min-competence", type=float, default=0.6, help="spammer rule; negative: off")
    parser.add_argument("--method", default="mace", choices=["mace", "dawid_skene"])
    parser.add_argument(
        "--update-every", type=int, default=20, help="units completed between aggregations (a worker's lag)"
    )
    parser.add_argument(
        "--update-labels",
        type=int,
        default=0,
        help="instead: time the aggregation update of one adaptive batch of this many labels (5 an item)",
    )
    parser.add_argument("--price", type=float, default=0.05, help="money per label")
    return parser


def make_crowd(seed: int, args: argparse.Namespace) -> Any:
    """The seeded crowd of the options: a label drawn for every item and annotator."""
    from quality.stats.simulated_crowd import simulate_crowd

    return simulate_crowd(
        seed=seed,
        n_items=args.items,
        n_classes=args.classes,
        n_annotators=args.annotators,
        labels_per_item=args.annotators,
        class_prior=tuple(args.prior) if args.prior else None,
        mix=crowd_mix(args.mix, args),
    )


def crowd_mix(text: str, args: argparse.Namespace) -> Any:
    from quality.stats.simulated_crowd import KINDS, CrowdMix

    shares = dict.fromkeys(KINDS, 0.0)
    for part in text.split(","):
        kind, _, share = part.partition("=")
        if kind not in shares:
            raise SystemExit(f"--mix: unknown kind {kind!r}; known: {', '.join(KINDS)}")
        shares[kind] = float(share)
    return CrowdMix(**shares, good_accuracy=args.good_p, mediocre_accuracy=args.mediocre_p, bias=args.bias)


def run_policy(crowd: Any, seed: int, args: argparse.Namespace, target: float | None) -> dict:
    """One batch worked through to the end: fixed k (target None) or adaptive at `target`."""
    from annotation.selectors.batches import labels_saved

    batch, items, people = crowd_batch(crowd, seed, args, target)
    seconds, stopped = work_through(crowd, batch, items, people, seed, args)
    return summary(crowd, batch, items, people, args, target, seconds, labels_saved(batch), stopped)


def crowd_batch(crowd: Any, seed: int, args: argparse.Namespace, target: float | None) -> tuple[Any, dict, dict]:
    """A project of the crowd's items and its batch, fixed k (target None) or adaptive at
    `target`, with one annotator per member of the crowd: (batch, item pk -> crowd item,
    annotator pk -> crowd name)."""
    from annotation.models import Annotator, Item, Project
    from annotation.services import adaptive
    from annotation.services.batches import batch_create

    adaptive.METHOD = args.method  # the model behind the posteriors, for this process only
    project = Project.objects.create(name=f"crowd {seed} {target}", kind="recam", team=common.bench_team())
    Item.objects.bulk_create(
        Item(project=project, external_id=str(n), payload=PAYLOAD) for n in range(len(crowd.truth))
    )
    batch = batch_create(project=project, name="b", items_per_unit=1, assignments_per_unit=args.k, handout="spread")
    if target is not None:
        batch.adaptive, batch.target_confidence = True, target
        batch.min_annotators, batch.max_annotators = args.min_annotators, args.max_annotators
        batch.min_competence = args.min_competence if args.min_competence >= 0 else None
        batch.save()
    items = dict(Item.objects.filter(project=project).values_list("pk", "external_id"))
    people = {
        Annotator.objects.create(project=project, channel="invite", external_id=name, batch=batch).pk: name
        for name in crowd.annotators.index
    }
    return batch, items, people


def work_through(
    crowd: Any, batch: Any, items: dict, people: dict, seed: int, args: argparse.Namespace
) -> tuple[float, list[int]]:
    """The crowd works the batch through the real hand-out until nobody gets more work:
    (seconds, the annotators the spammer rule sent away)."""
    from django.utils import timezone

    from annotation.models import Annotator, AnnotatorEstimate, Assignment, Response
    from annotation.services.adaptive import completion_queue
    from annotation.services.assignments import NoWorkLeft, assignment_next
    from annotation.services.responses import assignment_submit_if_complete

    drawn = crowd.labels.set_index(["item", "annotator"])["value"]
    rng, active, started, units = random.Random(seed), list(people), time.perf_counter(), 0
    stopped: list[int] = []
    annotators = {pk: Annotator.objects.get(pk=pk) for pk in people}
    while active:
        who = rng.choice(active)
        try:
            assignment = assignment_next(annotator=annotators[who], batch=batch)
        except NoWorkLeft:
            active.remove(who)
            if AnnotatorEstimate.objects.filter(batch=batch, annotator=who, excluded=True).exists():
                stopped.append(who)  # sent away by the spammer rule, not for want of work
            continue
        responses = list(Response.objects.filter(assignment=assignment).select_related("item"))
        for response in responses:
            value = drawn[(int(items[response.item_id]), people[who])]
            choice = crowd.classes.index(value)
            Response.objects.filter(pk=response.pk).update(
                answers={"post": {"choice": choice}}, completed_at=timezone.now()
            )
        done = assignment_submit_if_complete(assignment)
        assert done and assignment.status == Assignment.Status.SUBMITTED
        units += 1
        completion_queue(response=responses[-1], unit_done=units % args.update_every == 0)
    return time.perf_counter() - started, stopped


def summary(crowd, batch, items, people, args, target, seconds, saved, stopped) -> dict:
    from annotation.services.adaptive import adaptive_field, batch_labels
    from quality.stats.dawid_skene import dawid_skene

    labels = batch_labels(batch, adaptive_field(batch))
    chosen = dawid_skene(labels).labels["label"]
    truth = {pk: crowd.classes.index(crowd.truth[int(ext)]) for pk, ext in items.items()}
    right = sum(int(chosen.get(pk, -1) == t) for pk, t in truth.items())
    per_item = labels.groupby("item").size()
    kinds = crowd.annotators["kind"]
    by_kind = labels.assign(kind=[kinds[people[a]] for a in labels["annotator"]]).groupby("kind").size()
    return {
        "policy": "fixed" if target is None else "adaptive",
        "target": target,
        "labels": int(len(labels)),
        "labels_per_item": round(len(labels) / len(truth), 3),
        "max_labels_on_an_item": int(per_item.max()),
        "accuracy": round(100 * right / len(truth), 2),
        "money": round(len(labels) * args.price, 2),
        "labels_by_kind": {k: int(v) for k, v in by_kind.items()},
        "stopped_by_kind": dict(Counter(kinds[people[a]] for a in stopped)),
        "saved": saved,
        "seconds": round(seconds, 1),
    }


def update_timing(args: argparse.Namespace, repeats: int = 5) -> dict:
    """`estimates_update` on an adaptive batch of `--update-labels` labels, 5 an item (written
    in bulk, as if worked): each update reads every label, fits the model and writes the estimates."""
    from django.utils import timezone

    from annotation.models import Annotator, Assignment, Item, Project, Response, UnitItem
    from annotation.services.adaptive import estimates_update
    from annotation.services.batches import batch_create
    from quality.stats.simulated_crowd import simulate_crowd

    per_item = 5
    n_items = args.update_labels // per_item
    crowd = simulate_crowd(
        seed=args.seeds[0], n_items=n_items, n_annotators=max(args.annotators, 100), labels_per_item=per_item
    )
    project = Project.objects.create(name="update timing", kind="recam", team=common.bench_team())
    Item.objects.bulk_create(Item(project=project, external_id=str(n), payload=PAYLOAD) for n in range(n_items))
    settings = {"adaptive": True, "min_competence": 0.3}
    batch = batch_create(project=project, name="b", items_per_unit=1, assignments_per_unit=per_item, adaptive=settings)
    people = {
        name: Annotator(project=project, channel="invite", external_id=name, batch=batch)
        for name in crowd.annotators.index
    }
    Annotator.objects.bulk_create(people.values())
    unit_of = dict(UnitItem.objects.filter(unit__batch=batch).values_list("item__external_id", "unit_id"))
    rows = list(crowd.labels.itertuples())
    work = [
        Assignment(unit_id=unit_of[str(r.item)], annotator=people[r.annotator], item_count=1, status="submitted")
        for r in rows
    ]
    Assignment.objects.bulk_create(work, batch_size=2000)
    item_of = dict(UnitItem.objects.filter(unit__batch=batch).values_list("unit_id", "item_id"))
    now = timezone.now()
    Response.objects.bulk_create(
        (
            Response(
                assignment=a,
                item_id=item_of[a.unit_id],
                position=0,
                answers={"post": {"choice": crowd.classes.index(r.value)}},
                completed_at=now,
            )
            for a, r in zip(work, rows)
        ),
        batch_size=2000,
    )
    seconds = []
    for _ in range(repeats):
        started = time.perf_counter()
        estimates_update(batch=batch)
        seconds.append(time.perf_counter() - started)
    return {
        "benchmark": "redundancy_update",
        "db": args.db,
        "labels": len(rows),
        "items": n_items,
        "update_seconds": [round(s, 3) for s in seconds],
        "median_seconds": round(statistics.median(seconds), 3),
    }


def main() -> None:
    args = arguments()
    name = f"redundancy_{os.getpid()}"
    url = common.database_create(args.db, name)
    try:
        common.django_setup(url)
        if args.update_labels:
            print(json.dumps(update_timing(args)))
            return
        runs = []
        for seed in args.seeds:
            crowd = make_crowd(seed, args)
            for target in [None, *args.targets]:
                run = {"seed": seed, **run_policy(crowd, seed, args, target)}
                runs.append(run)
                print(json.dumps(run), flush=True)
        print(json.dumps({"benchmark": "redundancy", "args": vars(args), "medians": medians(runs)}, indent=1))
    finally:
        common.database_drop(args.db, name)


def medians(runs: list[dict]) -> list[dict]:
    """Per policy, the median over seeds of labels, accuracy and their differences to fixed k."""
    fixed = {r["seed"]: r for r in runs if r["policy"] == "fixed"}
    out = []
    for target in sorted({r["target"] for r in runs}, key=lambda t: -1 if t is None else t):
        mine = [r for r in runs if r["target"] == target]
        out.append(
            {
                "policy": mine[0]["policy"],
                "target": target,
                "labels_per_item": statistics.median(r["labels_per_item"] for r in mine),
                "accuracy": statistics.median(r["accuracy"] for r in mine),
                "money": statistics.median(r["money"] for r in mine),
                "fewer_labels_pct": statistics.median(
                    round(100 * (1 - r["labels"] / fixed[r["seed"]]["labels"]), 1) for r in mine
                ),
                "accuracy_vs_fixed": statistics.median(
                    round(r["accuracy"] - fixed[r["seed"]]["accuracy"], 2) for r in mine
                ),
            }
        )
    return out


if __name__ == "__main__":
    main()
