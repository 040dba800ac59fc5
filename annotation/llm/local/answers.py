"""What the local model answers: for an item whose true answer the admin API gave for the model
asked, each field right with the model's probability (drawn from its seed, the model, the item
and the field: the same every time) and otherwise a plausible wrong value from the field's
schema (the model's `bias` when it names one); for anything else, a value the schema allows,
drawn from the request's hash. The item is named in the prompt: a line ``Item: <key>`` of the
user message (`annotation.llm.prompts` writes the item's id there)."""

from __future__ import annotations

import hashlib
import json
import random
import re
from typing import Any

from annotation.llm.schema_values import sample, wrong

from .store import Store

ITEM_LINE = re.compile(r"^Item: (.+?)\s*$", re.MULTILINE)


def item_key(messages: list[dict[str, Any]]) -> str:
    """The item the request is about ("": none named)."""
    for message in reversed(messages):
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            found = ITEM_LINE.search(message["content"])
            if found:
                return found.group(1)
    return ""


def request_hash(model: str, messages: Any, schema: Any) -> str:
    text = json.dumps([model, messages, schema], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def answer(store: Store, *, model: str, item: str, schema: dict[str, Any], digest: str) -> dict[str, Any]:
    """The reply's object, one value per property of `schema`."""
    script = store.script(model) if item else None
    truth = store.truth(model, item) if script else None
    found: dict[str, Any] = {}
    for name, field_schema in (schema.get("properties") or {}).items():
        if script is not None and truth is not None and name in truth:
            rng = random.Random(f"{script['seed']}:{model}:{item}:{name}")
            right = rng.random() < script["accuracy"]
            bias = (script["bias"] or {}).get(name)
            found[name] = truth[name] if right else wrong(field_schema, truth[name], rng, bias)
        else:
            found[name] = sample(field_schema, random.Random(f"{digest}:{name}"))
    return found
