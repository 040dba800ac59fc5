"""Importing CoSimLex release files and SemEval kit input: two items per pair, exact text."""

import csv

import pytest

from annotation.kinds import ImportProblem, get_kind
from annotation.kinds.cosimlex.records import (
    KIT_COLUMNS,
    RELEASE_COLUMNS,
    context_segments,
    format_score,
    plain_context,
)
from annotation.models import Item
from annotation.services.imports import items_import
from tests.conftest import data_file
from tests.factories import ProjectFactory

LANGUAGES = ["en", "hr", "sl", "fi"]
kind = get_kind("cosimlex")


def release_rows(lang: str) -> list[dict[str, str]]:
    text = data_file("cosimlex", f"cosimlex_{lang}.sample.csv").read_text(encoding="utf-8")
    return list(csv.DictReader(text.splitlines(), delimiter="\t", quoting=csv.QUOTE_NONE))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_release_file_gives_two_items_per_pair_with_text_kept_exactly(lang):
    rows = release_rows(lang)
    items = kind.parse(data_file("cosimlex", f"cosimlex_{lang}.sample.csv").read_text(encoding="utf-8"))
    assert len(items) == 2 * len(rows)
    for n, row in enumerate(rows):
        first, second = items[2 * n], items[2 * n + 1]
        assert first.group_key == second.group_key and first.group_key.startswith(f"{row['word1']}|{row['word2']}|")
        assert (first.payload["context"], second.payload["context"]) == (1, 2)
        assert first.line == second.line == n + 2
        for column in ["word1", "word2", "context1", "context2", "word1_context1", "word2_context2"]:
            assert first.payload[column] == row[column]  # byte-exact, any script
        assert first.payload["reference"] == {c: row[c] for c in ["sim1", "sim2", "stdev1", "stdev2", "pvalue"]}


@pytest.mark.parametrize("lang", ["en", "hr", "sl", "fi"])
def test_kit_input_gives_the_same_pairs_without_reference_scores(lang):
    release = kind.parse(data_file("cosimlex", f"cosimlex_{lang}.sample.csv").read_text(encoding="utf-8"))
    kit = kind.parse(data_file("cosimlex", f"data_{lang}.sample.tsv").read_text(encoding="utf-8"))
    assert [i.external_id for i in kit] == [i.external_id for i in release]
    assert all(i.payload["reference"] == {} and i.payload["format"] == "kit" for i in kit)


def test_crlf_practice_kit_parses_like_lf():
    raw = data_file("cosimlex", "practice_kit_data_en.tsv").read_bytes()
    assert b"\r\n" in raw
    crlf = kind.parse(raw.decode("utf-8"))
    lf = kind.parse(raw.replace(b"\r\n", b"\n").decode("utf-8"))
    assert [i.payload for i in crlf] == [i.payload for i in lf]
    assert not any(i.payload["context1"].endswith("\r") or i.payload["word2_context2"].endswith("\r") for i in crlf)


@pytest.mark.django_db
@pytest.mark.parametrize("lang", LANGUAGES)
def test_import_round_trips_text_through_the_database(lang):
    project = ProjectFactory(kind="cosimlex", language=lang)
    data = data_file("cosimlex", f"cosimlex_{lang}.sample.csv").read_bytes()
    report = items_import(project=project, data=data, filename=f"cosimlex_{lang}.csv")
    rows = release_rows(lang)
    assert report.created == 2 * len(rows)
    stored = list(Item.objects.filter(project=project).order_by("id"))
    for n, row in enumerate(rows):
        assert stored[2 * n].payload["context1"] == row["context1"]
        assert stored[2 * n + 1].payload["context2"] == row["context2"]
    again = items_import(project=project, data=data, filename=f"cosimlex_{lang}.csv")
    assert (again.created, again.duplicates) == (0, 2 * len(rows))


def _file(header: list[str], *rows: list[str]) -> str:
    return "\n".join("\t".join(r) for r in [header, *rows]) + "\n"


GOOD = [
    "cup",
    "mug",
    "A <strong>cup</strong> or a <strong>mug</strong>.",
    "The <strong>mug</strong>, the <strong>cup</strong>.",
    "1.5",
    "2",
    "0.5",
    "1",
    "0.3",
    "cup",
    "mug",
    "cup",
    "mug",
]


@pytest.mark.parametrize(
    "text, line, field, message",
    [
        ("word1\tword2\n", 1, None, "header"),
        (_file(RELEASE_COLUMNS, GOOD, GOOD[:12]), 3, "word2_context2", "expected 13 tab-separated fields, found 12"),
        (_file(RELEASE_COLUMNS, GOOD, GOOD + ["extra"]), 3, None, "found 14"),
        (_file(RELEASE_COLUMNS, ["", *GOOD[1:]]), 2, "word1", "must not be empty"),
        (_file(RELEASE_COLUMNS, [*GOOD[:2], "no marks here", *GOOD[3:]]), 2, "context1", "<strong>"),
        (_file(RELEASE_COLUMNS, [*GOOD[:3], "<strong>mug</strong> <strong>cup", *GOOD[4:]]), 2, "context2", "<strong>"),
        (_file(RELEASE_COLUMNS, [*GOOD[:4], "high", *GOOD[5:]]), 2, "sim1", "must be a number"),
        (_file(RELEASE_COLUMNS, [*GOOD[:8], "-1", *GOOD[9:]]), 2, "pvalue", "non-negative"),
        (_file(KIT_COLUMNS, [*GOOD[:4], *GOOD[9:12], " "]), 2, "word2_context2", "must not be empty"),
    ],
)
def test_bad_rows_name_the_line_and_field(text, line, field, message):
    with pytest.raises(ImportProblem) as caught:
        kind.parse(text)
    assert (caught.value.line, caught.value.field) == (line, field)
    assert message in str(caught.value)


def test_unusual_line_breaks_inside_a_context_stay_text():
    odd = "A <strong>cup</strong>\u2028 or\x0c a\x85 <strong>mug</strong>."
    items = kind.parse(_file(RELEASE_COLUMNS, [*GOOD[:2], odd, *GOOD[3:]]).replace("\n", "\r\n"))
    assert len(items) == 2 and items[0].payload["context1"] == odd
    assert items[0].payload["word2_context2"] == "mug"


@pytest.mark.django_db
def test_a_bad_row_imports_nothing():
    project = ProjectFactory(kind="cosimlex")
    text = _file(RELEASE_COLUMNS, GOOD, [*GOOD[:4], "x", *GOOD[5:]])
    with pytest.raises(ImportProblem, match="line 3, field 'sim1'"):
        items_import(project=project, data=text.encode())
    assert not Item.objects.filter(project=project).exists()


def test_segments_and_plain_context():
    context = "Keep </poem> as text; <strong>cup</strong> and <strong>mug</strong>."
    assert context_segments(context) == [
        ("Keep </poem> as text; ", False),
        ("cup", True),
        (" and ", False),
        ("mug", True),
        (".", False),
    ]
    assert plain_context(context) == "Keep </poem> as text; cup and mug."


@pytest.mark.parametrize(
    "value, text",
    [
        (2.2666, "2.27"),
        (1 / 3, "0.333"),
        (10.0, "10"),
        (0.0000011712, "0.00000117"),
        (-0.52, "-0.52"),
        (None, ""),
        (float("nan"), ""),
    ],
)
def test_scores_are_written_as_the_release_writes_them(value, text):
    assert format_score(value) == text


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["en", "sl"])
def test_import_stores_both_items_of_a_pair_with_their_group_key_and_line(lang):
    project = ProjectFactory(kind="cosimlex", language=lang)
    data = data_file("cosimlex", f"cosimlex_{lang}.sample.csv").read_bytes()
    items_import(project=project, data=data, filename="pairs.csv")
    parsed = kind.parse(data.decode("utf-8"))
    stored = list(Item.objects.filter(project=project).order_by("id"))
    assert [(i.external_id, i.group_key, i.source, i.payload) for i in stored] == [
        (p.external_id, p.group_key, f"pairs.csv:{p.line}", p.payload) for p in parsed
    ]
    assert all(i.group_key == i.payload["pair"] and i.created_at is not None for i in stored)
    assert all(stored[n].group_key == stored[n + 1].group_key for n in range(0, len(stored), 2))


@pytest.mark.django_db
def test_a_file_with_some_new_pairs_adds_only_those():
    project = ProjectFactory(kind="cosimlex")
    text = data_file("cosimlex", "cosimlex_en.sample.csv").read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    items_import(project=project, data="".join(lines[:3]).encode())
    report = items_import(project=project, data=text.encode())
    rows = len(release_rows("en"))
    assert (report.created, report.duplicates) == (2 * (rows - 2), 4)
    assert Item.objects.filter(project=project).count() == 2 * rows


@pytest.mark.django_db
def test_a_header_without_rows_is_refused():
    project = ProjectFactory(kind="cosimlex")
    with pytest.raises(ImportProblem, match="no records"):
        items_import(project=project, data=_file(RELEASE_COLUMNS).encode())
    assert not Item.objects.filter(project=project).exists()


def test_item_by_item_parsing_gives_the_same_items():
    text = data_file("cosimlex", "cosimlex_fi.sample.csv").read_text(encoding="utf-8")
    assert list(kind.iter_parse(text)) == kind.parse(text)
