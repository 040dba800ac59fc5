"""MTurk qualification tests: a QuestionForm of choice questions (the `Test` of
CreateQualificationType) and its AnswerKey (MTurk scores each try itself and grants the
percentage of right answers as the qualification's value), built from plain data; and the two
read back, as MTurk (and the local endpoint) reads them. No Django, no network."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from xml.etree import ElementTree

QUESTION_FORM_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2017-11-06/QuestionForm.xsd"
ANSWER_KEY_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/AnswerKey.xsd"


@dataclass(frozen=True)
class QuizQuestion:
    """One choice question: its id, prompt, options as (selection id, text), one or several answers."""

    id: str
    prompt: str
    options: tuple[tuple[str, str], ...]
    multiple: bool = False


def _add(parent: ElementTree.Element, tag: str, text: str | None = None) -> ElementTree.Element:
    element = ElementTree.SubElement(parent, tag)
    if text is not None:
        element.text = text
    return element


def question_form_xml(*, title: str, overview: str, questions: Sequence[QuizQuestion]) -> str:
    """The test as MTurk's QuestionForm: an overview (the instructions), then the questions."""
    form = ElementTree.Element("QuestionForm", xmlns=QUESTION_FORM_NS)
    head = _add(form, "Overview")
    _add(head, "Title", title)
    for paragraph in [p for p in overview.split("\n\n") if p.strip()] or [title]:
        _add(head, "Text", paragraph.strip())
    for q in questions:
        question = _add(form, "Question")
        _add(question, "QuestionIdentifier", q.id)
        _add(question, "IsRequired", "true")
        _add(_add(question, "QuestionContent"), "Text", q.prompt)
        answer = _add(_add(question, "AnswerSpecification"), "SelectionAnswer")
        _add(answer, "MinSelectionCount", "1")
        _add(answer, "MaxSelectionCount", str(len(q.options) if q.multiple else 1))
        _add(answer, "StyleSuggestion", "checkbox" if q.multiple else "radiobutton")
        selections = _add(answer, "Selections")
        for value, text in q.options:
            selection = _add(selections, "Selection")
            _add(selection, "SelectionIdentifier", value)
            _add(selection, "Text", text)
    return ElementTree.tostring(form, encoding="unicode")


def answer_key_xml(questions: Sequence[QuizQuestion], answers: Mapping[str, Sequence[str]]) -> str:
    """One point per question answered exactly right (every right selection, no other); the
    qualification's value is the percentage of points."""
    key = ElementTree.Element("AnswerKey", xmlns=ANSWER_KEY_NS)
    for q in questions:
        question = _add(key, "Question")
        _add(question, "QuestionIdentifier", q.id)
        option = _add(question, "AnswerOption")
        for value in answers[q.id]:
            _add(option, "SelectionIdentifier", value)
        _add(option, "AnswerScore", "1")
    mapping = _add(_add(key, "QualificationValueMapping"), "PercentageMapping")
    _add(mapping, "MaximumSummedScore", str(len(questions)))
    return ElementTree.tostring(key, encoding="unicode")


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _children(element: ElementTree.Element, name: str) -> list[ElementTree.Element]:
    return [child for child in element if _local(child.tag) == name]


def _text(element: ElementTree.Element, name: str) -> str:
    found = _children(element, name)
    return (found[0].text or "").strip() if found else ""


def read_question_form(xml: str) -> tuple[str, list[str], list[QuizQuestion]]:
    """(title, overview paragraphs, choice questions) of a QuestionForm; ValueError if it is not one."""
    try:
        form = ElementTree.fromstring(xml)
    except ElementTree.ParseError as exc:
        raise ValueError(f"the test is not XML: {exc}") from None
    if _local(form.tag) != "QuestionForm":
        raise ValueError("the test is not a QuestionForm")
    head = (_children(form, "Overview") or [ElementTree.Element("Overview")])[0]
    questions = []
    for question in _children(form, "Question"):
        content = (_children(question, "QuestionContent") or [ElementTree.Element("QuestionContent")])[0]
        spec = (_children(question, "AnswerSpecification") or [ElementTree.Element("AnswerSpecification")])[0]
        selection = _children(spec, "SelectionAnswer")
        if not selection:
            raise ValueError("only selection questions are supported")
        options = tuple(
            (_text(s, "SelectionIdentifier"), _text(s, "Text"))
            for box in _children(selection[0], "Selections")
            for s in _children(box, "Selection")
        )
        most = _text(selection[0], "MaxSelectionCount")
        questions.append(
            QuizQuestion(_text(question, "QuestionIdentifier"), _text(content, "Text"), options, most not in ("", "1"))
        )
    overview = [(t.text or "").strip() for t in _children(head, "Text")]
    return _text(head, "Title"), overview, questions


def score(answer_key: str, given: Mapping[str, Sequence[str]]) -> int:
    """The qualification value MTurk grants for `given` ({question: selections}): the summed
    AnswerScore of the options matched exactly, as a percentage of MaximumSummedScore."""
    key = ElementTree.fromstring(answer_key)
    total = 0
    for question in _children(key, "Question"):
        chosen = set(given.get(_text(question, "QuestionIdentifier"), ()))
        for option in _children(question, "AnswerOption"):
            if {(s.text or "").strip() for s in _children(option, "SelectionIdentifier")} == chosen:
                total += int(_text(option, "AnswerScore") or 0)
    mapping = next(iter(_children(key, "QualificationValueMapping")), None)
    percentage = next(iter(_children(mapping, "PercentageMapping")), None) if mapping is not None else None
    if percentage is None:
        return total
    most = int(_text(percentage, "MaximumSummedScore") or 1)
    return round(100 * total / most)
