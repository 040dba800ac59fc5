"""The gallery of example task files (examples/tasks/): every file is a valid task, every item of
its made-up dataset imports, its gold answers are among the options, the README names it, and
`load_demo --examples` makes a working project of each."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from ruamel.yaml import YAML

from annotation.kinds import TASK_FILE_KIND, task_file_kind
from annotation.models import Batch, InviteLink, Project
from annotation.services.examples import EXAMPLES_DIR, Example, examples_find

EXAMPLES = {example.name: example for example in examples_find()}
EIGHT = (
    "sentiment",
    "nli",
    "named_entities",
    "pairwise_preference",
    "summary_rating",
    "topics",
    "paraphrase",
    "answer_before_reading",
)


def task_data(example: Example) -> dict[str, Any]:
    """The file as plain data (YAML's loader reads the JSON one too)."""
    return json.loads(json.dumps(YAML(typ="safe", pure=True).load(example.task_file.read_text(encoding="utf-8"))))


def test_the_gallery_holds_the_eight_examples_in_every_format():
    assert sorted(EXAMPLES) == sorted(EIGHT)
    assert sorted(e.task_file.suffix for e in EXAMPLES.values()).count(".json") == 1  # JSON works too
    formats = [e.dataset.suffix for e in EXAMPLES.values()]
    assert {".csv", ".tsv", ".json"} <= set(formats) and formats.count(".jsonl") >= 4
    readme = (EXAMPLES_DIR / "README.md").read_text(encoding="utf-8")
    for name, example in EXAMPLES.items():
        assert f"[`{name}`]({name}/{example.task_file.name})" in readme, name


@pytest.mark.parametrize("name", EIGHT)
def test_example_is_a_valid_task_and_its_every_item_imports(name):
    example = EXAMPLES[name]
    kind = task_file_kind(example.task_file.read_text(encoding="utf-8"))
    data = task_data(example)
    assert kind.title == data["title"]
    items = kind.parse(example.dataset.read_text(encoding="utf-8"))
    assert 8 <= len(items) <= 12
    ids = [item.external_id for item in items]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"[a-z]\d\d", i) for i in ids), ids
    shown = [entry["key"] for entry in data["item"]["show"]]
    for item in items:
        assert all(item.payload.get(key) not in (None, "") for key in shown), item
        first = kind.pages(item.payload, {})[0]
        assert kind.page_context(item.payload, first, {})["questions"], (item.external_id, first.slug)


@pytest.mark.parametrize("name", EIGHT)
def test_example_gold_answers_are_among_its_options(name):
    """A gold answer no annotator can give would make every annotator look wrong."""
    example = EXAMPLES[name]
    items = task_file_kind(example.task_file.read_text(encoding="utf-8")).parse(
        example.dataset.read_text(encoding="utf-8")
    )
    questions = [q for page in task_data(example)["pages"] for q in page["questions"]]
    golds = 0
    for question in (q for q in questions if q.get("gold")):
        for item in items:
            gold = item.payload.get(question["gold"])
            if gold in (None, ""):
                continue
            golds += 1
            if "options" in question:
                values = [str(o["value"]) if isinstance(o, dict) else o for o in question["options"]]
            else:
                values = [str(o) for o in item.payload[question["options_from"]]]
            assert str(gold) in values, (item.external_id, question["id"], gold)
    has_gold = any(q.get("gold") for q in questions)
    assert (golds > 0) == has_gold


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_load_demo_examples_makes_a_project_with_a_link_of_each_and_again_nothing_new(settings):
    settings.PUBLIC_BASE_URL = "http://demo.test:8000"
    first = run("load_demo", "--examples", "--password", "pw")
    again = run("load_demo", "--examples", "--password", "pw")
    projects = Project.objects.filter(kind=TASK_FILE_KIND).order_by("name")
    assert [p.name for p in projects] == [f"Example: {name}" for name in sorted(EIGHT)]
    for project in projects:
        example = EXAMPLES[project.name.removeprefix("Example: ")]
        assert project.task_file == example.task_file.read_text(encoding="utf-8")
        assert project.team.name == "Demo team"
        kind = task_file_kind(project.task_file)
        assert project.items.count() == len(kind.parse(example.dataset.read_text(encoding="utf-8")))
        batch = Batch.objects.get(project=project)
        assert batch.assignments_per_unit == 2 and batch.units.count() >= 2
        invite = InviteLink.objects.get(batch=batch, active=True)
        assert f"http://demo.test:8000/i/{invite.token}/" in first
        assert f"http://demo.test:8000/i/{invite.token}/" in again
        assert f"Example project {project.pk}: {project.name} ({project.items.count()} items" in again
    assert "Example project" not in run("load_demo", "--password", "pw")  # only when asked


def test_examples_find_refuses_a_folder_without_its_dataset(tmp_path: Path):
    (tmp_path / "lonely").mkdir()
    (tmp_path / "lonely" / "task.yaml").write_text("title: x\n", encoding="utf-8")
    with pytest.raises(ValueError, match="lonely"):
        examples_find(tmp_path)
