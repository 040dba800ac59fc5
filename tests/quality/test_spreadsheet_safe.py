"""Issue 20: CSV/TSV cells that a spreadsheet would run as a formula are prefixed with ' when the
researcher asks for it (admin, API, command); the default stays exact, and each export says
which one it is."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Item
from quality.exports import Options, export_open
from quality.exports.writers import plain_cell, spreadsheet_safe_cell
from tests.factories import RECAM_PAYLOAD, ProjectFactory

pytestmark = pytest.mark.django_db

CRAFTED = [
    '=HYPERLINK("http://evil.example","click") @placeholder',
    "+1+2 @placeholder",
    "-2+3 @placeholder",
    "@SUM(A1) @placeholder",
    "\t=1 @placeholder",
    "\r=1 @placeholder",
    "plain @placeholder",
    "a=b @placeholder",
]


@pytest.fixture
def crafted():
    project = ProjectFactory(kind="recam", name="Crafted")
    Item.objects.bulk_create(
        Item(project=project, external_id=f"c{n}", payload={**RECAM_PAYLOAD, "question": question, "label": 1})
        for n, question in enumerate(CRAFTED)
    )
    return project


def questions(body: bytes, fmt: str) -> list[str]:
    dialect = {"delimiter": "\t"} if fmt == "tsv" else {}
    rows = csv.DictReader(io.StringIO(body.decode("utf-8"), newline=""), **dialect)
    return [row["question"] for row in rows]


def body(project, fmt: str, safe: bool) -> bytes:
    export = export_open(project=project, dataset="items", fmt=fmt, options=Options(spreadsheet_safe=safe))
    assert export.cells == ("spreadsheet-safe" if safe and fmt != "jsonl" else "exact")
    return b"".join(export.chunks)


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_default_is_exact_and_safe_prefixes_formula_starts(crafted, fmt):
    crafted_here = CRAFTED
    if fmt == "tsv":
        # TSV (LF line ends, as the released files) leaves a lone CR unquoted, as it always did:
        # a reader then splits the line there. Checked on the bytes; the rest row by row.
        assert b"\t\r=1 @placeholder\t" in body(crafted, fmt, safe=False)
        assert b"\t'\r=1 @placeholder\t" in body(crafted, fmt, safe=True)
        Item.objects.filter(project=crafted, payload__question__startswith="\r").delete()
        crafted_here = [q for q in CRAFTED if not q.startswith("\r")]
    assert questions(body(crafted, fmt, safe=False), fmt) == crafted_here  # round-trips exactly
    safe = questions(body(crafted, fmt, safe=True), fmt)
    expected = ["'" + q if q[0] in "=+-@\t\r" else q for q in crafted_here]
    assert safe == expected and sum(q.startswith("'") for q in safe) == len(crafted_here) - 2
    assert "a=b @placeholder" in safe and "plain @placeholder" in safe  # only the first character counts


def test_jsonl_is_never_changed(crafted):
    rows = [json.loads(line) for line in body(crafted, "jsonl", safe=True).decode("utf-8").splitlines()]
    assert [row["question"] for row in rows] == CRAFTED


def test_numbers_are_not_text_and_stay():
    assert spreadsheet_safe_cell(-3) == -3 and spreadsheet_safe_cell(-0.5) == -0.5
    assert spreadsheet_safe_cell(None) is None and spreadsheet_safe_cell(True) is True
    assert spreadsheet_safe_cell("-3") == "'-3" and spreadsheet_safe_cell("") == ""


def test_admin_download_api_and_command_take_the_option(crafted, staff_client, staff, tmp_path):
    url = reverse("quality:export", args=[crafted.pk, "items", "csv"])
    exact, safe = staff_client.get(url), staff_client.get(url + "?spreadsheet_safe=1")
    assert exact["X-Export-Cells"] == "exact" and safe["X-Export-Cells"] == "spreadsheet-safe"
    assert "spreadsheet-safe" in safe["Content-Disposition"]
    assert questions(b"".join(safe.streaming_content), "csv")[0].startswith("'=HYPERLINK")
    api = APIClient()
    api.force_authenticate(staff)
    answer = api.get(
        reverse("api-project-export", args=[crafted.pk]),
        {"dataset": "items", "format": "tsv", "spreadsheet_safe": "true"},
    )
    assert answer["X-Export-Cells"] == "spreadsheet-safe"
    assert questions(b"".join(answer.streaming_content), "tsv")[1] == "'+1+2 @placeholder"
    target = tmp_path / "items.csv"
    err = io.StringIO()
    call_command(
        "export",
        str(crafted.pk),
        "--dataset",
        "items",
        "--spreadsheet-safe",
        "-o",
        str(target),
        stdout=io.StringIO(),
        stderr=err,
    )
    assert "cells: spreadsheet-safe" in err.getvalue()
    assert questions(target.read_bytes(), "csv")[3] == "'@SUM(A1) @placeholder"


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ([1, 4], "1;4"),
        (["a", None, "b"], "a;;b"),
        ({"answer": "B"}, '{"answer": "B"}'),
        ([["甲说了一句话。"], [], ["乙回答了。", "丙走了！"]], '[["甲说了一句话。"], [], ["乙回答了。", "丙走了！"]]'),
        ("plain", "plain"),
    ],
)
def test_a_cell_is_a_plain_value_and_a_list_of_lists_stays_json(value, cell):
    """A flat list reads as its items; a list of lists (GCRC's sentences per option) cannot be
    joined without losing where one option ends, so it stays JSON (a Python repr before)."""
    assert plain_cell(value) == cell
