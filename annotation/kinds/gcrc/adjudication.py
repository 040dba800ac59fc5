"""GCRC's side of the adjudication stage: which fields an annotation has (per option: supporting
sentences, skill, wrong statement?, error reason; the answer when the item came without one), how
two values compare (sentence sets as sets), how the adjudicator reads and types a value, and the
released format built from the final labels."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _

from ..own_values import ValueFormat
from .forms import item_answer
from .labels import ERRORS, OPTION_LETTERS, SKILLS, error_code, skill_code
from .released import RELEASED_ITEM_KEYS, option_page

#: the per-option parts of an annotation, in page order
PARTS = ("evidence", "skill", "wrong", "error")
YES, NO = ("yes", "true", "1", "y", "是", "对"), ("no", "false", "0", "n", "否", "不是")
_SKILL_NAMES = {s.code: f"{s.zh} · {s.en} ({s.code})" for s in SKILLS}
_ERROR_NAMES = {e.code: f"{e.zh} · {e.en} ({e.code})" for e in ERRORS}
#: sentence numbers separated by commas (ASCII or Chinese), enumeration commas or spaces
EVIDENCE_PATTERN = r"\s*[0-9０-９]+(\s*[,，、 ]\s*[0-9０-９]+)*\s*"


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


def value_format(payload: Mapping[str, Any], field: str) -> ValueFormat:
    """How each part is typed: sentence numbers as the page numbers them, a code or a name, yes or
    no, an option letter; the codes and the letters are offered as the adjudicator types."""
    part = split_field(field)[1]
    if part == "evidence":
        hint = _("Sentence numbers from 1 to %(n)s, separated by commas, e.g. 2, 5") % {"n": len(payload["sentences"])}
        return ValueFormat(hint, pattern=EVIDENCE_PATTERN)
    if part == "skill":
        return ValueFormat(_("A reasoning skill: its code or name, e.g. DED"), suggestions=tuple(_SKILL_NAMES))
    if part == "error":
        return ValueFormat(
            _("An error reason: its code or name, e.g. DTL; empty for a true statement"),
            suggestions=tuple(_ERROR_NAMES),
        )
    if part == "wrong":
        return ValueFormat(_("yes or no"), suggestions=(_("yes"), _("no")))
    letters = ", ".join(OPTION_LETTERS)
    return ValueFormat(_("An option letter: %(letters)s") % {"letters": letters}, pattern="[A-Da-d]")


def parse(payload: Mapping[str, Any], field: str, text: str) -> Any:
    """The adjudicator's own value (`value_format` says how it is typed). Raises ValueError
    with the reason, in the adjudicator's words, for anything else."""
    part, text = split_field(field)[1], text.strip()
    if part == "evidence":
        return _sentences(payload, text)
    if part == "skill":
        return _code(skill_code, text, allow_empty=False, codes=_SKILL_NAMES)
    if part == "error":
        return _code(error_code, text, allow_empty=True, codes=_ERROR_NAMES)
    if part == "wrong":
        if text.casefold() in YES or text.casefold() in NO or text in (_("yes"), _("no")):
            return text.casefold() in YES or text == _("yes")
        raise ValueError(_("Type yes or no."))
    if text.upper() in OPTION_LETTERS:
        return text.upper()
    raise ValueError(_("Type one of the option letters %(letters)s.") % {"letters": ", ".join(OPTION_LETTERS)})


def _sentences(payload: Mapping[str, Any], text: str) -> list[int]:
    count = len(payload["sentences"])
    words = [w for w in text.replace("，", ",").replace("、", ",").replace(" ", ",").split(",") if w]
    if not words or not all(w.isdecimal() for w in words):
        raise ValueError(_("Type sentence numbers separated by commas, e.g. 2, 5."))
    outside = sorted({int(w) for w in words if not 1 <= int(w) <= count})
    if outside:
        raise ValueError(
            _("The article has sentences 1 to %(count)s; there is no sentence %(numbers)s.")
            % {"count": count, "numbers": ", ".join(map(str, outside))}
        )
    return [n - 1 for n in sorted({int(w) for w in words})]


def _code(convert: Any, text: str, *, allow_empty: bool, codes: Mapping[str, str]) -> str:
    try:
        code = convert(text)
    except KeyError:
        code = None
    if code is None or (not code and not allow_empty):
        raise ValueError(
            _("“%(text)s” is not one of the codes or names: %(codes)s.") % {"text": text, "codes": ", ".join(codes)}
        )
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
