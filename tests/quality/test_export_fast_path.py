"""The export fast path writes exactly the bytes the exports wrote before it.

Two small but varied projects (ReCAM and CoSimLex) are built row by row with fixed primary keys
and timestamps, so every export is deterministic on SQLite and PostgreSQL alike:
non-ASCII text, quotes, commas, tabs, CR and LF inside passages, spans, ids and words; empty
answers, incomplete responses, a released assignment, timings with int, float, missing and null
seconds; a quality run that drops annotators (and, for CoSimLex, derives per-annotation values
that the clean dataset appends).

* `PINNED` holds the SHA-256 of every dataset x format, taken from the exports as they were
  before the fast path (generated once with the old code, on both databases: identical).
* `legacy_*` below is a frozen copy of the old row reader and writers (annotation_rows, the
  raw and clean datasets, csv/tsv/jsonl writers): the raw and clean outputs are compared with
  it byte for byte, here and on a bulk project that spans many fetch chunks, so a failure
  shows the first differing line instead of a digest; also through the fast path's other
  branches (both SQLite plans, kinds reading the whole payload, kind rows with extra keys).
* The delimited writer renders rows itself; it is checked against csv.writer on random
  cells and on every character of the Basic Multilingual Plane.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import random
import threading
from datetime import datetime, timedelta, timezone as dt_timezone
from decimal import Decimal
from itertools import islice
from operator import itemgetter
from typing import Any, Iterator

import pytest
from django.db import connection, transaction
from django.db.models import TextField
from django.db.models.functions import Cast

from annotation import selectors
from annotation.kinds import get_kind
from annotation.models import Annotator, Assignment, Batch, Item, Project, Response, Unit, UnitItem
from annotation.selectors import annotation_columns, annotation_rows, annotation_value_chunks
from quality.exports import ExportUnavailable, datasets, export_open, project_datasets, writers
from quality.selectors import kept_response_ids, latest_run, response_value_columns, response_values
from quality.services.runs import quality_run_create
from tests.quality.helpers import bulk_responses

pytestmark = pytest.mark.django_db

#: explicit primary keys far above anything a sequence reaches in the suite
BASE = 7_340_000
UTC = dt_timezone.utc
T0 = datetime(2026, 11, 21, 4, 25, 0, 0, tzinfo=UTC)  # microsecond 0: isoformat without a fraction
FORMATS = ("csv", "tsv", "jsonl")


# --- the projects ----------------------------------------------------------------------------
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
    payload.update({
        "article": f"{AWKWARD} passage {n}.\nSecond line with \"quotes\" and 'single' ones.\r\nEnd {n}\r",
        "question": f'"Hello" , said the @placeholder ( № {n} ) .',
        "option_0": "naïve", "option_1": "x,y", "option_2": '"q"', "option_3": "中文", "option_4": "a;b\nc",
    })
    if labeled:
        payload["label"] = n % 5
    return payload


def _recam_answers(label: int | None, n: int, *, right: bool, span: bool = True, easy: bool = False,
                   second: int | None = None) -> dict[str, Any]:
    choice = (label if right else (label + 1) % 5) if label is not None else n % 5
    text = f"{AWKWARD}\n{n}" if span else ""
    span_answer = {"text": text, "start": 0 if span else None, "end": len(text) if span else None}
    return {
        "pre": {"choice": (choice + n) % 5}, "post": {"choice": choice}, "second": {"choice": second},
        "support_span": span_answer, "relation": {"relation": ["summarize", "paraphrase", "other"][n % 3]},
        "summary_span": {"text": "ünïcödé,\r\n\"span\"", "start": 5, "end": 20},
        "difficulty": {"difficulty": "easy" if easy else ["medium", "difficult"][n % 2]},
    }


def build_recam() -> Project:
    """8 items (6 labeled, 2 test items with ids) in two units of 4; five annotators."""
    project = Project.objects.create(pk=BASE + 1, name="Fast path ReCAM — ünïcödé", kind="recam")
    items = [
        Item.objects.create(pk=BASE + 100 + n, project=project, payload=_recam_payload(n, labeled=n < 6),
                            external_id=[f"r-{n}", f'ü,"{n}"', f"line\r\nbreak {n}"][n % 3])
        for n in range(8)
    ]
    batch = Batch.objects.create(pk=BASE + 1, project=project, name="b ü", items_per_unit=4, assignments_per_unit=5)
    units = [Unit.objects.create(pk=BASE + 10 + u, batch=batch, position=u) for u in range(2)]
    for n, item in enumerate(items):
        UnitItem.objects.create(unit=units[n // 4], item=item, position=n % 4)
    people = [
        ("good-ä", "invite"), ("A1B2C3", "mturk"), ("careless", "invite"), ('"d", with comma', "prolific"),
        ("gone", "invite"),
    ]
    annotators = [
        Annotator.objects.create(pk=BASE + 20 + k, project=project, external_id=ext, channel=channel, batch=batch)
        for k, (ext, channel) in enumerate(people)
    ]
    rid = BASE + 1000
    seconds_cycle = [[2.5, 0.1, 0.2, 7, 1.333, 12.25, 3.0], [1, 2, 3, 4, 5, 6, 7], [0.1] * 7,
                     [None, 2.2, ..., 3.3, 0.7, 1.1, 9.99]]
    asg_pk = BASE + 200
    for k, annotator in enumerate(annotators):
        statuses = {0: ["submitted", "approved"], 1: ["submitted", "active"], 2: ["rejected", "submitted"],
                    3: ["active"], 4: ["released"]}[k]
        for u, status in enumerate(statuses):
            assignment = Assignment.objects.create(pk=asg_pk, unit=units[u], annotator=annotator, status=status)
            asg_pk += 1
            for position, item in enumerate(items[u * 4:(u + 1) * 4]):
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
                        label, n, right=k != 2 and (k, n) != (1, 5), span=not (k == 3 and position == 1),
                        easy=(k, n) in {(0, 0), (1, 5), (3, 2)}, second=None if n % 2 else (n + 3) % 5,
                    )
                    timings = _timings(RECAM_PAGES, seconds_cycle[(n + k) % 4], T0)
                    if (k, n) == (0, 3):
                        completed_at = T0  # microsecond 0
                Response.objects.create(pk=rid, assignment=assignment, item=item, position=position,
                                        answers=answers, timings=timings, completed_at=completed_at)
                rid += 1
    return project


COSIMLEX_RELEASE = [
    # word1, word2, context1, context2, sim1, sim2, stdev1, stdev2, pvalue
    ("čaša", "šalica", "Pila je iz <strong>čaše</strong>, ne iz <strong>šalice</strong>.",
     "Na stolu je \"<strong>čaša</strong>\" pored <strong>šalice</strong>; ü.", "4.5", "6.1", "1.2", "0.9", "0.01"),
    ("auto", "vlak", "Išli smo <strong>autom</strong>, a ne <strong>vlakom</strong>.",
     "<strong>Vlak</strong> je brži od <strong>auta</strong>, reče Ana, \"zaista\".", "3", "2.25", "1", "1.5", "0.5"),
    ("kuća", "dom", "Moja <strong>kuća</strong> je moj <strong>dom</strong>.",
     "Prodali su <strong>kuću</strong>, ali <strong>dom</strong> ostaje — 中文.", "8.333", "7", "0.4", "0.8", "0.0001"),
    ("more", "jezero", "Plivali smo u <strong>moru</strong> i <strong>jezeru</strong>.",
     "<strong>Jezero</strong> nije <strong>more</strong>, ali je lijepo.", "2", "1.5", "1.1", "1.3", "0.2"),
    ("knjiga", "pismo", "Čitao je <strong>knjigu</strong> i <strong>pismo</strong>.",
     "Napisala je <strong>pismo</strong> u <strong>knjizi</strong>, tab\u00a0ovdje.", "5", "5.5", "0.7", "0.6", "0.3"),
    ("sunce", "mjesec", "<strong>Sunce</strong> i <strong>mjesec</strong> su na nebu.",
     "Noću vidimo <strong>mjesec</strong>, danju <strong>sunce</strong>.", "1.2", "0.8", "0.9", "1", "0.9"),
]
FORMS = ("čaše", "šalice", "čaša", "šalici")


def _cosimlex_text() -> str:
    header = ["word1", "word2", "context1", "context2", "sim1", "sim2", "stdev1", "stdev2", "pvalue",
              "word1_context1", "word2_context1", "word1_context2", "word2_context2"]
    lines = ["\t".join(header)] + ["\t".join([*row, *FORMS]) for row in COSIMLEX_RELEASE]
    return "\n".join(lines) + "\n"


def build_cosimlex() -> Project:
    """6 pairs (12 items) in two units: each holds one context of every pair. Eight annotators,
    one random and one lazy (engagement), one incomplete response, one never started."""
    project = Project.objects.create(pk=BASE + 2, name="Fast path CoSimLex čšž", kind="cosimlex", language="hr",
                                     settings={"min_shared_items": 3})
    parsed = get_kind("cosimlex").parse(_cosimlex_text())
    items = [
        Item.objects.create(pk=BASE + 300 + n, project=project, external_id=p.external_id, payload=p.payload,
                            group_key=p.group_key)
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
        annotator = Annotator.objects.create(pk=BASE + 40 + k, project=project, external_id=name,
                                             channel="invite" if k % 3 else "prolific", batch=batch)
        u = k % 2
        assignment = Assignment.objects.create(pk=BASE + 400 + k, unit=units[u], annotator=annotator,
                                               status="active" if k == 5 else "submitted")
        for position, item in enumerate(unit_items[u]):
            payload = item.payload
            reference = float(payload["reference"][f"sim{payload['context']}"])
            if k == 6:
                rating = (position * 5 + 3) % 7
            else:
                rating = int(min(6, max(0, round(reference * 6 / 10 + ((k + position) % 3 - 1) * 0.6))))
            words = {"word_1": "asdf", "word_2": "asdf"} if k == 7 else {
                "word_1": f"riječ{position}", "word_2": f'"w,{k}"\r\n{position}'}
            answers: dict[str, Any] = {"inspired": words, "rating": {"rating": rating}}
            timings = _timings(["inspired", "rating"], [9.0 + k, 3.25 + position], T0)
            completed_at: datetime | None = T0 + timedelta(seconds=k * 100 + position, microseconds=k * 7 + 1)
            if k == 5 and position == 5:
                answers, timings, completed_at = {"inspired": words}, _timings(["inspired"], [2.0], T0), None
            if k == 5 and position == 4:
                answers, timings, completed_at = {}, {}, None
            Response.objects.create(pk=rid, assignment=assignment, item=item, position=position, answers=answers,
                                    timings=timings, completed_at=completed_at)
            rid += 1
    return project


# --- the exports as they were before the fast path --------------------------------------------
LEGACY_CHUNK = 2000


def legacy_annotation_rows(project: Project, *, response_ids=None) -> Iterator[dict[str, Any]]:
    kind = get_kind(project.kind)
    qs = Response.objects.filter(item_id__in=Item.objects.filter(project=project).values("id"))
    if response_ids is not None:
        qs = qs.filter(pk__in=response_ids)
    keys = kind.row_payload_keys
    payload_fields = ["item__payload"] if keys is None else [f"item__payload__{key}" for key in keys]
    qs = qs.annotate(_answers=Cast("answers", TextField()), _timings=Cast("timings", TextField()))
    fields = (
        "id", "item_id", "item__external_id", "assignment__annotator_id",
        "assignment__annotator__external_id", "assignment__annotator__channel", "assignment__unit__batch_id",
        "assignment__unit_id", "assignment_id", "assignment__status", "completed_at", "_answers", "_timings",
        *payload_fields,
    )
    width = len(fields) - len(payload_fields)

    def total_seconds(timings: dict[str, Any]) -> float | None:
        seconds = [t["seconds"] for t in timings.values() if t.get("seconds") is not None]
        return round(sum(seconds), 3) if seconds else None

    def read() -> Iterator[dict[str, Any]]:
        for values in qs.order_by("id").values_list(*fields).iterator(chunk_size=LEGACY_CHUNK):
            (rid, item_id, ext, aid, aext, channel, batch_id, unit_id, asg_id, status, done_at,
             answers, timings) = values[:width]
            if keys is None:
                payload = values[width]
            else:
                payload = {key: value for key, value in zip(keys, values[width:]) if value is not None}
            row = {
                "response_id": rid, "item_id": item_id, "external_id": ext, "annotator_id": aid,
                "annotator": aext, "channel": channel, "batch_id": batch_id, "unit_id": unit_id,
                "assignment_id": asg_id, "assignment_status": status, "completed": done_at is not None,
                "completed_at": done_at.isoformat() if done_at else None,
                "seconds": total_seconds(json.loads(timings)),
            }
            row.update(kind.annotation_row(payload, json.loads(answers)))
            yield row

    if connection.vendor == "postgresql" and connection.get_autocommit():
        with transaction.atomic():
            yield from read()
    else:
        yield from read()


def legacy_dataset(project: Project, dataset: str) -> tuple[list[str], Iterator[dict[str, Any]]]:
    columns = annotation_columns(project)
    if dataset == "raw":
        return columns, legacy_annotation_rows(project)
    assert dataset == "clean"
    run = latest_run(project)
    extra = response_value_columns(run)

    def rows() -> Iterator[dict[str, Any]]:
        source = legacy_annotation_rows(project, response_ids=kept_response_ids(run))
        while chunk := list(islice(source, LEGACY_CHUNK)):
            values = response_values(run, [row["response_id"] for row in chunk]) if extra else {}
            for row in chunk:
                if extra:
                    derived = values.get(row["response_id"], {})
                    row.update({column: derived.get(column) for column in extra})
                yield row

    return columns + extra, rows()


def legacy_export(project: Project, dataset: str, fmt: str) -> bytes:
    columns, rows = legacy_dataset(project, dataset)
    out: list[bytes] = []
    if fmt == "jsonl":
        encode = json.JSONEncoder(ensure_ascii=False, default=str).encode
        while batch := list(islice(rows, 1000)):
            out.append(("\n".join(map(encode, batch)) + "\n").encode("utf-8"))
        return b"".join(out)
    buffer = io.StringIO()
    writer = csv.writer(buffer, **({"delimiter": "\t", "lineterminator": "\n"} if fmt == "tsv" else {}))
    writer.writerow(columns)
    values = itemgetter(*columns)
    while batch := list(islice(rows, 1000)):
        writer.writerows(map(values, batch))
    return buffer.getvalue().encode("utf-8")


# --- the tests ----------------------------------------------------------------------------------
def export_bytes(project: Project, dataset: str, fmt: str) -> bytes:
    return b"".join(export_open(project=project, dataset=dataset, fmt=fmt).chunks)


#: (project, stage, dataset, format) -> SHA-256 of the export made by the code before the fast path
PINNED: dict[str, str] = {
    "recam/no-run/raw.csv": "5be8f46944e31fc385f6f8e4bdbf6aa2100c6b113b85b6df81f9e9a5d4a5eeb4",
    "recam/no-run/raw.tsv": "16adb8766545cbc8fccf730d2c1b3dc286c02b845bd9346af38f03f34151f990",
    "recam/no-run/raw.jsonl": "3d24fbe64c5cdb904f7d7709f8ce1cae5fa79ca071149138c26db3528b56dafb",
    "recam/no-run/items.csv": "7f075579054e946aa75efda430e0c3d9f6ad923c634a17fbbedcc1774fac575e",
    "recam/no-run/items.tsv": "1896e8091110b512647beb0f1a7fb4fe0a434d3352035874bc0e07c250d3a49e",
    "recam/no-run/items.jsonl": "a81a35279768094e6bc84bfef573e6ffb876134e352316eedbdad391c552a0f8",
    "recam/run/raw.csv": "5be8f46944e31fc385f6f8e4bdbf6aa2100c6b113b85b6df81f9e9a5d4a5eeb4",
    "recam/run/raw.tsv": "16adb8766545cbc8fccf730d2c1b3dc286c02b845bd9346af38f03f34151f990",
    "recam/run/raw.jsonl": "3d24fbe64c5cdb904f7d7709f8ce1cae5fa79ca071149138c26db3528b56dafb",
    "recam/run/clean.csv": "8e109c064e8704158dd69bcd32b6e1c565b688d1bb8d7c9f8ca3ab83eda933d2",
    "recam/run/clean.tsv": "44380e672dd0f783cd816b5f82d7bd54bf5c7260be5d79b8ed86a31bc8e70490",
    "recam/run/clean.jsonl": "29fae99fd1f0cf04d3c6133e8e2518a1c4de9467f3df7443dc5df38795504df8",
    "recam/run/items.csv": "7309aa867b42ef63bed9f4b95f8fbd181e1a2152a71d5e9aebaa49b6b1362197",
    "recam/run/items.tsv": "f4dee84ad6364895e5efcbe43e982fc168db664cd4b461a628d9c0740f8ef1e7",
    "recam/run/items.jsonl": "931b1b350713385444110bd3388fe19b4a5210555e62b8e7204a10284f462114",
    "recam/run/annotators.csv": "7249dbf8362ba34866dcd5b740c0233085b40a4a6a90877f72fdb965a0908982",
    "recam/run/annotators.tsv": "cb95ab9f28360d1040164cae7d9fe2e19453d3534f2ecef8bb0d565d37ef2959",
    "recam/run/annotators.jsonl": "586a444963a9a52edb38febbc8aa042dab33413518ee4355896fbf63adc0bd15",
    "recam/run/decisions.csv": "138fdfa6081e86754158c007a542c502bf284af94ba14355e022d3e26e0614a2",
    "recam/run/decisions.tsv": "b956c39258f237ace166e24eab4c0e0d26b4e1b0916b86ccd285c656d89c84dc",
    "recam/run/decisions.jsonl": "629840858c660709307cc1ccb14e87fd864a9e81298cee51d35c28ccd9aa3ee2",
    "cosimlex/no-run/raw.csv": "7f4066c223d21146d880c109694c5c1f09c917d0e5e6e98b71903436a88e5021",
    "cosimlex/no-run/raw.tsv": "366a9c1bcededf6f5f00027cfd8f5f96c36389f329151c31f0e67365b18c029a",
    "cosimlex/no-run/raw.jsonl": "34eed956184888ebfa2dad923816ed4454c2e8aab2c639b9266e5cfc02a71309",
    "cosimlex/no-run/items.csv": "5125859275697852f57dca638f480bd81470b2c2fa9da8514240fba83fd36d80",
    "cosimlex/no-run/items.tsv": "ccc3cb35b98e753fb7caf11409e4c9d3afb5b865dca319fb48a34ce6cd3060b2",
    "cosimlex/no-run/items.jsonl": "54593287c8e1a7e8cd2ec92f65301ca2abff6a2faf2674804ce66d8db066de8f",
    "cosimlex/no-run/kit_data.csv": "05a836d8869bede52a44a2b917e13b259aa645826daffd264c78ddbc58c0fb33",
    "cosimlex/no-run/kit_data.tsv": "4b65881fd56d9379a90bde33a576df260074886bfa0d4c2a91d56586f83ea4a2",
    "cosimlex/no-run/kit_data.jsonl": "bfade05aaaa72262825609e0e9f9120ac9f28f8ea367cbaa5016e739ebbe0092",
    "cosimlex/no-run/kit_gold.csv": "7fbb88347592e00f6360d43a69e3cffafcfd7cd8a78490d4404cec45669cfb2f",
    "cosimlex/no-run/kit_gold.tsv": "157474dae5b78b7170236e1c1c788a5debfd719cd18b53bb7f7c49dc19dd9f3b",
    "cosimlex/no-run/kit_gold.jsonl": "d53297cdb0c3918924060ef90d33b720d4cdb8f53e7eb30b794b75574425d54b",
    "cosimlex/run/raw.csv": "7f4066c223d21146d880c109694c5c1f09c917d0e5e6e98b71903436a88e5021",
    "cosimlex/run/raw.tsv": "366a9c1bcededf6f5f00027cfd8f5f96c36389f329151c31f0e67365b18c029a",
    "cosimlex/run/raw.jsonl": "34eed956184888ebfa2dad923816ed4454c2e8aab2c639b9266e5cfc02a71309",
    "cosimlex/run/clean.csv": "89b65b98b01fe5e54ce667fc3e835e7d414e7e5213d34b0a80e2b0d00a803a40",
    "cosimlex/run/clean.tsv": "47deb1c954ae9ae3b0ba4f07ba441e9dfc95888cecbc9fcb5d3fca5d0aa06304",
    "cosimlex/run/clean.jsonl": "5bb4bc0dafcbcea7705f8e355baab6fa0718da2c3d558eac1341405a7f28e2c0",
    "cosimlex/run/items.csv": "3c0345f1a88ae95ab1bc3bd2e7294bb30cd003df6e29bbc68ca2ed03f5cd195b",
    "cosimlex/run/items.tsv": "69e2e955c21f2ed6548bbf8ac825be6fa111c7578a70341f8c9bc0fb3c6b7138",
    "cosimlex/run/items.jsonl": "d8210e878bf758c01372de31c8d8bd4c7885dca0bc20ebfe9dd42f7445984bcd",
    "cosimlex/run/annotators.csv": "47038b8d32e5b5bf531b75c1184684919bf11a2caea97f7496f43ec9221fce4f",
    "cosimlex/run/annotators.tsv": "a67e30a6b07d9995ae5861c43d57c3d1ca7db3fac56349ef6a2ec54cb95b55f9",
    "cosimlex/run/annotators.jsonl": "c6356cbaeaae2540ab8b698bd47367a6f1c536edd01f44443e128a1e33a036da",
    "cosimlex/run/decisions.csv": "13382df976c64f008b963d37c03a820768113ff49abb5fea537eccd41a93e8d0",
    "cosimlex/run/decisions.tsv": "7e6281ebe7d997d6eda29f0e3ee20e18b7b16c739a5db7f752e09a6e59ec1290",
    "cosimlex/run/decisions.jsonl": "8454e5d25d51fbcc31e79f19b5b35c6171c2cd8fc98e8fd1be5942d29a2af19c",
    "cosimlex/run/kit_data.csv": "05a836d8869bede52a44a2b917e13b259aa645826daffd264c78ddbc58c0fb33",
    "cosimlex/run/kit_data.tsv": "4b65881fd56d9379a90bde33a576df260074886bfa0d4c2a91d56586f83ea4a2",
    "cosimlex/run/kit_data.jsonl": "bfade05aaaa72262825609e0e9f9120ac9f28f8ea367cbaa5016e739ebbe0092",
    "cosimlex/run/kit_gold.csv": "748332a1990ca35cf779f00be0427b33c6911e6abcea3ff5a59dddf7ad9e5296",
    "cosimlex/run/kit_gold.tsv": "79e08caacdbf6bcca5be78ae8f638ece2a58e8f9164254236b80917ccbe37218",
    "cosimlex/run/kit_gold.jsonl": "3a20608bd63f41ec8f182a205f000729c619f22f7ca527b8e94cfa55ce4ca3a1",
}


def digests(project: Project, stage: str) -> dict[str, str]:
    found = {}
    for dataset in project_datasets(project):
        for fmt in FORMATS:
            try:
                body = export_bytes(project, dataset, fmt)
            except ExportUnavailable:  # needs a quality run
                continue
            found[f"{project.kind}/{stage}/{dataset}.{fmt}"] = hashlib.sha256(body).hexdigest()
    return found


@pytest.mark.parametrize("build", [build_recam, build_cosimlex], ids=["recam", "cosimlex"])
def test_every_export_is_byte_identical_to_before(build):
    project = build()
    found = digests(project, "no-run")
    run = quality_run_create(project=project)
    assert run.status == "done", run.error
    found.update(digests(project, "run"))
    expected = {key: value for key, value in PINNED.items() if key.startswith(project.kind + "/")}
    assert found == expected, json.dumps(found, indent=1)


def assert_same_bytes(got: bytes, want: bytes) -> None:
    if got == want:
        return
    got_lines, want_lines = got.split(b"\n"), want.split(b"\n")
    for number, (g, w) in enumerate(zip(got_lines, want_lines), start=1):
        assert g == w, f"line {number} differs"
    assert len(got_lines) == len(want_lines), "line counts differ"


@pytest.mark.parametrize("build", [build_recam, build_cosimlex], ids=["recam", "cosimlex"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_raw_and_clean_match_the_old_reader(build, fmt):
    project = build()
    assert_same_bytes(export_bytes(project, "raw", fmt), legacy_export(project, "raw", fmt))
    quality_run_create(project=project)
    assert_same_bytes(export_bytes(project, "clean", fmt), legacy_export(project, "clean", fmt))


def test_the_projects_are_as_varied_as_claimed():
    """Guards the fixtures themselves: what the pinned digests are supposed to cover."""
    recam, cosimlex = build_recam(), build_cosimlex()
    for project in (recam, cosimlex):
        run = quality_run_create(project=project)
        raw = export_bytes(project, "raw", "jsonl").decode("utf-8")
        rows = [json.loads(line) for line in raw.splitlines()]
        assert any(not r["completed"] for r in rows) and any(r["seconds"] is None for r in rows)
        assert "\\r\\n" in raw and any(ord(c) > 127 for c in raw)
        assert run.annotator_decisions.filter(keep=False).exists()
        clean = export_bytes(project, "clean", "csv")
        assert 0 < clean.count(b"\n") < export_bytes(project, "raw", "csv").count(b"\n")
    raw = export_bytes(recam, "raw", "csv").decode("utf-8")
    assert '"He said, ""Hello, world!""\r\nThen:' in raw  # quotes doubled, CR/LF kept inside the cell
    assert response_value_columns(latest_run(cosimlex))  # the clean dataset appends derived values
    assert b"rating_calibrated" in export_bytes(cosimlex, "clean", "tsv").split(b"\n")[0]


@pytest.mark.parametrize("fmt", FORMATS)
def test_bulk_raw_and_clean_match_the_old_reader_across_chunks(fmt):
    project = bulk_responses(4500)
    quality_run_create(project=project)
    for dataset in ("raw", "clean"):
        assert_same_bytes(export_bytes(project, dataset, fmt), legacy_export(project, dataset, fmt))


# --- the fast path's other branches give the same bytes -------------------------------------
def both_projects() -> list[Project]:
    projects = [build_recam(), build_cosimlex()]
    for project in projects:
        quality_run_create(project=project)
    return projects


def assert_like_the_old_reader(projects: list[Project]) -> None:
    for project in projects:
        for dataset in ("raw", "clean"):
            for fmt in FORMATS:
                assert_same_bytes(export_bytes(project, dataset, fmt), legacy_export(project, dataset, fmt))
        assert list(annotation_rows(project)) == list(legacy_annotation_rows(project))  # what quality runs read


@pytest.mark.parametrize("share", [0.0, 2.0], ids=["table-scan", "item-index"])
def test_both_sqlite_plans(monkeypatch, share):
    """SQLite reads in id order or through the item index and sorts: the same rows either way
    (on PostgreSQL the share is not used)."""
    monkeypatch.setattr(selectors, "_SCAN_SHARE", share)
    assert_like_the_old_reader(both_projects())


@pytest.mark.parametrize("slug", ["recam", "cosimlex"])
def test_kinds_that_read_the_whole_payload(monkeypatch, slug):
    monkeypatch.setattr(get_kind(slug), "row_payload_keys", None)
    assert_like_the_old_reader(both_projects())


def test_kind_rows_with_keys_beyond_their_columns(monkeypatch):
    """A row with extra keys: CSV ignores them, JSONL writes them, and one named like a base
    column replaces that column's value, as when the row dicts were merged."""
    kind = get_kind("recam")
    plain = type(kind).annotation_row

    def annotation_row(self, payload, answers):
        row = plain(self, payload, answers)
        if (answers.get("relation") or {}).get("relation") == "paraphrase":
            row.update(channel="overridden", extra_key="ü")
        return row

    monkeypatch.setattr(type(kind), "annotation_row", annotation_row)
    # the row no longer follows the kind's declared sources: the database cannot write it
    monkeypatch.setattr(type(kind), "annotation_sources", lambda self: None)
    projects = both_projects()
    assert_like_the_old_reader(projects)
    assert b"overridden" in export_bytes(projects[0], "raw", "csv")


def test_an_item_imported_during_an_export_is_read_when_met():
    project = build_recam()
    lookup = selectors._ItemLookup(project, ("label",))
    assert len(lookup) == 8
    item = Item.objects.create(project=project, external_id="late, ü", payload={"label": 3, "article": "x"})
    assert lookup[item.pk] == ("late, ü", {"label": 3})
    assert lookup[BASE + 107] == ('ü,"7"', {})  # a test item: no label key


def test_empty_selection_and_closing_early_leave_no_reader_thread():
    project = build_recam()
    assert list(annotation_value_chunks(project, response_ids=[])) == []
    assert list(annotation_rows(project, response_ids=Response.objects.none())) == []
    chunks = annotation_value_chunks(project, chunk_size=3)
    assert len(next(chunks)) == 3
    chunks.close()
    export = export_open(project=project, dataset="raw", fmt="csv")
    next(export.chunks)
    export.chunks.close()
    assert not [t for t in threading.enumerate() if t.name == "export-prefetch"]


def test_a_database_error_while_reading_reaches_the_caller():
    def fetch(size):
        raise connection.Database.OperationalError("disk I/O error")

    reader = selectors._prefetched(fetch, 10)
    with pytest.raises(connection.Database.OperationalError, match="disk I/O error"):
        next(reader)
    assert not [t for t in threading.enumerate() if t.name == "export-prefetch"]


# --- the delimited writer writes what csv.writer writes ---------------------------------------
DIALECTS = [{}, {"delimiter": "\t", "lineterminator": "\n"}]


class Text(str):
    def __str__(self) -> str:
        return "not what csv writes"


def random_cell(rng: random.Random) -> Any:
    pick = rng.random()
    if pick < 0.45:
        pieces = ["a", "ü", "中", " ", ",", "\t", '"', "\r", "\n", "\r\n", '""', "\x00", "\u2028", "\x85", "'", "\\",
                  "😀"]
        return "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 6)))
    if pick < 0.55:
        return None
    if pick < 0.65:
        return rng.choice([True, False])
    if pick < 0.75:
        return rng.randrange(-10**25, 10**25) if rng.random() < 0.2 else rng.randrange(-5, 3000)
    if pick < 0.9:
        return rng.choice([0.1 + 0.2, -0.0, 1e20, 1e-7, float("nan"), float("inf"), 2.5, rng.random() * 1e6])
    return rng.choice([Decimal("1.50"), {"a": "b,c"}, ["x", 1], Text('a"b'), (1, 2), b"bytes", 7j])


@pytest.mark.parametrize("options", DIALECTS, ids=["csv", "tsv"])
def test_delimited_lines_write_exactly_what_csv_writer_writes(options):
    lines = writers._DelimitedLines(options)
    assert lines.quoting is not None  # the fast rendering is on with this Python's csv module
    rng = random.Random(11)
    rows = [[random_cell(rng) for _ in range(rng.randrange(1, 7))] for _ in range(5000)]
    rows += [[], [""], [None], ["", ""], [None, None], ['"'], ["x"]]
    every_character = [chr(code) for code in range(0x10000)]
    rows += [[c, f"a{c}b", c * 2, 1] for c in every_character]
    buffer = io.StringIO()
    csv.writer(buffer, **options).writerows(rows)
    expected = buffer.getvalue()
    assert lines.render(rows) == expected
    assert "".join(lines.render(rows[n:n + 97]) for n in range(0, len(rows), 97)) == expected


def test_delimited_lines_leave_other_dialects_to_csv_writer():
    assert writers._DelimitedLines({"quoting": csv.QUOTE_ALL}).quoting is None
    rows = [["a", 1, None], ["b,c", 2.5, True]]
    buffer = io.StringIO()
    csv.writer(buffer, quoting=csv.QUOTE_ALL).writerows(rows)
    assert writers._DelimitedLines({"quoting": csv.QUOTE_ALL}).render(rows) == buffer.getvalue()


def test_a_derived_value_named_like_an_annotation_column_replaces_it(monkeypatch):
    project = build_cosimlex()
    quality_run_create(project=project)
    columns = ["rating", *response_value_columns(latest_run(project))]
    monkeypatch.setattr(datasets, "response_value_columns", lambda run: list(columns))
    monkeypatch.setitem(globals(), "response_value_columns", lambda run: list(columns))
    for fmt in FORMATS:
        assert_same_bytes(export_bytes(project, "clean", fmt), legacy_export(project, "clean", fmt))
    header, *lines = export_bytes(project, "clean", "csv").decode("utf-8").split("\r\n")
    assert header.split(",").count("rating") == 2
