"""GCRC's label vocabularies and the polarity of a question.

Codes, names and levels: Tan et al. (2021) §3.1-3.2 (English names, the three skill levels) and
the CCL2022-GCRC README (codes and Chinese names). Aliases are other spellings seen in the
released material: the paper's Figure 1 writes 主谓宾关系错误 for SPOT, one Chinese README
writes CAU-R for CAUS-R. Files are normalised to the codes; the original stays in the payload.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OPTION_LETTERS = ("A", "B", "C", "D")


@dataclass(frozen=True)
class Label:
    code: str
    zh: str
    en: str
    #: skills only: 1 basic information capturing, 2 local, 3 global information integration
    level: int | None = None
    aliases: tuple[str, ...] = ()


SKILL_LEVELS: dict[int, str] = {
    1: "Basic information capturing",
    2: "Local information integration",
    3: "Global information integration",
}

SKILLS: tuple[Label, ...] = (
    Label("DTL-R", "细节推理", "Detail understanding", 1),
    Label("TEM-SPA", "时空推理", "Temporal/spatial reasoning", 2),
    Label("CO-REF", "共指推理", "Coreference resolution", 2),
    Label("DED", "演绎推理", "Deductive reasoning", 2),
    Label("MATH", "数字推理", "Mathematical reasoning", 2),
    Label("CAUS-R", "因果推理", "Cause-effect comprehension", 2, aliases=("CAU-R",)),
    Label("IND", "归纳推理", "Inductive reasoning", 3),
    Label("APPREC", "鉴赏分析", "Appreciative analysis", 3),
)

ERRORS: tuple[Label, ...] = (
    Label("DTL", "细节错误", "Wrong details"),
    Label("TEMP", "时间属性错误", "Wrong temporal properties"),
    Label("SPOT", "主谓不一致", "Wrong subject-predicate-object triple relationship", aliases=("主谓宾关系错误",)),
    Label("NAS", "充要条件错误", "Wrong necessary and sufficient conditions"),
    Label("CAUS", "因果错误", "Wrong causality"),
    Label("ITQ", "答非所问", "Irrelevant to the question"),
    Label("ITA", "无中生有", "Irrelevant to the article"),
)

SKILL_CODES = tuple(label.code for label in SKILLS)
ERROR_CODES = tuple(label.code for label in ERRORS)


def _lookup(labels: tuple[Label, ...]) -> dict[str, str]:
    table: dict[str, str] = {}
    for label in labels:
        for spelling in (label.code, label.zh, label.en, *label.aliases):
            table[spelling.casefold()] = label.code
    return table


_SKILL_LOOKUP = _lookup(SKILLS)
_ERROR_LOOKUP = _lookup(ERRORS)


def skill_code(value: str) -> str:
    """The code of a skill given by code, Chinese or English name or alias; "" stays "" (no label).
    Raises KeyError for anything else."""
    return _code(value, _SKILL_LOOKUP)


def error_code(value: str) -> str:
    """The code of an error reason given by code, Chinese or English name or alias; "" stays ""
    (a true statement). Raises KeyError for anything else."""
    return _code(value, _ERROR_LOOKUP)


def _code(value: str, table: dict[str, str]) -> str:
    stripped = value.strip()
    if not stripped:
        return ""
    return table[stripped.casefold()]


# --- polarity ----------------------------------------------------------------------------------

#: text in quotes or title marks names what the question is about, so a 不 there is no negation
_QUOTED = re.compile(r"“[^”]*”|‘[^’]*’|「[^」]*」|『[^』]*』|《[^》]*》|\"[^\"]*\"")
#: the stems of Gaokao questions that ask for the one wrong statement
_ASKS_FOR_WRONG = re.compile(
    r"错误|有误|无法|没有|未必|不(?:一定|够|太|完全|尽)?(?:正确|符合|相符|属于|恰当|合理|准确|一致|相同|同|妥|当|能|是|可|对|符|成立|包括|适)"
)


@dataclass(frozen=True)
class Polarity:
    """Which of the four options are wrong statements, as the question's wording implies.

    `asks_for_wrong`: the question asks for the incorrect option (不正确/不符合/错误...), so only
    the answer is wrong; else it asks for the correct one and the other three are wrong.
    `marker`: the words that decided it ("" for a question that asks for the correct one), so a
    page can show the annotator why and let them correct it.
    """

    asks_for_wrong: bool
    wrong: tuple[bool, bool, bool, bool]
    marker: str


def polarity(question: str, answer: str) -> Polarity:
    """The options that need an error reason, from the question text and the answer letter."""
    if answer not in OPTION_LETTERS:
        raise ValueError(f"answer must be one of A-D, got {answer!r}")
    found = _ASKS_FOR_WRONG.search(_QUOTED.sub("", question))
    asks_for_wrong = found is not None
    is_answer = [letter == answer for letter in OPTION_LETTERS]
    wrong = tuple(flag if asks_for_wrong else not flag for flag in is_answer)
    return Polarity(asks_for_wrong, wrong, found.group(0) if found else "")  # type: ignore[arg-type]


def wrong_from_labels(error_type: list[str]) -> tuple[bool, ...] | None:
    """The wrong options as a labeled file gives them (those with an error type), or None when
    the file gives no error type for the item."""
    wrong = tuple(bool(code) for code in error_type)
    return wrong if any(wrong) else None
