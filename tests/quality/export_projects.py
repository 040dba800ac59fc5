"""Two small but varied projects (ReCAM and CoSimLex) for the export tests, built row by row
with fixed primary keys and timestamps, so every export is deterministic on SQLite and
PostgreSQL alike: non-ASCII text, quotes, commas, tabs, CR and LF inside passages, spans, ids
and words; empty answers, incomplete responses, a released assignment, timings with int, float,
missing and null seconds; a quality run that drops annotators (and, for CoSimLex, derives
per-annotation values that the clean dataset appends)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import islice
from typing import Any

from annotation.kinds import get_kind
from annotation.models import Annotator, Assignment, Batch, Item, Project, Response, Unit, UnitItem
from tests.factories import ProjectFactory

#: explicit primary keys far above anything a sequence reaches in the suite
BASE = 7_340_000
UTC = UTC
T0 = datetime(2026, 11, 21, 4, 25, 0, 0, tzinfo=UTC)  # microsecond 0: isoformat without a fraction


def _timings(pages: list[str], seconds: list[Any], start: datetime) -> dict[str, Any]:
    """Timings as the flow stores them; a seconds value of `...` leaves the key out."""
    out: dict[str, Any] = {}
    for page, value in zip(pages, seconds):
        entry: dict[str, Any] = {"shown_at": start.isoformat(), "saved_at": (start + timedelta(seconds=3)).isoformat()}
        if value is not ...:
            entry["seconds"] = value
        out[page] = entry
    return out


RECAM_PAGES = ["pre", "post", "second", "support_span", "relation", "summary_span", "difficulty"]
AWKWARD = 'He said, "Hello, world!"\r\nThen: naïve café — 中文 Â£; a\ttab,'


def _recam_payload(n: int, *, labeled: bool = True) -> dict[str, Any]:
    payload: dict[str, Any] = {}
    if not labeled:
        payload["id"] = f"test-ü-{n}" if n % 2 else 9000 + n
    payload.update(
        {
            "article": f"{AWKWARD} passage {n}.\nSecond line with \"quotes\" and 'single' ones.\r\nEnd {n}\r",
            "question": f'"Hello" , said the @placeholder ( № {n} ) .',
            "option_0": "naïve",
            "option_1": "x,y",
            "option_2": '"q"',
            "option_3": "中文",
            "option_4": "a;b\nc",
        }
    )
    if labeled:
        payload["label"] = n % 5
    return payload


def _recam_answers(
    label: int | None, n: int, *, right: bool, span: bool = True, easy: bool = False, second: int | None = None
) -> dict[str, Any]:
    choice = (label if right else (label + 1) % 5) if label is not None else n % 5
    text = f"{AWKWARD}\n{n}" if span else ""
    span_answer = {"text": text, "start": 0 if span else None, "end": len(text) if span else None}
    return {
        "pre": {"choice": (choice + n) % 5},
        "post": {"choice": choice},
        "second": {"choice": second},
        "support_span": span_answer,
        "relation": {"relation": ["summarize", "paraphrase", "other"][n % 3]},
        "summary_span": {"text": 'ünïcödé,\r\n"span"', "start": 5, "end": 20},
        "difficulty": {"difficulty": "easy" if easy else ["medium", "difficult"][n % 2]},
    }


def build_recam() -> Project:
    """8 items (6 labeled, 2 test items with ids) in two units of 4; five annotators."""
    project = ProjectFactory(pk=BASE + 1, name="Fast path ReCAM — ünïcödé", kind="recam")
    items = [
        Item.objects.create(
            pk=BASE + 100 + n,
            project=project,
            payload=_recam_payload(n, labeled=n < 6),
            external_id=[f"r-{n}", f'ü,"{n}"', f"line\r\nbreak {n}"][n % 3],
        )
        for n in range(8)
    ]
    batch = Batch.objects.create(pk=BASE + 1, project=project, name="b ü", items_per_unit=4, assignments_per_unit=5)
    units = [Unit.objects.create(pk=BASE + 10 + u, batch=batch, position=u) for u in range(2)]
    for n, item in enumerate(items):
        UnitItem.objects.create(unit=units[n // 4], item=item, position=n % 4)
    people = [
        ("good-ä", "invite"),
        ("A1B2C3", "mturk"),
        ("careless", "invite"),
        ('"d", with comma', "prolific"),
        ("gone", "invite"),
    ]
    annotators = [
        Annotator.objects.create(pk=BASE + 20 + k, project=project, external_id=ext, channel=channel, batch=batch)
        for k, (ext, channel) in enumerate(people)
    ]
    rid = BASE + 1000
    seconds_cycle = [
        [2.5, 0.1, 0.2, 7, 1.333, 12.25, 3.0],
        [1, 2, 3, 4, 5, 6, 7],
        [0.1] * 7,
        [None, 2.2, ..., 3.3, 0.7, 1.1, 9.99],
    ]
    asg_pk = BASE + 200
    for k, annotator in enumerate(annotators):
        statuses = {
            0: ["submitted", "approved"],
            1: ["submitted", "active"],
            2: ["rejected", "submitted"],
            3: ["active"],
            4: ["released"],
        }[k]
        for u, status in enumerate(statuses):
            assignment = Assignment.objects.create(pk=asg_pk, unit=units[u], annotator=annotator, status=status)
            asg_pk += 1
            for position, item in enumerate(items[u * 4 : (u + 1) * 4]):
                n = items.index(item)
                label = item.payload.get("label")
                answers: dict[str, Any]
                later = timedelta(minutes=n + 10 * k, microseconds=(n * 123457 + k) % 1_000_000)
                completed_at: datetime | None = T0 + later
                if k == 4:  # released before any answer: empty answers and timings
                    answers, timings, completed_at = {}, {}, None
                elif k == 1 and u == 1 and position >= 2:  # stopped after the pre-reading page, then nothing
                    answers = {} if position == 3 else {"pre": {"choice": 2}}
                    timings = {} if position == 3 else _timings(["pre"], [4.5], T0)
                    completed_at = None
                elif k == 3 and position == 3:  # active: half way through
                    answers = dict(islice(_recam_answers(label, n, right=True).items(), 3))
                    timings = _timings(RECAM_PAGES[:3], [1.5, ..., None], T0)
                    completed_at = None
                else:
                    answers = _recam_answers(
                        label,
                        n,
                        right=k != 2 and (k, n) != (1, 5),
                        span=not (k == 3 and position == 1),
                        easy=(k, n) in {(0, 0), (1, 5), (3, 2)},
                        second=None if n % 2 else (n + 3) % 5,
                    )
                    timings = _timings(RECAM_PAGES, seconds_cycle[(n + k) % 4], T0)
                    if (k, n) == (0, 3):
                        completed_at = T0  # microsecond 0
                Response.objects.create(
                    pk=rid,
                    assignment=assignment,
                    item=item,
                    position=position,
                    answers=answers,
                    timings=timings,
                    completed_at=completed_at,
                )
                rid += 1
    return project


COSIMLEX_RELEASE = [
    # word1, word2, context1, context2, sim1, sim2, stdev1, stdev2, pvalue
    (
        "čaša",
        "šalica",
        "Pila je iz <strong>čaše</strong>, ne iz <strong>šalice</strong>.",
        'Na stolu je "<strong>čaša</strong>" pored <strong>šalice</strong>; ü.',
        "4.5",
        "6.1",
        "1.2",
        "0.9",
        "0.01",
    ),
    (
        "auto",
        "vlak",
        "Išli smo <strong>autom</strong>, a ne <strong>vlakom</strong>.",
        '<strong>Vlak</strong> je brži od <strong>auta</strong>, reče Ana, "zaista".',
        "3",
        "2.25",
        "1",
        "1.5",
        "0.5",
    ),
    (
        "kuća",
        "dom",
        "Moja <strong>kuća</strong> je moj <strong>dom</strong>.",
        "Prodali su <strong>kuću</strong>, ali <strong>dom</strong> ostaje — 中文.",
        "8.333",
        "7",
        "0.4",
        "0.8",
        "0.0001",
    ),
    (
        "more",
        "jezero",
        "Plivali smo u <strong>moru</strong> i <strong>jezeru</strong>.",
        "<strong>Jezero</strong> nije <strong>more</strong>, ali je lijepo.",
        "2",
        "1.5",
        "1.1",
        "1.3",
        "0.2",
    ),
    (
        "knjiga",
        "pismo",
        "Čitao je <strong>knjigu</strong> i <strong>pismo</strong>.",
        "Napisala je <strong>pismo</strong> u <strong>knjizi</strong>, tab\u00a0ovdje.",
        "5",
        "5.5",
        "0.7",
        "0.6",
        "0.3",
    ),
    (
        "sunce",
        "mjesec",
        "<strong>Sunce</strong> i <strong>mjesec</strong> su na nebu.",
        "Noću vidimo <strong>mjesec</strong>, danju <strong>sunce</strong>.",
        "1.2",
        "0.8",
        "0.9",
        "1",
        "0.9",
    ),
]
FORMS = ("čaše", "šalice", "čaša", "šalici")


def _cosimlex_text() -> str:
    header = [
        "word1",
        "word2",
        "context1",
        "context2",
        "sim1",
        "sim2",
        "stdev1",
        "stdev2",
        "pvalue",
        "word1_context1",
        "word2_context1",
        "word1_context2",
        "word2_context2",
    ]
    lines = ["\t".join(header)] + ["\t".join([*row, *FORMS]) for row in COSIMLEX_RELEASE]
    return "\n".join(lines) + "\n"


def build_cosimlex() -> Project:
    """6 pairs (12 items) in two units: each holds one context of every pair. Eight annotators,
    one random and one lazy (engagement), one incomplete response, one never started."""
    project = ProjectFactory(
        pk=BASE + 2, name="Fast path CoSimLex čšž", kind="cosimlex", language="hr", settings={"min_shared_items": 3}
    )
    parsed = get_kind("cosimlex").parse(_cosimlex_text())
    items = [
        Item.objects.create(
            pk=BASE + 300 + n, project=project, external_id=p.external_id, payload=p.payload, group_key=p.group_key
        )
        for n, p in enumerate(parsed)
    ]
    batch = Batch.objects.create(pk=BASE + 2, project=project, name="c", items_per_unit=6, assignments_per_unit=4)
    units = [Unit.objects.create(pk=BASE + 30 + u, batch=batch, position=u) for u in range(2)]
    unit_items: list[list[Item]] = [[], []]
    for n, item in enumerate(items):
        pair, context = divmod(n, 2)
        unit_items[(pair + context) % 2].append(item)
    for u, members in enumerate(unit_items):
        for position, item in enumerate(members):
            UnitItem.objects.create(unit=units[u], item=item, position=position)
    rid = BASE + 3000
    for k in range(8):
        name = {6: "random", 7: "lazy"}.get(k, f"honest-{k}-ž")
        annotator = Annotator.objects.create(
            pk=BASE + 40 + k, project=project, external_id=name, channel="invite" if k % 3 else "prolific", batch=batch
        )
        u = k % 2
        assignment = Assignment.objects.create(
            pk=BASE + 400 + k, unit=units[u], annotator=annotator, status="active" if k == 5 else "submitted"
        )
        for position, item in enumerate(unit_items[u]):
            payload = item.payload
            reference = float(payload["reference"][f"sim{payload['context']}"])
            if k == 6:
                rating = (position * 5 + 3) % 7
            else:
                rating = int(min(6, max(0, round(reference * 6 / 10 + ((k + position) % 3 - 1) * 0.6))))
            words = (
                {"word_1": "asdf", "word_2": "asdf"}
                if k == 7
                else {"word_1": f"riječ{position}", "word_2": f'"w,{k}"\r\n{position}'}
            )
            answers: dict[str, Any] = {"inspired": words, "rating": {"rating": rating}}
            timings = _timings(["inspired", "rating"], [9.0 + k, 3.25 + position], T0)
            completed_at: datetime | None = T0 + timedelta(seconds=k * 100 + position, microseconds=k * 7 + 1)
            if k == 5 and position == 5:
                answers, timings, completed_at = {"inspired": words}, _timings(["inspired"], [2.0], T0), None
            if k == 5 and position == 4:
                answers, timings, completed_at = {}, {}, None
            Response.objects.create(
                pk=rid,
                assignment=assignment,
                item=item,
                position=position,
                answers=answers,
                timings=timings,
                completed_at=completed_at,
            )
            rid += 1
    return project
