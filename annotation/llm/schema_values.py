"""Values a JSON Schema allows, drawn with a seeded random generator: what the local endpoint
answers (a plausible answer, or a plausible wrong one beside the truth) and what an estimate
expects a reply to hold. Covers the schemas `annotation.llm.prompts` writes: objects of enums,
integers and numbers within a range, texts, arrays of those and of span objects. Standard
library only (the local endpoint runs without Django)."""

from __future__ import annotations

import json
import math
import random
from typing import Any

#: characters per token of the platform's estimate (and of the local endpoint's counts)
CHARS_PER_TOKEN = 4


def count_tokens(text: str) -> int:
    """A simple, deterministic token count: a token per four characters."""
    return max(1, math.ceil(len(text) / CHARS_PER_TOKEN))


def sample(schema: dict[str, Any], rng: random.Random) -> Any:
    """A value `schema` allows."""
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = _type(schema)
    if kind == "object":
        return {name: sample(sub, rng) for name, sub in schema.get("properties", {}).items()}
    if kind == "array":
        return _array(schema, rng)
    if kind in ("integer", "number"):
        low, high = schema.get("minimum", 0), schema.get("maximum", 10)
        if kind == "integer":
            return rng.randint(math.ceil(low), math.floor(high))
        return round(rng.uniform(low, high), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    return rng.choice(("yes", "no", "unclear", "see the text"))


def wrong(schema: dict[str, Any], truth: Any, rng: random.Random, bias: Any = None) -> Any:
    """A value `schema` allows that is not `truth`: `bias` when it is one (a model's favourite
    mistake), else another of the enum's, range's or array's values; `truth` when no other exists."""
    if bias is not None and bias != truth:
        return bias
    for _ in range(20):
        value = sample(schema, rng)
        if value != truth:
            return value
    if _type(schema) == "string" and "enum" not in schema:
        return f"not {truth}"
    return truth


def typical_length(schema: dict[str, Any], draws: int = 8) -> float:
    """The mean length, in characters, of a reply holding values `schema` allows, as compact JSON."""
    rng = random.Random(0)
    return sum(len(json.dumps(sample(schema, rng), ensure_ascii=False)) for _ in range(draws)) / draws


def _type(schema: dict[str, Any]) -> str:
    kind = schema.get("type", "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    return str(kind)


def _array(schema: dict[str, Any], rng: random.Random) -> list[Any]:
    items = schema.get("items", {})
    low = int(schema.get("minItems", 0))
    high = int(schema.get("maxItems", max(low, 3)))
    size = rng.randint(low, max(low, min(high, low + 3)))
    if "enum" in items and schema.get("uniqueItems"):
        size = min(size, len(items["enum"]))
        return sorted(rng.sample(list(items["enum"]), size), key=str)
    if _type(items) == "object" and {"start", "end"} <= set(items.get("properties", {})):
        return [_span(items, rng) for _ in range(size)]
    return [sample(items, rng) for _ in range(size)]


def _span(schema: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A span whose end comes after its start, within the text's length the schema names."""
    properties = schema["properties"]
    length = int(properties["end"].get("maximum", 100))
    start = rng.randint(0, max(0, length - 1))
    span = {"start": start, "end": rng.randint(min(start + 1, length), length)}
    if "label" in properties:
        span["label"] = sample(properties["label"], rng)
    return span
