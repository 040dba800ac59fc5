"""A model's request built from the project's task, and its reply checked as a prediction.

The request: a system message with the instructions (the researcher's override, else the
project's, else the kind's) and how to answer; a user message naming the item (``Item: <its id
as imported>``, the line the local endpoint reads its true answers by), what the item shows by
heading, and each label question with its options, scale or span labels (`TaskKind.model_task`).
The answer's JSON Schema is an object of one property per question (`ModelQuestion.schema`),
every one required, nothing else allowed. The prompt hash is the SHA-256 of the messages, the
schema and the model: a call's key in the cache (`ModelCall`).

A reply gives labels when it is JSON valid against the schema (jsonschema) and every value
passes the kind's `prediction_value`; otherwise it is invalid, with the reason."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema

from annotation.kinds import TaskKind
from annotation.kinds.model_task import ModelQuestion, ModelTask

from .client import Completion
from .schema_values import count_tokens, typical_length

ANSWER_RULES = (
    "Answer with one JSON object holding one key per question, named by the question's key in square "
    "brackets, and nothing else. Where a question lists options, answer with an option's value (what comes "
    "before the '='), never its words."
)


@dataclass(frozen=True)
class ModelRequest:
    messages: list[dict[str, str]]
    schema: dict[str, Any]
    prompt_hash: str
    questions: tuple[ModelQuestion, ...]

    def input_tokens(self) -> int:
        """The request's tokens as the platform estimates them (a token per four characters)."""
        return count_tokens("".join(m["content"] for m in self.messages) + json.dumps(self.schema))

    def output_tokens(self) -> int:
        """The tokens a reply is expected to take: a typical answer the schema allows."""
        return count_tokens("x" * round(typical_length(self.schema)))


@dataclass(frozen=True)
class CheckedReply:
    """A reply's labels (field -> value, as the kind checks a prediction), or why it gave none."""

    labels: dict[str, Any]
    reason: str = ""

    @property
    def valid(self) -> bool:
        return not self.reason


def answer_schema(task: ModelTask) -> dict[str, Any]:
    properties = {q.field: q.schema for q in task.questions}
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def instructions_text(*, kind: TaskKind, project_instructions: str, override: str) -> str:
    return (override or project_instructions or str(kind.default_instructions)).strip()


def build_request(
    *, kind: TaskKind, payload: Mapping[str, Any], item_key: str, instructions: str, model: str
) -> ModelRequest:
    """The request for one item (`instructions`: from `instructions_text`)."""
    task = kind.model_task(payload)
    schema = answer_schema(task)
    system = f"{instructions}\n\n{ANSWER_RULES}".strip()
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user_text(item_key, task)}]
    digest = hashlib.sha256(
        json.dumps([messages, schema, model], sort_keys=True, ensure_ascii=False).encode()
    ).hexdigest()
    return ModelRequest(messages, schema, digest, task.questions)


def user_text(item_key: str, task: ModelTask) -> str:
    parts = [f"Item: {item_key}"]
    parts.extend(f"## {heading}\n{text}" for heading, text in task.item.items())
    parts.append("## Questions")
    for question in task.questions:
        lines = [f"[{question.field}] {question.prompt}"]
        if question.options:
            lines.append(
                "Options: " + "; ".join(f"{json.dumps(v, ensure_ascii=False)} = {w}" for v, w in question.options)
            )
        if question.note:
            lines.append(question.note)
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def check_reply(
    *, kind: TaskKind, payload: Mapping[str, Any], request: ModelRequest, completion: Completion
) -> CheckedReply:
    """The reply's labels, or the reason it gives none: a refusal, not JSON, not valid against
    the schema, or a value the kind refuses as a prediction."""
    if completion.refusal:
        return CheckedReply({}, f"the model refused: {completion.refusal[:300]}")
    if completion.content is None:
        return CheckedReply({}, f"the reply is not JSON: {completion.text[:200]!r}")
    try:
        jsonschema.validate(completion.content, request.schema)
    except jsonschema.ValidationError as error:
        where = "/".join(str(p) for p in error.absolute_path) or "the reply"
        return CheckedReply({}, f"the reply does not follow the schema at {where}: {error.message[:300]}")
    labels: dict[str, Any] = {}
    for question in request.questions:
        value = question.label(completion.content[question.field])
        if value is None or value == "" or value == []:
            continue
        try:
            labels[question.field] = kind.prediction_value(payload, question.field, value)
        except ValueError as error:
            return CheckedReply({}, f"{question.field}: {error}")
    return CheckedReply(labels)
