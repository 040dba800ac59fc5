"""GCRC's side of the adjudication stage: which fields an annotation has (per option: supporting
sentences, skill, wrong statement?, error reason; the answer when the item came without one), how
two values compare (sentence sets as sets), how the adjudicator reads and types a value, and the
released format built from the final labels."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _

from .forms import item_answer
from .labels import ERRORS, OPTION_LETTERS, SKILLS, error_code, skill_code
from .released import RELEASED_ITEM_KEYS, option_page

#: the per-option parts of an annotation, in page order
PARTS = ("evidence", "skill", "wrong", "error")
YES, NO = ("yes", "true", "1", "y", "是", "对"), ("no", "false", "0", "n", "否", "不是")
_SKILL_NAMES = {s.code: f"{s.zh} · {s.en} ({s.code})" for s in SKILLS}
_ERROR_NAMES = {e.code: f"{e.zh} · {e.en} ({e.code})" for e in ERRORS}


def field_name(letter: str, part: str) -> str:
    return f"{letter.lower()}_{part}"


def split_field(field: str) -> tuple[str, str]:
    """("A", "skill") of "a_skill"; ("", "answer") of "answer"."""
    head, _sep, part = field.partition("_")
    return (head.upper(), part) if part else ("", head)


def fields(payload: Mapping[str, Any], answers: Mapping[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    if not (payload.get("reference") or {}).get("answer"):
        found["answer"] = item_answer(payload, answers)
    for letter in OPTION_LETTERS:
        given = answers.get(option_page(letter)) or {}
        for part in PARTS:
            value = given.get(part)
            found[field_name(letter, part)] = sorted(value) if part == "evidence" and value is not None else value
    return found


def same(field: str, a: Any, b: Any) -> bool:
    if split_field(field)[1] == "evidence" and a is not None and b is not None:
        return set(a) == set(b)
    return a == b


def title(field: str) -> str:
    letter, part = split_field(field)
    names = {
        "answer": _("Answer"),
        "evidence": _("supporting sentences"),
        "skill": _("reasoning skill"),
        "wrong": _("wrong statement?"),
        "error": _("error reason"),
    }
    return names[part] if not letter else _("Option %(letter)s: %(part)s") % {"letter": letter, "part": names[part]}


def item_text(payload: Mapping[str, Any]) -> dict[str, str]:
    """The question, the options (the answer marked) and the article's sentences numbered from
    1, as the annotators saw them numbered, so an own set of sentences can be typed by number."""
    answer = (payload.get("reference") or {}).get("answer")
    options = "\n".join(
        f"{x}. {o}" + (" ✓" if x == answer else "") for x, o in zip(OPTION_LETTERS, payload["options"], strict=True)
    )
    sentences = "\n".join(f"[{i + 1}] {s['text']}" for i, s in enumerate(payload["sentences"]))
    return {_("Question"): payload["question"], _("Options"): options, _("Article"): sentences}


def display(payload: Mapping[str, Any], field: str, value: Any) -> str:
    part = split_field(field)[1]
    if value is None:
        return "—"
    if part == "evidence":
        sentences = payload["sentences"]
        return "\n".join(f"[{i + 1}] {sentences[i]['text']}" for i in value)
    if part == "wrong":
        return _("yes") if value else _("no")
    if part == "skill":
        return _SKILL_NAMES.get(value, value)
    if part == "error":
        return _ERROR_NAMES.get(value, value) if value else _("— none: a true statement —")
    return str(value)


def parse(payload: Mapping[str, Any], field: str, text: str) -> Any:
    """The adjudicator's own value: sentence numbers from 1 ("2, 5"), a skill or error code or
    name, yes/no, or an answer letter. Raises ValueError for anything else."""
    part, text = split_field(field)[1], text.strip()
    if part == "evidence":
        numbers = sorted({int(n) for n in text.replace("，", ",").replace("、", ",").replace(" ", ",").split(",") if n})
        if not numbers or not all(1 <= n <= len(payload["sentences"]) for n in numbers):
            raise ValueError(text)
        return [n - 1 for n in numbers]
    if part == "skill":
        return _code(skill_code, text, allow_empty=False)
    if part == "error":
        return _code(error_code, text, allow_empty=True)
    if part == "wrong":
        if text.casefold() in YES or text.casefold() in NO:
            return text.casefold() in YES
        raise ValueError(text)
    if text.upper() in OPTION_LETTERS:
        return text.upper()
    raise ValueError(text)


def _code(convert: Any, text: str, *, allow_empty: bool) -> str:
    try:
        code = convert(text)
    except KeyError:
        raise ValueError(text) from None
    if not code and not allow_empty:
        raise ValueError(text)
    return code


def released(payload: Mapping[str, Any], final: Mapping[str, Any]) -> dict[str, Any]:
    """The item in GCRC's released format from its final labels; a field without a final label
    (unresolved) is null in its place."""
    row = {key: payload[key] for key in RELEASED_ITEM_KEYS}
    answer = (payload.get("reference") or {}).get("answer") or final.get("answer")
    sentences = payload["sentences"]
    evidences: list[Any] = []
    for letter in OPTION_LETTERS:
        chosen = final.get(field_name(letter, "evidence"))
        evidences.append(None if chosen is None else [sentences[i]["text"] for i in chosen])
    row.update(
        answer=answer,
        evidences=evidences,
        error_type=[final.get(field_name(x, "error")) for x in OPTION_LETTERS],
        reasoning_ability=[final.get(field_name(x, "skill")) for x in OPTION_LETTERS],
    )
    return row
