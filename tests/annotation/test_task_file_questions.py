"""Task files' question types: each stores its documented answer and refuses what breaks its
bounds; spans in code points of the stored text; labels compared as sets; Markdown without raw
HTML."""

import json

import pytest

from annotation.kinds import task_file_kind

SMALL = """title: Sentiment
item:
  required: [text]
  show:
    - key: text
      as: markdown
pages:
  - id: rate
    questions:
      - id: sentiment
        type: single_choice
        prompt: How does it feel?
        options: [positive, negative]
        gold: gold
        label: nominal
"""


# --- question types ------------------------------------------------------------------------------
TYPES = """title: Types
item:
  show:
    - key: text
    - key: story
      as: sentences
pages:
  - id: one
    questions:
      - {id: topics, type: multiple_choice, prompt: Topics, options: [a, b, c], max_choices: 2, label: set}
      - {id: score, type: slider, prompt: Score, min: 0, max: 10, step: 0.5}
      - {id: count, type: number, prompt: Count, integer: true, min: 0}
      - {id: names, type: spans, prompt: Names, source: text, labels: [PER, ORG], label: set}
      - {id: evidence, type: sentences, prompt: Evidence, source: story, max_choices: 2, label: set}
      - {id: note, type: short_text, prompt: Note, required: false, max_length: 10}
"""
TYPES_ITEM = {"text": "Ada met Bob at ACME.", "story": "One. Two! Three? 四。五。"}


def form_for(data):
    kind = task_file_kind(TYPES)
    page = kind.pages(TYPES_ITEM, {})[0]
    return page.form_class(data, payload=TYPES_ITEM, answers={})


GOOD = {
    "topics": ["c", "a"],
    "score": "7.5",
    "score-keep": "on",  # the page ticks it once the slider moves
    "count": "3",
    "names": '[{"start": 8, "end": 11, "label": "PER"}, {"start": 0, "end": 3, "label": "PER"}]',
    "evidence": ["4", "2"],
    "note": "",
}


def test_each_type_stores_its_documented_answer():
    form = form_for(GOOD)
    assert form.is_valid(), form.errors
    assert form.answer() == {
        "topics": ["a", "c"],
        "score": 7.5,
        "count": 3,
        "names": [
            {"start": 0, "end": 3, "text": "Ada", "label": "PER"},
            {"start": 8, "end": 11, "text": "Bob", "label": "PER"},
        ],
        "evidence": [2, 4],
        "note": None,
    }
    assert [label for _, label in form.fields["evidence"].choices] == ["One.", "Two!", "Three?", "四。", "五。"]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("topics", ["a", "b", "c"], "Choose at most 2."),
        ("score", "7.3", "steps of 0.5"),
        ("score", "11", "less than or equal to 10"),
        ("count", "2.5", "Enter a whole number."),
        ("names", '[{"start": 8, "end": 99, "label": "PER"}]', "outside the text"),
        ("names", '[{"start": 0, "end": 3, "label": "LOC"}]', "one of the labels"),
        ("names", "not json", "could not be read"),
        ("names", "[" * 20_000 + "]" * 20_000, "could not be read"),  # read by the one loader: no RecursionError
        ("names", '[{"start": 0, "end": 3, "label": "PER", "text": "\\ud800"}]', "could not be read"),
        ("names", '[{"start": 0, "end": 3, "label": 1e309}]', "could not be read"),
        ("evidence", ["1", "2", "3"], "Choose at most 2."),
        ("note", "x" * 11, "at most 10 characters"),
    ],
)
def test_each_type_refuses_what_breaks_its_bounds(field, value, message):
    form = form_for({**GOOD, field: value})
    assert not form.is_valid()
    assert message in str(form.errors[field])


def test_an_untouched_slider_is_no_answer():
    """A range input always posts its value: without the keep box it is the untouched midpoint,
    refused for a required slider, stored as nothing for an optional one."""
    form = form_for({**GOOD, "score": "5", "score-keep": ""})
    assert not form.is_valid()
    assert form.errors["score"] == ["Move the slider to your answer, or tick “Keep this value as my answer”."]
    kept = form_for({**GOOD, "score": "5"})
    assert kept.is_valid(), kept.errors
    assert kept.answer()["score"] == 5

    optional = TYPES.replace("step: 0.5}", "step: 0.5, required: false}")
    kind = task_file_kind(optional)
    page = kind.pages(TYPES_ITEM, {})[0]
    untouched = page.form_class({**GOOD, "score": "5", "score-keep": ""}, payload=TYPES_ITEM, answers={})
    assert untouched.is_valid(), untouched.errors
    assert untouched.answer()["score"] is None


@pytest.mark.parametrize(
    ("text", "word", "start"),
    [
        ("Great 🙂 product, terrible delivery.", "terrible", 17),
        ("First line.\r\nSecond line has an eror.", "eror", 32),
        ("𝔘𝔫𝔦𝔠𝔬𝔡𝔢 نص عربي 👩‍👩‍👧 end", "end", 22),
    ],
)
def test_span_offsets_are_code_points_of_the_stored_text(text, word, start):
    """Offsets count code points of the text as stored (astral letters one each, CRLF two), and
    the text a page sends with a span must be what they mark."""
    assert text.index(word) == start
    item = {**TYPES_ITEM, "text": text}
    kind = task_file_kind(TYPES)
    page = kind.pages(item, {})[0]
    span = {"start": start, "end": start + len(word), "label": "PER"}
    form = page.form_class({**GOOD, "names": json.dumps([{**span, "text": word}])}, payload=item, answers={})
    assert form.is_valid(), form.errors
    assert form.answer()["names"] == [{**span, "text": word}]

    shifted = {**span, "start": start - 1, "end": start - 1 + len(word), "text": word}
    form = page.form_class({**GOOD, "names": json.dumps([shifted])}, payload=item, answers={})
    assert not form.is_valid()
    assert "does not match the text" in str(form.errors["names"])


def test_span_and_set_labels_compare_as_sets():
    kind = task_file_kind(TYPES)
    names = {f.name: f for f in kind.label_fields()}
    row = {"names": [{"start": 8, "end": 11, "text": "Bob", "label": "PER"}], "topics": ["c", "a"]}
    assert names["names"].value(row) == ["8-11 PER"]
    assert names["topics"].value(row) == ["a", "c"]


def test_markdown_is_rendered_without_raw_html():
    kind = task_file_kind(SMALL)
    record = {"text": "**bold** <script>alert(1)</script> [x](javascript:alert(1))"}
    (shown,) = kind.page_context(record, kind.pages(record, {})[0], {})["shown"]
    html = str(shown["html"])
    assert "<strong>bold</strong>" in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript' not in html


def test_the_adjudicator_reads_a_choice_in_the_options_words():
    kind = task_file_kind(
        TYPES.replace("options: [a, b, c]", "options: [{value: a, label: Arts}, {value: b, label: Books}, c]")
    )
    assert kind.adjudication_display(TYPES_ITEM, "topics", ["a", "c"]) == "Arts (a); c (c)"
    assert kind.adjudication_display(TYPES_ITEM, "score", 7.5) == "7.5"
