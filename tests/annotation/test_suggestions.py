"""Where each kind puts a model's labels on its pages (`TaskKind.suggestions`), the form data that
pre-selects them, and whether a saved answer kept them (`kept_record`: sets and spans as sets)."""

from __future__ import annotations

import json

from annotation.kinds import get_kind, task_file_kind
from annotation.kinds.suggestions import kept_record
from tests.conftest import data_file
from tests.factories import RECAM_PAYLOAD
from tests.gcrc.conftest import sample_text

ESA = task_file_kind(data_file("task_files", "esa.yaml").read_text(encoding="utf-8"))
ESA_ITEM = {"segment_id": "s1", "source": "Der Hund schläft.", "translation": "The cat sleeps soundly."}


def _suggested(kind, payload, slug, labels, answers=None):
    page = kind.page(payload, slug, answers or {})
    form = page.form_class(None, payload=payload, answers=answers or {})
    return page, kind.suggestions(page, form, labels)


def _saved(kind, payload, page, data, answers=None):
    """The page's answer as its form cleans `data` (what the save stores)."""
    form = page.form_class(data, payload=payload, answers=answers or {})
    assert form.is_valid(), form.errors
    return {**(answers or {}), page.slug: form.answer()}


def test_a_recam_page_suggests_its_own_label_field_in_the_options_words():
    kind = get_kind("recam")
    page, found = _suggested(kind, RECAM_PAYLOAD, "pre", {"pre_choice": 2, "post_choice": 1})
    assert [(s.field, s.question, s.initial, s.text) for s in found] == [
        ("pre_choice", "choice", {"choice": 2}, "cold")
    ]
    kept = kept_record(kind, RECAM_PAYLOAD, _saved(kind, RECAM_PAYLOAD, page, {"choice": "2"}), found, "m")
    assert kept == {"pre_choice": {"model": "m", "value": 2, "kept": True}}
    changed = kept_record(kind, RECAM_PAYLOAD, _saved(kind, RECAM_PAYLOAD, page, {"choice": "4"}), found, "m")
    assert changed["pre_choice"]["kept"] is False


def test_no_other_answer_is_a_suggestion_like_any_choice():
    kind = get_kind("recam")
    answers = {"pre": {"choice": 1}, "post": {"choice": 1}}
    page, found = _suggested(kind, RECAM_PAYLOAD, "second", {"second_choice": "none"}, answers)
    assert found[0].text == "No Other Answer"
    saved = _saved(kind, RECAM_PAYLOAD, page, {"choice": "none"}, answers)
    assert kept_record(kind, RECAM_PAYLOAD, saved, found, "m")["second_choice"]["kept"] is True


def test_marked_spans_are_suggested_as_the_text_they_mark_and_kept_as_a_set():
    labels = {"esa_spans": ["4-7 major", "8-14 minor"]}
    page, found = _suggested(ESA, ESA_ITEM, "errors", labels)
    (spans,) = found
    assert spans.text == "“cat” (major); “sleeps” (minor)"
    marked = json.loads(spans.initial["esa_spans"])
    assert [(s["start"], s["end"], s["label"]) for s in marked] == [(4, 7, "major"), (8, 14, "minor")]
    posted = json.dumps(list(reversed(marked)))  # marked in the other order: the same set
    kept = kept_record(ESA, ESA_ITEM, _saved(ESA, ESA_ITEM, page, {"esa_spans": posted}), found, "m")
    assert kept["esa_spans"]["kept"] is True
    fewer = json.dumps(marked[:1])
    assert (
        kept_record(ESA, ESA_ITEM, _saved(ESA, ESA_ITEM, page, {"esa_spans": fewer}), found, "m")["esa_spans"]["kept"]
        is False
    )


def test_a_slider_suggestion_is_pre_filled_as_a_chosen_value():
    answers = {"errors": {"esa_spans": []}}
    page, found = _suggested(ESA, ESA_ITEM, "score", {"esa_score": 70, "fluency": 4}, answers)
    initial = {k: v for s in found for k, v in s.initial.items()}
    assert initial == {"esa_score": "70", "esa_score-keep": True, "fluency": "4"}
    saved = _saved(ESA, ESA_ITEM, page, initial, answers)
    assert {f: r["kept"] for f, r in kept_record(ESA, ESA_ITEM, saved, found, "m").items()} == {
        "esa_score": True,
        "fluency": True,
    }


def test_gcrc_sentences_go_to_the_boxes_numbered_from_zero_and_an_error_ticks_wrong():
    kind = get_kind("gcrc")
    payload = kind.parse(sample_text("test_public.sample.json"))[0].payload
    answers = {} if (payload.get("reference") or {}).get("answer") else {"answer": {"answer": "A"}}
    labels = {"a_evidence": [2, 1], "a_skill": "DED", "a_error": "DTL"}
    page, found = _suggested(kind, payload, "option_a", labels, answers)
    by_field = {s.field: s for s in found}
    assert by_field["a_evidence"].initial == {"evidence": [1, 0]}
    assert by_field["a_error"].initial == {"error": "DTL", "wrong": True}
    data = {"evidence": ["0", "1"], "skill": "DED", "wrong": "on", "error": "DTL"}
    kept = kept_record(kind, payload, _saved(kind, payload, page, data, answers), found, "m")
    assert {f: r["kept"] for f, r in kept.items()} == {"a_evidence": True, "a_skill": True, "a_error": True}


def test_a_page_that_asks_no_label_field_suggests_nothing():
    kind = get_kind("recam")
    answers = {"pre": {"choice": 1}, "post": {"choice": 1}, "second": {"choice": None}}
    assert _suggested(kind, RECAM_PAYLOAD, "support_span", {"pre_choice": 1, "post_choice": 1}, answers)[1] == []


def test_an_empty_label_suggests_nothing():
    assert _suggested(get_kind("recam"), RECAM_PAYLOAD, "pre", {"pre_choice": None})[1] == []
