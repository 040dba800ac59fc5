"""Importing GCRC files through the import service (SQLite, and PostgreSQL with DATABASE_URL):
both samples with their text exact, all or nothing, a bad record named by item and field."""

import json

import pytest

from annotation.kinds import ImportProblem
from annotation.models import Item
from annotation.services.imports import items_import
from tests.factories import ProjectFactory

from .conftest import FIXTURES, SAMPLES, sample_items

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", SAMPLES)
def test_each_sample_imports_with_its_text_and_sentences(name):
    project = ProjectFactory(kind="gcrc", language="zh-hans")
    report = items_import(project=project, data=(FIXTURES / name).read_bytes(), filename=name)
    released = sample_items(name)
    assert (report.created, report.duplicates, report.total) == (len(released), 0, len(released))
    items = list(Item.objects.filter(project=project).order_by("id"))
    assert [i.external_id for i in items] == [r["id"] for r in released]
    for item, record in zip(items, released, strict=True):
        for key, value in record.items():
            assert item.payload[key] == value  # Chinese text exactly, the derivative's fields kept
        assert all(item.payload["passage"][s["start"] : s["end"]] == s["text"] for s in item.payload["sentences"])
        assert ("reference" in item.payload) == ("answer" in record)
        if "answer" in record:
            assert item.payload["reference"] == {"answer": record["answer"]}


def test_a_second_import_of_the_same_file_adds_nothing():
    project = ProjectFactory(kind="gcrc", language="zh-hans")
    data = (FIXTURES / SAMPLES[1]).read_bytes()
    items_import(project=project, data=data)
    again = items_import(project=project, data=data)
    assert (again.created, again.duplicates) == (0, again.total)


def test_a_bad_record_refuses_the_whole_file_naming_item_and_field():
    project = ProjectFactory(kind="gcrc", language="zh-hans")
    records = sample_items(SAMPLES[1])[:4]
    records[2]["error_type"] = ["DTL", "", "不存在的错误", ""]
    data = ("\ufeff" + json.dumps({"data": records}, ensure_ascii=False, indent=4)).replace("\n", "\r\n").encode()
    with pytest.raises(ImportProblem) as caught:
        items_import(project=project, data=data, filename="bad.json")
    assert caught.value.line == 3 and caught.value.field == "error_type"
    assert "item 3" in str(caught.value) and "option C" in str(caught.value)
    assert not Item.objects.filter(project=project).exists()
