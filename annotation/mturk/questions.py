"""The XML MTurk exchanges with us: the ExternalQuestion we send, the answers it sends back.

Both directions live here so the local endpoint builds answers exactly as the client reads them.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

EXTERNAL_QUESTION_NS = (
    "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd"
)
ANSWERS_NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd"
MAX_QUESTION_BYTES = 65535
MAX_FRAME_HEIGHT = 10000
_UNSAFE_URL = re.compile(r"[\s\x00-\x1f\x7f]")
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def external_question_xml(url: str, frame_height: int = 0) -> str:
    """The Question XML of a HIT whose page is ``url`` (``frame_height`` 0 = full window).

    The URL is XML-escaped (``&`` becomes ``&amp;``); MTurk appends assignmentId, hitId,
    workerId and turkSubmitTo to it. Real MTurk accepts only https URLs; the local endpoint
    accepts http too, so this checks only that the URL is an absolute http(s) URL.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"ExternalURL must be an absolute http(s) URL, not {url!r}")
    if _UNSAFE_URL.search(url):
        raise ValueError("ExternalURL must not contain spaces or control characters")
    if isinstance(frame_height, bool) or not isinstance(frame_height, int):
        raise TypeError("frame_height must be an int")
    if not 0 <= frame_height <= MAX_FRAME_HEIGHT:
        raise ValueError(f"frame_height must be between 0 and {MAX_FRAME_HEIGHT}")
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<ExternalQuestion xmlns="{EXTERNAL_QUESTION_NS}">'
        f"<ExternalURL>{escape(url)}</ExternalURL>"
        f"<FrameHeight>{frame_height}</FrameHeight>"
        "</ExternalQuestion>"
    )
    if len(xml.encode("utf-8")) > MAX_QUESTION_BYTES:
        raise ValueError(f"the Question XML is longer than {MAX_QUESTION_BYTES} bytes")
    return xml


def parse_external_question(xml: str) -> tuple[str, int] | None:
    """(ExternalURL, FrameHeight) of an ExternalQuestion, or None for other question types.

    Raises ``ValueError`` when ``xml`` is not well-formed XML.
    """
    try:
        root = ET.fromstring(xml.encode("utf-8"))
    except ET.ParseError as exc:
        raise ValueError(f"the Question is not well-formed XML: {exc}") from None
    if root.tag != f"{{{EXTERNAL_QUESTION_NS}}}ExternalQuestion":
        return None
    url = (root.findtext(f"{{{EXTERNAL_QUESTION_NS}}}ExternalURL") or "").strip()
    height_text = (root.findtext(f"{{{EXTERNAL_QUESTION_NS}}}FrameHeight") or "0").strip()
    try:
        height = int(height_text)
    except ValueError:
        raise ValueError(f"FrameHeight {height_text!r} is not an integer") from None
    return url, height


def answer_xml(fields: list[tuple[str, str]]) -> str:
    """MTurk's QuestionFormAnswers for posted ``(name, value)`` fields, in order."""
    parts = [f'<?xml version="1.0" encoding="UTF-8"?><QuestionFormAnswers xmlns="{ANSWERS_NS}">']
    for name, value in fields:
        parts.append(
            f"<Answer><QuestionIdentifier>{_xml_text(name)}</QuestionIdentifier>"
            f"<FreeText>{_xml_text(value)}</FreeText></Answer>"
        )
    parts.append("</QuestionFormAnswers>")
    return "".join(parts)


def _xml_text(value: str) -> str:
    # XML 1.0 cannot carry most control characters, even escaped: drop them.
    return escape(_NOT_XML.sub("", value))


def parse_answer_xml(xml: str) -> dict[str, str]:
    """QuestionIdentifier -> FreeText of a QuestionFormAnswers document ({} when empty).

    A field posted more than once keeps its values joined with ``|``, in posted order.
    """
    if not xml:
        return {}
    root = ET.fromstring(xml.encode("utf-8"))
    answers: dict[str, str] = {}
    for answer in root.iter(f"{{{ANSWERS_NS}}}Answer"):
        name = answer.findtext(f"{{{ANSWERS_NS}}}QuestionIdentifier") or ""
        value = answer.findtext(f"{{{ANSWERS_NS}}}FreeText") or ""
        answers[name] = f"{answers[name]}|{value}" if name in answers else value
    return answers
