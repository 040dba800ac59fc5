"""Requests built from the task and replies checked as predictions: the answer's JSON Schema per
question type and per built-in kind, the override of the instructions, the prompt hash, and each
reason a reply gives no labels."""

from __future__ import annotations

import jsonschema
import pytest

from annotation.kinds import get_kind, task_file_kind
from annotation.llm.client import Completion, complete
from annotation.llm.prompts import build_request, check_reply, instructions_text
from tests.annotation.llm_helpers import connection
from tests.annotation.test_kind_contract import KIND_SAMPLES, TASK_FILE
from tests.conftest import data_file
from tests.factories import RECAM_PAYLOAD

TYPES = """title: Types
instructions: Read the text and answer.
item:
  show:
    - key: text
      label: The text
    - key: story
      as: sentences
pages:
  - id: one
    questions:
      - {id: mood, type: single_choice, prompt: Mood, options: [{value: p, label: Positive}, {value: n, label: Negative}], label: nominal}
      - {id: topics, type: multiple_choice, prompt: Topics, options: [a, b, c], max_choices: 2, label: set}
      - {id: sure, type: likert, prompt: Sure?, size: 5, labels: [not at all, very], label: ordinal}
      - {id: score, type: slider, prompt: Score, min: 0, max: 10, step: 0.5, label: interval}
      - {id: count, type: number, prompt: Count, integer: true, min: 0, max: 9, label: interval}
      - {id: note, type: short_text, prompt: Note, label: nominal}
      - {id: names, type: spans, prompt: Names, source: text, labels: [PER, ORG], label: set}
      - {id: evidence, type: sentences, prompt: Evidence, source: story, max_choices: 2, label: set}
      - {id: unlabeled, type: short_text, prompt: Not a label, required: false}
"""
ITEM = {"text": "Ada met Bob at ACME.", "story": "One. Two! Three?"}


def request_for(kind, payload, override=""):
    text = instructions_text(kind=kind, project_instructions="", override=override)
    return build_request(kind=kind, payload=payload, item_key="x1", instructions=text, model="m")


def reply(content=None, text="", refusal=""):
    import json

    return Completion(content, text or json.dumps(content), refusal, 10, 5, 3, 1, "m")


def test_each_question_type_has_its_schema():
    request = request_for(task_file_kind(TYPES), ITEM)
    properties = request.schema["properties"]
    assert request.schema["required"] == list(properties) and request.schema["additionalProperties"] is False
    assert "unlabeled" not in properties  # only label questions are asked
    assert properties["mood"] == {"enum": ["p", "n"]}
    assert properties["topics"]["items"] == {"enum": ["a", "b", "c"]} and properties["topics"]["maxItems"] == 2
    assert properties["sure"] == {"type": "integer", "minimum": 1, "maximum": 5}
    assert properties["score"] == {"type": "number", "minimum": 0, "maximum": 10}
    assert properties["count"] == {"type": "integer", "minimum": 0, "maximum": 9}
    assert properties["note"] == {"type": "string"}
    span = properties["names"]["items"]["properties"]
    assert span["label"] == {"enum": ["PER", "ORG"]} and span["end"]["maximum"] == len(ITEM["text"])
    assert properties["evidence"]["items"] == {"enum": [1, 2, 3]}
    user = request.messages[1]["content"]
    assert user.startswith("Item: x1") and "## The text\nAda met Bob at ACME." in user and "[2] Two!" in user
    assert '"p" = Positive' in user and "1 (not at all) to 5 (very)" in user
    assert request.messages[0]["content"].startswith("Read the text and answer.")


def test_a_valid_reply_gives_the_kinds_labels():
    kind = task_file_kind(TYPES)
    request = request_for(kind, ITEM)
    content = {
        "mood": "n",
        "topics": ["c", "a"],
        "sure": 4,
        "score": 7.5,
        "count": 3,
        "note": "ok",
        "names": [{"start": 0, "end": 3, "label": "PER"}],
        "evidence": [2],
    }
    checked = check_reply(kind=kind, payload=ITEM, request=request, completion=reply(content))
    assert checked.valid, checked.reason
    assert checked.labels["mood"] == "n" and checked.labels["names"] == ["0-3 PER"] and checked.labels["sure"] == 4


@pytest.mark.parametrize(
    ("completion", "words"),
    [
        (reply(text='{"mood": "n", "top'), "not JSON"),
        (reply(refusal="I will not."), "refused"),
        (reply({"mood": "maybe"}), "does not follow the schema"),
    ],
)
def test_a_reply_without_labels_says_why(completion, words):
    kind = task_file_kind(TYPES)
    checked = check_reply(kind=kind, payload=ITEM, request=request_for(kind, ITEM), completion=completion)
    assert not checked.valid and words in checked.reason and checked.labels == {}


def test_the_override_replaces_the_instructions_and_changes_the_hash():
    kind = get_kind("recam")
    plain, other = request_for(kind, RECAM_PAYLOAD), request_for(kind, RECAM_PAYLOAD, override="Just pick one.")
    assert other.messages[0]["content"].startswith("Just pick one.") and "news passage" in plain.messages[0]["content"]
    assert plain.prompt_hash != other.prompt_hash
    assert plain.prompt_hash == request_for(kind, RECAM_PAYLOAD).prompt_hash and len(plain.prompt_hash) == 64


@pytest.mark.parametrize("slug", list(KIND_SAMPLES))
def test_every_kinds_request_is_answered_and_checked(slug, local_model):
    kind = task_file_kind(TASK_FILE) if slug == "task_file" else get_kind(slug)
    path, _answers = KIND_SAMPLES[slug]
    items = kind.parse(data_file(*path).read_text(encoding="utf-8"))[:3]
    for item in items:
        request = request_for(kind, item.payload)
        jsonschema.Draft202012Validator.check_schema(request.schema)
        assert request.schema["properties"] and set(request.schema["properties"]) <= {
            f.name for f in kind.label_fields()
        }
        answer = complete(connection(local_model), messages=request.messages, schema=request.schema)
        checked = check_reply(kind=kind, payload=item.payload, request=request, completion=answer)
        assert checked.valid, (slug, checked.reason)
        assert checked.labels
