"""The words of a task file: shown in the project's language from the file's translations, and
told apart from its rules so that a project with annotations may still fix a typo."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.utils.translation import get_language

from .loading import Path_, TaskFileError, key_path, read
from .spec import TaskSpec

#: keys whose values are words wherever they stand
WORD_KEYS = frozenset({"title", "description", "instructions", "intro", "prompt", "help", "translations", "language"})


def words_for(task: TaskSpec) -> Callable[[str], str]:
    """A function giving a word of the file in the active language (the project's, on annotator
    pages): its translation when the file has one, else as written."""

    def words(text: str) -> str:
        language = (get_language() or task.language).lower()
        table = task.translations.get(language) or task.translations.get(language.split("-")[0]) or {}
        return table.get(text, text)

    return words


def words_change(old: str, new: str) -> str | None:
    """None when `new` differs from `old` in words alone (titles, prompts, help, intros, option
    and end labels, shortcut keys, instructions, translations); else the first other difference."""
    try:
        before, after = read(old).data, read(new).data
    except TaskFileError as error:
        return str(error)
    return _first_difference(before, after, ())


def _is_words(node: Mapping[str, Any], key: str, path: Path_) -> bool:
    if key in WORD_KEYS:
        return True
    if key == "label":  # a question's `label` is its level of measurement, a rule
        return not ("type" in node and "id" in node)
    if key == "shortcuts" or (key == "key" and "value" in node):  # which key answers: presentation
        return True
    # likert and slider end labels are two words; a span question's labels are options
    return key == "labels" and node.get("type") in ("likert", "slider")


def _first_difference(before: Any, after: Any, path: Path_) -> str | None:
    where = key_path(path) or "the file"
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        for key in list(before) + [k for k in after if k not in before]:
            if _is_words(before if key in before else after, key, path):
                continue
            if key not in before or key not in after:
                verb = "added" if key not in before else "removed"
                return f"{key_path((*path, key))} is {verb}"
            found = _first_difference(before[key], after[key], (*path, key))
            if found:
                return found
        return None
    if isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after):
            return f"{where} has {len(after)} entries instead of {len(before)}"
        for index, (b, a) in enumerate(zip(before, after)):
            found = _first_difference(b, a, (*path, index))
            if found:
                return found
        return None
    if before != after:
        return f"{where} changes from {before!r} to {after!r}"
    return None
