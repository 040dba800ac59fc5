"""The data bench_export.py exports: a ReCAM project of complete responses, written with COPY
(PostgreSQL) or one executemany transaction (SQLite), and a staff user to download it."""

from __future__ import annotations

import io
import itertools
import json
import random
import time

import common

PAGES = ["pre", "post", "second", "support_span", "relation", "summary_span", "difficulty"]
STAFF = ("bench-staff", "bench-staff-password-1")


def _answer_variants(n: int = 97) -> list[tuple[str, str]]:
    """(answers JSON, timings JSON) pairs shaped like a complete ReCAM response."""
    rng = random.Random(3)
    words = " ".join(r["article"] for r in common.sample_records()).split()
    out = []
    for _ in range(n):

        def span():
            start = rng.randrange(len(words) - 20)
            text = " ".join(words[start : start + rng.randrange(5, 16)])
            return {"text": text, "start": rng.randrange(2000), "end": rng.randrange(2000, 2600)}

        post = rng.randrange(5)
        answers = {
            "pre": {"choice": rng.randrange(5)},
            "post": {"choice": post},
            "second": {"choice": None if rng.random() < 0.7 else (post + 1) % 5},
            "support_span": span(),
            "relation": {"relation": rng.choice(["summarize", "paraphrase", "other"])},
            "summary_span": span(),
            "difficulty": {"difficulty": rng.choice(["easy", "medium", "difficult"])},
        }
        t = 1_790_000_000 + rng.randrange(10**6)
        timings = {}
        for page in PAGES:
            seconds = round(rng.uniform(2, 40), 3)
            timings[page] = {
                "shown_at": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(t)),
                "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(t + seconds)),
                "seconds": seconds,
            }
            t += int(seconds) + 1
        out.append((json.dumps(answers), json.dumps(timings)))
    return out


def build(db: str, rows: int, items: int) -> dict:
    """Project, items, batch, annotators, assignments and `rows` responses; fast paths only."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.utils import timezone

    from annotation.models import Annotator, Assignment, Project, Response, Unit, UnitItem
    from annotation.services.batches import batch_create
    from annotation.services.imports import items_import

    t0 = time.perf_counter()
    per_item = max(1, rows // items)
    items_per_unit = 10
    project = Project.objects.create(name="Bench export", kind="recam", team=common.bench_team())
    items_import(project=project, data=common.recam_jsonl(items, tag="e"), filename="bench.jsonl")
    batch = batch_create(project=project, name="bench", items_per_unit=items_per_unit, assignments_per_unit=per_item)
    annotators = Annotator.objects.bulk_create(
        [Annotator(project=project, channel="invite", external_id=f"bench-{n}", batch=batch) for n in range(per_item)]
    )
    units = list(Unit.objects.filter(batch=batch).order_by("position").values_list("id", flat=True))
    unit_items: dict[int, list[tuple[int, int]]] = {}
    for unit_id, item_id, pos in UnitItem.objects.filter(unit__batch=batch).values_list(
        "unit_id", "item_id", "position"
    ):
        unit_items.setdefault(unit_id, []).append((item_id, pos))
    now = timezone.now()
    stamp = now.isoformat() if db == "postgres" else now.strftime("%Y-%m-%d %H:%M:%S.%f")
    a_table, r_table = Assignment._meta.db_table, Response._meta.db_table
    variants = _answer_variants()
    cycle = itertools.cycle(variants)

    if db == "sqlite":  # this connection only, for the bulk load of a throw-away database
        with connection.cursor() as cur:
            cur.execute("PRAGMA synchronous=OFF")
    with transaction.atomic(), connection.cursor() as cur:
        # assignments: every annotator on every unit (submitted)
        a_rows = [
            (u, a.pk, "submitted", "", stamp, stamp, stamp, len(unit_items[u])) for u in units for a in annotators
        ]
        a_cols = "unit_id, annotator_id, status, channel_assignment_id, started_at, last_activity_at, submitted_at, item_count"
        _bulk(cur, db, a_table, a_cols, a_rows)
        assignments = list(Assignment.objects.filter(unit__batch=batch).values_list("id", "unit_id").order_by("id"))
        r_cols = "assignment_id, item_id, position, answers, timings, completed_at, version"
        made = 0
        block = []
        for asg_id, unit_id in assignments:
            for item_id, pos in unit_items[unit_id]:
                if made >= rows:
                    break
                answers, timings = next(cycle)
                block.append((asg_id, item_id, pos, answers, timings, stamp, 1))
                made += 1
            if len(block) >= 50_000:
                _bulk(cur, db, r_table, r_cols, block)
                block = []
        if block:
            _bulk(cur, db, r_table, r_cols, block)
    with connection.cursor() as cur:
        cur.execute("ANALYZE" if db == "postgres" else "PRAGMA optimize")
    User = get_user_model()
    User.objects.filter(username=STAFF[0]).delete()
    User.objects.create_superuser(STAFF[0], "bench@example.org", STAFF[1])
    count = Response.objects.filter(item__project=project).count()
    return {
        "project_id": project.pk,
        "responses": count,
        "assignments": len(assignments),
        "build_s": time.perf_counter() - t0,
    }


def _bulk(cur, db: str, table: str, cols: str, rows: list[tuple]) -> None:
    if db == "postgres":
        buf = io.StringIO()
        for row in rows:
            buf.write("\t".join(_copy_text(v) for v in row))
            buf.write("\n")
        buf.seek(0)
        cur.cursor.copy_expert(f"COPY {table} ({cols}) FROM STDIN", buf, size=1 << 20)
    else:
        marks = ", ".join(["%s"] * len(rows[0]))
        cur.executemany(f"INSERT INTO {table} ({cols}) VALUES ({marks})", rows)


def _copy_text(value) -> str:
    if value is None:
        return "\\N"
    return str(value).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
