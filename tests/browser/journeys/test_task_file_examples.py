"""Every example task file (examples/tasks/) as a whole study through an invite link: the
researcher uploads the file on the admin's "Add project" form, imports its dataset on the admin's import page, makes a
batch with two annotators per item and an invite link; two people answer every page in their own
browsers (task_files.py: whatever the file asks, as the generic page shows it); the researcher
runs quality, reads the report and downloads every dataset in every format, where each answer
given is found again under its question's column."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from annotation.models import Assignment, Project
from annotation.services.examples import examples_find

from . import task_files
from .checks import NO_ADJUDICATION, NO_CHECKS, NO_STUDY, every_export_parses, fits_the_window, report_reads_well
from .researcher import Download, Researcher, parse_export

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: the language a study runs in, where an example carries a translation to show
LANGUAGE = {"answer_before_reading": "hr"}
#: the items a study's batch takes (the first of the dataset; every item imports in the unit test):
#: enough for agreement, gold and every branch of a condition, few enough for eight studies in
#: two minutes; fewer where a page's minimum time makes each item take seconds
ITEMS, FEWER = 6, {"answer_before_reading": 2}


@pytest.mark.parametrize("example", examples_find(), ids=lambda example: example.name)
def test_example_task_file_through_an_invite_link(example, researcher, person, no_failed_requests):
    project = researcher.create_project_from_task_file(
        name=f"{example.name} pilot", task_file=example.task_file, language=LANGUAGE.get(example.name, "en")
    )
    message = researcher.import_file(project, example.dataset)
    items = list(project.items.order_by("id").values_list("external_id", flat=True))
    assert f"Imported {len(items)} new items" in message, message
    chosen = items[: FEWER.get(example.name, ITEMS)]
    batch = researcher.create_batch(
        project, name="pilot", items_per_unit=len(chosen), annotators_per_item=2, external_ids=chosen
    )
    link = researcher.invite_link(batch)

    locale = {"hr": "hr-HR"}.get(project.language, "en-US")
    people = [task_files.FileAnnotator(person(locale=locale), task_files.answer, who) for who in (0, 1)]
    task = task_files.task_data(project.task_file)
    instructions = task.get("instructions", "")  # in the project's language where the file has it
    instructions = (task.get("translations") or {}).get(project.language, {}).get(instructions, instructions)
    for someone in people:  # the first reads the instructions on the link's page before starting
        someone.start_from_invite(link, instructions="" if someone.who else instructions)
    task_files.work_together(people)
    assert Assignment.objects.filter(unit__batch=batch, status=Assignment.Status.SUBMITTED).count() == 2
    assert all(sorted(someone.items_done) == sorted(chosen) for someone in people)

    report = researcher.run_quality(project)
    report_reads_well(report)
    fits_the_window(researcher.page)
    downloads = download_every_export(researcher, project)
    every_export_parses(downloads, empty=NO_ADJUDICATION | NO_STUDY | NO_CHECKS)
    raw = downloads["raw.jsonl"]
    assert len(raw.rows) == 2 * len(chosen)
    questions = [q for page in task["pages"] for q in page["questions"]]
    for question in questions:
        assert question["id"] in raw.header, (question["id"], raw.header)
        if question.get("gold"):
            assert f"{question['id']}_correct" in raw.header
        if question.get("label"):  # a row of the report's agreement table (a note may follow the name)
            row = re.escape(question["prompt"]) + rf"[^\t]*\t{question['label']}\t{len(chosen)}\t"
            assert re.search(row, report), question["id"]
    if not task.get("settings", {}).get("min_gold_accuracy"):
        assert "Annotators kept\t2 of 2" in report
    answers_found_again(raw, people)
    CHECKS.get(example.name, lambda **_: None)(
        report=report, downloads=downloads, people=people, researcher=researcher, project=project
    )
    no_failed_requests()


def download_every_export(researcher: Researcher, project: Project) -> dict[str, Download]:
    """Every dataset x format the report's buttons offer: the first by clicking it, the others
    by fetching the button's link in the researcher's browser session. Chromium lets a page
    start one download without asking; Researcher.download_exports opens the report again before
    each button, over a second a button, which eight studies cannot afford."""
    researcher.open_report(project)
    page, found = researcher.page, {}
    links = page.locator("#exports a.button[download]").evaluate_all("links => links.map(a => a.href)")
    assert links, "no export buttons"
    with page.expect_download() as info:
        page.locator(f"#exports a.button[download][href='{links[0].removeprefix(researcher.base)}']").click()
    first = links[0].rsplit("/", 1)[-1]  # <dataset>.<format>
    assert info.value.suggested_filename.endswith(first.rsplit(".", 1)[-1]), info.value.suggested_filename
    found[first] = parse_export(first, Path(info.value.path()).read_bytes())
    for link in links[1:]:
        key = link.rsplit("/", 1)[-1]
        answer = page.request.get(link)
        assert answer.ok, (key, answer.status)
        disposition = answer.headers.get("content-disposition", "")
        assert "attachment" in disposition and disposition.rstrip('"').endswith(key.rsplit(".", 1)[-1]), disposition
        found[key] = parse_export(key, answer.body())
    return found


def answers_found_again(raw: Download, people: list[task_files.FileAnnotator]) -> None:
    """Each value an annotator gave is the export's, in its response's row (spans by offsets)."""
    rows = {int(row["response_id"]): row for row in raw.rows}
    filled = [entry for someone in people for entry in someone.filled]
    assert filled
    for response_id, question_id, value in filled:
        exported = rows[response_id][question_id]
        if isinstance(value, list) and value and isinstance(value[0], dict):
            exported = [(s["start"], s["end"], s["label"]) for s in exported]
            value = [(s["start"], s["end"], s["label"]) for s in value]
        assert str(exported) == str(value), (question_id, exported, value)


# --- what each example shows besides -------------------------------------------------------------

Check = Callable[..., None]


def sentiment(*, report: str, downloads: dict[str, Download], **_: Any) -> None:
    """Annotator 1 departs from every gold answer: the file's gold-accuracy minimum drops them."""
    assert "Annotators kept\t1 of 2" in report, report
    correct = [row["sentiment_correct"] for row in downloads["raw.jsonl"].rows if row["sentiment_correct"] is not None]
    assert sorted(correct) == [False] * (len(correct) // 2) + [True] * (len(correct) // 2)


def paraphrase(*, downloads: dict[str, Download], **_: Any) -> None:
    """The follow-up is asked, and stored, exactly when the annotator found it hard."""
    rows = downloads["raw.jsonl"].rows
    assert {row["hard"] for row in rows} == {"yes", "no"}
    for row in rows:
        assert bool(row["why_hard"]) == (row["hard"] == "yes"), row


def answer_before_reading(*, people: list[task_files.FileAnnotator], downloads: dict[str, Download], **_: Any) -> None:
    """Both pages were in Croatian (task_files.translated checked each page's title) and the
    minimum time kept nobody from saving; the answer before reading is scored against gold."""
    for someone in people:
        assert someone.page.locator("html").get_attribute("lang") == "hr"
    rows = downloads["raw.jsonl"].rows
    assert {row["guess_correct"] for row in rows} == {True, False}


def pairwise_preference(*, downloads: dict[str, Download], **_: Any) -> None:
    rows = downloads["raw.jsonl"].rows
    assert all(len(row["reason"]) >= 20 for row in rows)


CHECKS: dict[str, Check] = {
    "sentiment": sentiment,
    "paraphrase": paraphrase,
    "answer_before_reading": answer_before_reading,
    "pairwise_preference": pairwise_preference,
}
