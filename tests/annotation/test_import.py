"""Import of ReCAM's released JSONL: atomic, errors name the line and the field."""

import json

import pytest

from annotation.kinds import ImportProblem
from annotation.models import Item
from annotation.services.imports import items_import
from tests.factories import RECAM_PAYLOAD, ProjectFactory

pytestmark = pytest.mark.django_db


def jsonl(*records, newline="\n") -> bytes:
    return newline.join(json.dumps(r, ensure_ascii=False) for r in records).encode("utf-8") + newline.encode()


def record(**changes):
    data = dict(RECAM_PAYLOAD)
    data.update(changes)
    return {k: v for k, v in data.items() if v is not ...}


def test_dev_sample_imports_exactly(recam_dev_bytes):
    project = ProjectFactory()
    report = items_import(project=project, data=recam_dev_bytes, filename="Task_1_dev.jsonl")
    assert (report.created, report.duplicates, report.total) == (20, 0, 20)
    first_line = recam_dev_bytes.split(b"\r\n")[0]
    original = json.loads(first_line)
    item = Item.objects.filter(project=project).order_by("id").first()
    assert item.payload == original
    assert item.source == "Task_1_dev.jsonl:1"
    # mojibake is kept exactly as released
    assert any("Â£" in i.payload["article"] for i in Item.objects.filter(project=project))


def test_test_file_uses_released_ids(recam_test_bytes):
    project = ProjectFactory()
    items_import(project=project, data=recam_test_bytes)
    assert sorted(Item.objects.values_list("external_id", flat=True)) == ["0", "1", "2", "3", "4"]
    assert all("label" not in i.payload for i in Item.objects.all())


def test_reimport_creates_no_duplicates(recam_dev_bytes):
    project = ProjectFactory()
    items_import(project=project, data=recam_dev_bytes)
    again = items_import(project=project, data=recam_dev_bytes.replace(b"\r\n", b"\n"))
    assert (again.created, again.duplicates) == (0, 20)
    assert Item.objects.filter(project=project).count() == 20


def test_crlf_and_lf_give_identical_items():
    a, b = ProjectFactory(), ProjectFactory()
    items_import(project=a, data=jsonl(record(), record(label=2), newline="\r\n"))
    items_import(project=b, data=jsonl(record(), record(label=2), newline="\n"))
    assert list(a.items.values_list("external_id", "payload")) == list(b.items.values_list("external_id", "payload"))


@pytest.mark.parametrize(
    "data, line, field, words",
    [
        (jsonl(record()) + b'{"article": "x", \n', 2, None, "invalid JSON"),
        (jsonl(record(), record(option_3=...)), 2, "option_3", "missing"),
        (jsonl(record(question="no blank here")), 1, "question", "exactly one @placeholder (found 0)"),
        (jsonl(record(question="@placeholder and @placeholder")), 1, "question", "found 2"),
        (jsonl(record(), record(), record(label=5)), 3, "label", "0 to 4"),
        (jsonl(record(label="1")), 1, "label", "0 to 4"),
        (jsonl(record(label=True)), 1, "label", "0 to 4"),
        (jsonl(record(article="")), 1, "article", "empty"),
        (jsonl(record(option_0=3)), 1, "option_0", "string"),
        (jsonl(record()) + b"[1, 2]\n", 2, None, "JSON object"),
        (jsonl(record()) + "caf\u00e9".encode("latin-1") + b"\n", 2, None, "not UTF-8"),
    ],
)
def test_bad_file_imports_nothing_and_names_line_and_field(data, line, field, words):
    project = ProjectFactory()
    with pytest.raises(ImportProblem) as caught:
        items_import(project=project, data=data)
    assert caught.value.line == line
    assert caught.value.field == field
    assert words in str(caught.value)
    assert f"line {line}" in str(caught.value)
    assert Item.objects.count() == 0


@pytest.mark.parametrize("data", [b"", b"\n\r\n  \n"])
def test_empty_file_is_refused(data):
    with pytest.raises(ImportProblem, match="empty"):
        items_import(project=ProjectFactory(), data=data)


def test_file_over_the_size_limit_is_refused(settings):
    settings.IMPORT_MAX_BYTES = 100
    with pytest.raises(ImportProblem, match="over the import limit"):
        items_import(project=ProjectFactory(), data=jsonl(record(), record(label=3)))
    assert Item.objects.count() == 0


def test_bad_line_after_good_ones_rolls_back_everything(recam_dev_bytes):
    project = ProjectFactory()
    with pytest.raises(ImportProblem) as caught:
        items_import(project=project, data=recam_dev_bytes + b'{"broken": \r\n')
    assert caught.value.line == 21
    assert Item.objects.count() == 0


def test_file_with_some_new_and_some_existing_items_adds_only_the_new(recam_dev_bytes):
    project = ProjectFactory()
    lines = recam_dev_bytes.split(b"\r\n")
    first = items_import(project=project, data=b"\r\n".join(lines[:8]) + b"\r\n", filename="part.jsonl")
    assert (first.created, first.duplicates, first.total) == (8, 0, 8)
    report = items_import(project=project, data=recam_dev_bytes, filename="full.jsonl")
    assert (report.created, report.duplicates, report.total) == (12, 8, 20)
    items = list(Item.objects.filter(project=project).order_by("id"))
    assert len(items) == 20 and len({i.external_id for i in items}) == 20
    assert [i.source for i in items] == [f"part.jsonl:{n}" for n in range(1, 9)] + [
        f"full.jsonl:{n}" for n in range(9, 21)
    ]
    assert [i.payload for i in items] == [json.loads(line) for line in lines[:20]]


def test_a_record_repeated_in_the_file_is_imported_once(recam_test_bytes):
    project = ProjectFactory()
    lines = recam_test_bytes.splitlines()
    report = items_import(project=project, data=b"\n".join([lines[0], lines[1], lines[0], *lines]) + b"\n")
    assert (report.created, report.duplicates, report.total) == (5, 3, 8)
    assert Item.objects.filter(project=project).count() == 5
    assert Item.objects.get(project=project, external_id="0").source == "upload:1"


def test_invalid_json_names_the_same_column_with_crlf_and_lf():
    bad = b'{"article": "x", '
    messages = []
    for newline in (b"\n", b"\r\n"):
        with pytest.raises(ImportProblem) as caught:
            items_import(project=ProjectFactory(), data=jsonl(record(), newline=newline.decode()) + bad + newline)
        messages.append(str(caught.value))
    assert (
        messages[0]
        == messages[1]
        == ("line 2: invalid JSON (Expecting property name enclosed in double quotes at column 18)")
    )
    assert Item.objects.count() == 0


def test_items_read_back_exactly_as_released(recam_dev_bytes):
    project = ProjectFactory()
    items_import(project=project, data=recam_dev_bytes)
    lines = recam_dev_bytes.split(b"\r\n")[:20]

    def typed(payload):  # the same keys, types (1 is not 1.0 or True) and strings, in any key order
        return sorted((key, type(value).__name__, value) for key, value in payload.items())

    stored = [
        Item.objects.get(pk=pk).payload
        for pk in Item.objects.filter(project=project).order_by("id").values_list("pk", flat=True)
    ]
    assert [typed(p) for p in stored] == [typed(json.loads(line)) for line in lines]
