"""A kind declares its annotation columns once (`TaskKind.columns`); the names, the row and the
payload keys an export reads all come from that declaration, and they agree."""

import json

import pytest

from annotation.kinds import Column, all_kinds, get_kind
from annotation.services.responses import next_page_slug
from tests.annotation.test_kind_contract import KIND_SAMPLES
from tests.conftest import data_file


def answered(slug: str, payload: dict) -> dict:
    kind = get_kind(slug)
    _, answer_page = KIND_SAMPLES[slug]
    answers: dict = {}
    while (slug_ := next_page_slug(kind, payload, answers)) is not None:
        page = kind.page(payload, slug_, answers)
        form = page.form_class(answer_page(payload, page.slug), payload=payload, answers=answers)
        assert form.is_valid(), form.errors
        answers[page.slug] = json.loads(json.dumps(form.answer()))
    return answers


@pytest.mark.parametrize("slug", [k.slug for k in all_kinds()])
def test_rows_need_only_the_declared_payload_keys(slug):
    """What the export reads of each item (`payload_keys`) is enough for the row and the text."""
    kind = get_kind(slug)
    names = [column.name for column in kind.columns]
    assert names == kind.annotation_columns() and len(set(names)) == len(names)
    path, _ = KIND_SAMPLES[slug]
    for parsed in kind.parse(data_file(*path).read_text(encoding="utf-8"))[:4]:
        payload = parsed.payload
        for answers in ({}, answered(slug, payload)):
            keys = kind.payload_keys()
            assert keys is not None  # neither kind needs the whole payload (the passages)
            only = {key: payload[key] for key in keys if payload.get(key) is not None}
            assert kind.annotation_row(only, answers) == kind.annotation_row(payload, answers)
            text_keys = kind.payload_keys(item_text=True)
            only_text = {key: payload[key] for key in text_keys if payload.get(key) is not None}
            assert kind.item_text_row(only_text) == kind.item_text_row(payload)
            assert all(isinstance(value, str) and value for value in kind.item_text_row(payload).values())


def test_column_helpers():
    page_value = Column.answer("rating", "rating", "rating")
    assert page_value.value({}, {"rating": {"rating": 4}}) == 4
    assert page_value.value({}, {}) is None and page_value.value({}, {"rating": None}) is None
    assert page_value.payload_keys == ()
    item_value = Column.item("label")
    assert item_value.value({"label": 2}, {}) == 2 and item_value.value({}, {}) is None
    assert item_value.payload_keys == ("label",)
    whole = Column("all", lambda payload, answers: len(payload), payload_keys=None)
    kind = type(get_kind("recam"))
    custom = type("Custom", (kind,), {"columns": (item_value, whole)})()
    assert custom.payload_keys() is None and custom.annotation_row({"label": 1, "x": 2}, {}) == {"label": 1, "all": 2}
