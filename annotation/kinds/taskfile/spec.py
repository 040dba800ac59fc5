"""A checked task file as frozen data: what an item shows, the pages, their questions and rules.

The schema checks each key's shape; `build` checks what a schema cannot: ids unique, conditions
naming earlier questions, reveal pages and span sources that exist, levels that fit a type."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..results import LabelField, aggregation_methods, column_label
from .loading import Located, Path_, TaskFileError, TaskFileProblem, read_unchecked, sorted_unique

CHOICES = ("single_choice", "multiple_choice")
#: the levels of measurement each question type's answers may be labels at
LEVELS: dict[str, tuple[str, ...]] = {
    "single_choice": ("nominal", "ordinal"),
    "multiple_choice": ("set",),
    "likert": ("ordinal", "interval"),
    "slider": ("interval",),
    "number": ("interval",),
    "short_text": ("nominal",),
    "long_text": ("nominal",),
    "spans": ("set",),
    "sentences": ("set",),
}
SHORTCUT_TYPES = ("single_choice", "multiple_choice", "likert")


@dataclass(frozen=True)
class Condition:
    """`show_if`: an earlier question's answer is (`equals`), is not (`not_equals`) or is one of
    (`in`) the value(s); compared as text, and a list answer matches when it holds the value."""

    question: str
    test: str
    values: tuple[Any, ...]

    def holds(self, answer: Any) -> bool:
        if answer is None:
            return False
        given = {str(v) for v in answer} if isinstance(answer, list) else {str(answer)}
        matches = bool(given & {str(v) for v in self.values})
        return not matches if self.test == "not_equals" else matches


@dataclass(frozen=True)
class Option:
    value: Any
    label: str
    key: str = ""


@dataclass(frozen=True)
class Question:
    id: str
    type: str
    prompt: str
    page: str
    required: bool = True
    help: str = ""
    show_if: Condition | None = None
    gold: str = ""
    label: str = ""
    #: the type's own keys as written (options, size, min, max, source, ...)
    own: Mapping[str, Any] = field(default_factory=dict)

    def get(self, key: str, default: Any = None) -> Any:
        return self.own.get(key, default)

    @property
    def shortcuts(self) -> bool:
        return self.type in SHORTCUT_TYPES and bool(self.own.get("shortcuts", True))


@dataclass(frozen=True)
class Shown:
    key: str
    label: str
    as_: str = "text"
    reveal_after: str = ""


@dataclass(frozen=True)
class PageSpec:
    id: str
    title: str
    questions: tuple[Question, ...]
    intro: str = ""
    show_if: Condition | None = None
    min_seconds: float = 0.0


@dataclass(frozen=True)
class TaskSpec:
    title: str
    pages: tuple[PageSpec, ...]
    shown: tuple[Shown, ...]
    id_key: str = ""
    required: tuple[str, ...] = ()
    instructions: str = ""
    language: str = "en"
    settings: Mapping[str, Any] = field(default_factory=dict)
    translations: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: the Hub's task categories of the dataset (a Hub folder's card); empty: from the label fields
    task_categories: tuple[str, ...] = ()

    @property
    def questions(self) -> tuple[Question, ...]:
        return tuple(q for page in self.pages for q in page.questions)

    def question(self, question_id: str) -> Question:
        return next(q for q in self.questions if q.id == question_id)


#: what reading a file's data as a task raises where the schema found it out of shape
OUT_OF_SHAPE = (KeyError, IndexError, TypeError, ValueError, AttributeError, StopIteration)


def build(text: str) -> TaskSpec:
    """The task of a file's text; raises TaskFileError naming every problem with path and line:
    the schema's and, where the data has the shape they need even so, the references' (a
    condition on no earlier question, a page never there), all at once."""
    located, problems = read_unchecked(text)
    if not problems:
        spec = _spec(located)
        problems = _check(spec, located)
        if problems:
            raise TaskFileError(problems)
        return spec
    try:
        problems = problems + _check(_spec(located), located)
    except OUT_OF_SHAPE:  # too far out of shape to follow its references: the schema's problems
        pass
    raise TaskFileError(sorted_unique(problems))


def _spec(located: Located) -> TaskSpec:
    data = located.data
    item = data["item"]
    shown = tuple(
        Shown(s["key"], s.get("label", s["key"]), s.get("as", "text"), s.get("reveal_after", "")) for s in item["show"]
    )
    pages = tuple(page_spec(page) for page in data["pages"])
    spec = TaskSpec(
        title=data["title"],
        pages=pages,
        shown=shown,
        id_key=item.get("id", ""),
        required=tuple(item.get("required", ())),
        instructions=data.get("instructions", ""),
        language=data.get("language", "en"),
        settings=data.get("settings", {}),
        translations=data.get("translations", {}),
        task_categories=tuple(data.get("task_categories", ())),
    )
    return spec


def _condition(raw: Mapping[str, Any] | None) -> Condition | None:
    if raw is None:
        return None
    test = next(k for k in raw if k != "question")
    values = tuple(raw[test]) if test == "in" else (raw[test],)
    return Condition(raw["question"], test, values)


def page_spec(raw: Mapping[str, Any]) -> PageSpec:
    """A page of the file (schema-checked data) as frozen data."""
    common = {"id", "type", "prompt", "required", "help", "show_if", "gold", "label"}
    questions = tuple(
        Question(
            id=q["id"],
            type=q["type"],
            prompt=q["prompt"],
            page=raw["id"],
            required=q.get("required", True),
            help=q.get("help", ""),
            show_if=_condition(q.get("show_if")),
            gold=q.get("gold", ""),
            label=q.get("label", ""),
            own={k: v for k, v in q.items() if k not in common},
        )
        for q in raw["questions"]
    )
    return PageSpec(
        id=raw["id"],
        title=raw.get("title", raw["id"]),
        questions=questions,
        intro=raw.get("intro", ""),
        show_if=_condition(raw.get("show_if")),
        min_seconds=float(raw.get("min_seconds", 0)),
    )


def _check(spec: TaskSpec, located: Located) -> list[TaskFileProblem]:
    problems: list[TaskFileProblem] = []

    def problem(path: Path_, message: str) -> None:
        problems.append(located.problem(path, message))

    page_ids = [p.id for p in spec.pages]
    shown_keys = {s.key: s for s in spec.shown}
    for index, shown in enumerate(spec.shown):
        if shown.reveal_after and shown.reveal_after not in page_ids:
            problem(
                ("item", "show", index, "reveal_after"), f"no page {shown.reveal_after!r}; pages: {', '.join(page_ids)}"
            )
        elif shown.reveal_after == page_ids[-1]:
            problem(("item", "show", index, "reveal_after"), "the last page: nothing would be asked after the reveal")
        elif shown.reveal_after and spec.pages[page_ids.index(shown.reveal_after)].show_if is not None:
            problem(
                ("item", "show", index, "reveal_after"),
                "a page with show_if may be skipped; reveal after a page every item has",
            )
    if len(shown_keys) != len(spec.shown):
        problem(("item", "show"), "a key is shown twice")
    seen_pages: set[str] = set()
    earlier: list[str] = []
    groups: dict[str, str] = {}
    for p_index, page in enumerate(spec.pages):
        path: Path_ = ("pages", p_index)
        if page.id in seen_pages:
            problem((*path, "id"), f"page id {page.id!r} is used twice")
        seen_pages.add(page.id)
        if page.show_if is not None:
            _check_condition(page.show_if, earlier, (*path, "show_if"), problem)
        on_page: list[str] = []
        for q_index, question in enumerate(page.questions):
            q_path: Path_ = (*path, "questions", q_index)
            if question.id in earlier or question.id in on_page:
                problem((*q_path, "id"), f"question id {question.id!r} is used twice")
            if question.show_if is not None:
                _check_condition(question.show_if, earlier + on_page, (*q_path, "show_if"), problem)
            for message, key in _question_problems(question, shown_keys, groups):
                problem((*q_path, key), message)
            on_page.append(question.id)
        earlier.extend(on_page)
    page_floors = spec.settings.get("too_fast_page_seconds")
    if isinstance(page_floors, Mapping):
        for name in page_floors:
            if name not in page_ids:
                problem(("settings", "too_fast_page_seconds", name), f"no page {name!r}; pages: {', '.join(page_ids)}")
    if "aggregation_method" in spec.settings:  # the schema knows the methods; the fields are the file's
        fields = [LabelField(q.id, q.label, column_label(q.id)) for q in spec.questions if q.label]
        try:
            aggregation_methods(spec.settings["aggregation_method"], fields)
        except ValueError as error:
            problem(("settings", "aggregation_method"), str(error))
    return problems


def _check_condition(condition: Condition, earlier: Sequence[str], path: Path_, problem: Any) -> None:
    if condition.question not in earlier:
        known = ", ".join(earlier) or "none"
        problem((*path, "question"), f"no earlier question {condition.question!r}; earlier ones: {known}")


def _question_problems(q: Question, shown: Mapping[str, Shown], groups: dict[str, str]) -> list[tuple[str, str]]:
    """(message, key) of each mistake in one question that the schema cannot see."""
    found: list[tuple[str, str]] = []
    if q.label and q.label not in LEVELS[q.type]:
        found.append((f"a {q.type} question's labels are {' or '.join(LEVELS[q.type])}, not {q.label}", "label"))
    if q.gold and q.type in ("spans", "long_text"):
        found.append((f"a {q.type} question has no single expected answer to compare with", "gold"))
    lo, hi = q.get("min"), q.get("max")
    if lo is not None and hi is not None and lo >= hi:
        found.append((f"min ({lo}) must be below max ({hi})", "min"))
    if q.type == "slider" and q.get("step") is not None and q.get("step") > (hi - lo):
        found.append(("step is wider than the slider", "step"))
    for low, high in (("min_choices", "max_choices"), ("min_length", "max_length")):
        if q.get(low) is not None and q.get(high) is not None and q.get(low) > q.get(high):
            found.append((f"{low} ({q.get(low)}) is above {high} ({q.get(high)})", low))
    if q.type in ("spans", "sentences"):
        source = shown.get(q.get("source"))
        if source is None:
            found.append((f"{q.get('source')!r} is not a shown key ({', '.join(shown) or 'none'})", "source"))
        elif q.type == "sentences" and source.as_ != "sentences":
            found.append((f"{source.key!r} must be shown `as: sentences` to pick its sentences", "source"))
        elif q.type == "spans" and source.as_ == "markdown":
            found.append((f"{source.key!r} is shown as Markdown; spans are offsets into plain text", "source"))
    if q.type in CHOICES:
        options = q.get("options") or []
        values = [o["value"] if isinstance(o, Mapping) else o for o in options]
        if len({str(v) for v in values}) != len(values):
            found.append(("two options have the same value", "options"))
        keys = [o.get("key") for o in options if isinstance(o, Mapping) and o.get("key")]
        if len(set(keys)) != len(keys):
            found.append(("two options have the same shortcut key", "options"))
    if q.get("use_once"):
        group = q.get("use_once")
        if groups.setdefault(group, q.type) != q.type:
            found.append((f"the questions of use_once group {group!r} must share one type", "use_once"))
    return found
