"""The example task files under examples/tasks/ as projects a researcher can try at once: each
one's project made from its file, its made-up dataset imported, and a batch with an invite link."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from annotation.models import Batch, InviteLink, Project, Team

from .batches import batch_create, invite_link_create
from .imports import items_import
from .projects import project_create

EXAMPLES_DIR = Path(settings.BASE_DIR) / "examples" / "tasks"
TASK_FILE_NAMES = ("task.yaml", "task.yml", "task.json")
DATASET_SUFFIXES = (".jsonl", ".json", ".csv", ".tsv")
EXAMPLE_BATCH = "Example batch"
#: two people label every item, so agreement and adjudication have pairs to compare
EXAMPLE_ANNOTATORS = 2
EXAMPLE_ITEMS_PER_UNIT = 4


@dataclass(frozen=True)
class Example:
    """One folder of the gallery: its task file and its dataset."""

    name: str
    task_file: Path
    dataset: Path


@dataclass(frozen=True)
class LoadedExample:
    example: Example
    project: Project
    batch: Batch
    invite: InviteLink
    items_created: int


def examples_find(root: Path = EXAMPLES_DIR) -> list[Example]:
    """Every folder under `root` holding one task file and one dataset, by folder name; a folder
    with more or fewer is a mistake in the gallery, so it raises ValueError naming it."""
    found = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        tasks = [folder / name for name in TASK_FILE_NAMES if (folder / name).is_file()]
        datasets = [
            p for p in sorted(folder.iterdir()) if p.suffix in DATASET_SUFFIXES and p.name not in TASK_FILE_NAMES
        ]
        if len(tasks) != 1 or len(datasets) != 1:
            raise ValueError(f"{folder}: expected one task file and one dataset, found {tasks + datasets}")
        found.append(Example(folder.name, tasks[0], datasets[0]))
    return found


def example_project_name(example: Example) -> str:
    return f"Example: {example.name}"


def example_load(
    *,
    example: Example,
    team: Team,
    created_by: User | None = None,
    annotators_per_item: int = EXAMPLE_ANNOTATORS,
    items_per_unit: int = EXAMPLE_ITEMS_PER_UNIT,
) -> LoadedExample:
    """The example's project (found again by name, or made from its file), its dataset imported
    (again: nothing new the second time), a batch and an active invite link."""
    name = example_project_name(example)
    with transaction.atomic():
        project = Project.objects.filter(team=team, name=name).order_by("id").first()
        if project is None:
            project = project_create(
                name=name,
                team=team,
                task_file=example.task_file.read_text(encoding="utf-8"),
                language="en",
                created_by=created_by,
            )
        created = items_import(
            project=project, data=example.dataset.read_bytes(), filename=example.dataset.name
        ).created
        batch = project.batches.filter(name=EXAMPLE_BATCH).order_by("id").first() or batch_create(
            project=project,
            name=EXAMPLE_BATCH,
            items_per_unit=items_per_unit,
            assignments_per_unit=annotators_per_item,
        )
        invite = batch.invites.filter(active=True).order_by("id").first() or invite_link_create(
            batch=batch, label="example"
        )
    return LoadedExample(example, project, batch, invite, created)


def examples_load(*, team: Team, created_by: User | None = None, root: Path = EXAMPLES_DIR) -> list[LoadedExample]:
    """Every example of the gallery, loaded as `example_load` does."""
    return [example_load(example=example, team=team, created_by=created_by) for example in examples_find(root)]
