"""Issue 37, property-based: generated hostile documents (aliases, depth, huge and non-finite
numbers, surrogates, NUL, mixed encodings) are refused with a reason naming where, or accepted
and usable (what json.loads / the YAML reader read, storable as JSON on both databases); never
another exception. Examples are few, so the run stays fast."""

from __future__ import annotations

import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.structured_input import MAX_DEPTH, Refused, load_json, load_yaml, value_problem

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: strings with what no database stores alike now and then (NUL, lone surrogates)
TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**60), max_value=10**60)
    | st.floats(allow_nan=True, allow_infinity=True)
    | TEXT
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=20,
)


def usable(value) -> bool:
    """Accepted values break no rule and write as strict JSON (no NaN, no Infinity)."""
    json.dumps(value, allow_nan=False)
    return value_problem(value) is None


def refused_with_a_reason(exc: Refused) -> bool:
    return bool(exc.message) and (exc.line is None or exc.line >= 1)


@FAST
@given(VALUES)
def test_any_json_value_is_read_exactly_or_refused_with_a_reason(value):
    text = json.dumps(value)  # json writes NaN and Infinity, and escapes surrogates and NUL
    try:
        read = load_json(text)
    except Refused as exc:
        assert refused_with_a_reason(exc)
        assert value_problem(value) is not None or text.count("[") + text.count("{") > MAX_DEPTH
        return
    assert usable(read) and repr(read) == repr(json.loads(text))


@FAST
@given(st.integers(min_value=1, max_value=3000), st.sampled_from(["[", '{"a":']), st.sampled_from(["", "1e309", "NaN"]))
def test_deep_nesting_and_bad_numbers_anywhere_are_refused_naming_the_line(depth, opening, inner):
    closing = "]" if opening == "[" else "}"
    text = "\n" + opening * depth + (inner or "0") + closing * depth
    try:
        read = load_json(text)
    except Refused as exc:
        assert exc.line == 2 and ("nested" in exc.message or "finite" in exc.message), str(exc)
        return
    assert depth <= MAX_DEPTH and not inner and usable(read)


@FAST
@given(st.binary(max_size=200))
def test_arbitrary_bytes_as_text_never_raise_anything_else(raw):
    text = raw.decode("utf-8", "replace")
    for load in (load_json, lambda t: load_yaml(t, limit=200_000)):
        try:
            load(text)
        except Refused as exc:
            assert refused_with_a_reason(exc)


YAML_PIECES = st.sampled_from(
    ["a: &x [1, 2]", "b: *x", "c: .nan", "d: -.inf", "e: 1e309", "f: " + "9" * 60, 'g: "\\0"', 'h: "\\ud800"',
     "i: [" * 3, "j: {k: [1, 2.5, true, null, text]}", "- item", "l: 'quoted: [not, a, list]'", "m: 12_345",
     "n: 0x" + "f" * 50, "q: 0b" + "1" * 200, "? complex\n: key", "o: !!binary aGk=", "p: 2026-01-01"]
)  # fmt: skip


@FAST
@given(st.lists(YAML_PIECES, min_size=1, max_size=6))
def test_generated_yaml_is_refused_with_a_line_or_read_without_aliases_or_bad_numbers(pieces):
    text = "\n".join(pieces) + "\n"
    try:
        tree = load_yaml(text, limit=200_000)
    except Refused as exc:
        assert refused_with_a_reason(exc) and exc.line is not None, str(exc)
        return
    assert "*x" not in text and ".nan" not in text and ".inf" not in text and "1e309" not in text

    def walk(node, depth=0):
        assert depth <= MAX_DEPTH
        if isinstance(node, dict):
            for key, item in node.items():
                walk(key, depth + 1)
                walk(item, depth + 1)
        elif isinstance(node, list):
            for item in node:
                walk(item, depth + 1)
        elif isinstance(node, float):
            assert math.isfinite(node)
        elif isinstance(node, int) and not isinstance(node, bool):
            assert abs(node) < 10**50
        elif isinstance(node, str):
            assert "\x00" not in node

    walk(tree)
