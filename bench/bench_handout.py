"""Benchmark 4: handing out a unit (`annotation.services.assignments.assignment_next`) as a
batch grows. A hand-out runs once every few items, but under the batch's lock, and its unit rule
(`annotation.selectors.work.next_unit`: in the batch's hand-out order, overlap first by default,
the unit with the most holders below its annotators, none of whose items the annotator has had)
reads the whole batch: does it slow with the number of units?

Set-up: a ReCAM study of `--items` items in units of 5, 3 annotators a unit; 16 annotators each
take and submit `--rounds` units (every hand-out timed). Then `next_unit` alone, 50 times, for an
annotator who has had `--rounds` units. Nothing is asserted; the figures go to bench/README.md.

    python bench/bench_handout.py --db sqlite --items 1500
    python bench/bench_handout.py --db postgres --items 20000
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import common


def run(db: str, *, items: int, rounds: int, annotators: int = 16, keep: bool = False) -> dict:
    name = f"handout_{os.getpid()}"
    url = common.database_create(db, name)
    try:
        common.django_setup(url)
        from annotator_pages import recam_study

        from annotation.models import Annotator, Assignment
        from annotation.selectors.work import next_unit
        from annotation.services.assignments import assignment_next

        project, batch, _ = recam_study(items, 5, 3)
        people = [
            Annotator.objects.create(project=project, channel="invite", external_id=f"h{n}", batch=batch)
            for n in range(annotators)
        ]
        handouts = []
        for _ in range(rounds):
            for person in people:
                started = time.perf_counter()
                assignment = assignment_next(annotator=person, batch=batch)
                handouts.append(time.perf_counter() - started)
                Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
        rule = []
        for _ in range(50):
            started = time.perf_counter()
            next_unit(batch, people[0], exclusive_groups=False)
            rule.append(time.perf_counter() - started)
        return {
            "benchmark": "handout",
            "db": db,
            "items": items,
            "units": batch.units.count(),
            "handouts": len(handouts),
            "handout_median_ms": 1000 * statistics.median(handouts),
            "handout_p95_ms": 1000 * (common.percentile(handouts, 95) or 0.0),
            "next_unit_median_ms": 1000 * statistics.median(rule),
        }
    finally:
        from django.db import connections

        connections.close_all()
        if not keep:
            common.database_drop(db, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--items", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=10, help="units each annotator takes and submits")
    parser.add_argument("--keep", action="store_true", help="keep the benchmark database")
    args = parser.parse_args()
    result = run(args.db, items=args.items, rounds=args.rounds, keep=args.keep)
    result["machine"] = common.machine()
    print(
        f"hand-out on {args.db}, {result['units']:,} units: assignment_next median {result['handout_median_ms']:.2f} ms, "
        f"p95 {result['handout_p95_ms']:.2f} ms ({result['handouts']} hand-outs); "
        f"next_unit median {result['next_unit_median_ms']:.2f} ms"
    )
    common.save_result("handout", result)
    common.emit(result)


if __name__ == "__main__":
    main()
