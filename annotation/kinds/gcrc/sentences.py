"""A sentence splitter for GCRC's Chinese passages.

GCRC's supporting facts are whole sentences of the article, so the annotator selects sentences,
not free spans; the passage is split once, at import, and every sentence keeps its character
offsets so that `passage[start:end] == text` always holds and a selection is a span of the
passage, never a rewritten copy.

Rules: a sentence ends after a run of sentence-final marks (。！？；…, so ……
too), together with the closing quotes and brackets that follow it (”’」』）), and at
every line break (LF or CR). Whitespace around a sentence is left out of it, and a piece that
is only whitespace is no sentence. ASCII ? . ! and the full-width ． are not sentence ends:
the released passages use ? for a middle dot (阿瑟?刘易斯) and ． as a decimal point (0．25).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SENTENCE_END = frozenset("。！？；…")
CLOSERS = frozenset("”’」』）")
LINE_BREAKS = frozenset("\n\r")


@dataclass(frozen=True)
class Sentence:
    text: str
    start: int
    end: int

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "start": self.start, "end": self.end}


def _piece_ends(text: str) -> list[int]:
    """The offsets where a piece ends: after a final mark and its closers, or at a line break."""
    ends: list[int] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char in LINE_BREAKS:
            ends.append(i)
            i += 1
        elif char in SENTENCE_END:
            i += 1
            while i < n and (text[i] in SENTENCE_END or text[i] in CLOSERS):
                i += 1
            ends.append(i)
        else:
            i += 1
    ends.append(n)
    return ends


def split_sentences(text: str) -> list[Sentence]:
    """The sentences of `text`, in order, each an exact span of it with no outer whitespace."""
    sentences: list[Sentence] = []
    start = 0
    for end in _piece_ends(text):
        left, right = start, end
        while left < right and text[left].isspace():
            left += 1
        while right > left and text[right - 1].isspace():
            right -= 1
        if left < right:
            sentences.append(Sentence(text[left:right], left, right))
        start = end
    return sentences


def sentence_dicts(text: str) -> list[dict[str, Any]]:
    """`split_sentences` as JSON-able dicts ({text, start, end}), the form an item stores."""
    return [sentence.as_dict() for sentence in split_sentences(text)]
