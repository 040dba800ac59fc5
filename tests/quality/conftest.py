"""A ReCAM project annotated through the real services by annotators of known habits.

The 20 sample items go in 4 units of 5, each unit to 3 distinct annotators:
- good_a: all 4 units, always right after reading; rates item 0 of each unit Easy;
- good_b: all 4 units, right except the first item of unit 3, which it rates Easy (wrong);
- careless: units 0 and 1, always wrong (accuracy 0 -> dropped with all its work);
- sloppy: units 2 and 3, always right, but finds no supporting span; stops after the
  pre-reading page of its very last item (one incomplete response).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from django.contrib.auth import get_user_model

from annotation.kinds import get_kind
from annotation.models import Annotator, Project, Response
from annotation.services.assignments import NoWorkLeft, annotator_join_via_invite, assignment_next
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from annotation.services.responses import next_page_slug
from tests.factories import ProjectFactory, save_answer


@dataclass
class Habit:
    units: int
    wrong: callable = lambda unit, position: False
    easy: callable = lambda unit, position: False
    no_span: bool = False
    stop_before_last: bool = False


HABITS = {
    "good_a": Habit(units=4, easy=lambda u, p: p == 0),
    "good_b": Habit(units=4, wrong=lambda u, p: (u, p) == (3, 0), easy=lambda u, p: (u, p) == (3, 0)),
    "careless": Habit(units=2, wrong=lambda u, p: True),
    "sloppy": Habit(units=2, no_span=True, stop_before_last=True),
}


def page_data(slug: str, payload: dict, choice: int, habit: Habit, easy: bool) -> dict:
    """What the annotator types into the page's form (validated by the kind's real form)."""
    article = payload["article"]
    return {
        "pre": {"choice": str(choice)},
        "post": {"choice": str(choice)},
        "second": {"choice": "none"},
        "support_span": {"none_found": "on"} if habit.no_span else {"text": article[:30]},
        "relation": {"relation": "paraphrase"},
        "summary_span": {"text": article[5:45]},
        "difficulty": {"difficulty": "easy" if easy else "medium"},
    }[slug]


def answer_item(response: Response, habit: Habit, unit: int, stop_after_pre: bool = False) -> None:
    kind = get_kind("recam")
    payload = response.item.payload
    wrong = habit.wrong(unit, response.position)
    choice = (payload["label"] + 1) % 5 if wrong else payload["label"]
    while (slug := next_page_slug(get_kind("recam"), payload, response.answers)) is not None:
        page = kind.page(payload, slug, response.answers)
        form = page.form_class(
            page_data(slug, payload, choice, habit, habit.easy(unit, response.position)),
            payload=payload,
            answers=response.answers,
        )
        assert form.is_valid(), form.errors
        save_answer(response.pk, slug, form.answer())
        response.refresh_from_db()
        if stop_after_pre:
            return


def work_through(invite, habit: Habit) -> Annotator:
    annotator = annotator_join_via_invite(invite=invite)
    for n in range(habit.units):
        try:
            assignment = assignment_next(annotator=annotator, batch=invite.batch)
        except NoWorkLeft:
            break
        unit = assignment.unit.position
        responses = list(assignment.responses.select_related("item", "assignment").order_by("position"))
        for response in responses:
            last = n == habit.units - 1 and response is responses[-1]
            answer_item(response, habit, unit, stop_after_pre=habit.stop_before_last and last)
    return annotator


@dataclass
class AnnotatedProject:
    project: Project
    annotators: dict[str, Annotator] = field(default_factory=dict)


def build_annotated_project(
    data: bytes, *, name: str = "ReCAM pilot", settings: dict | None = None
) -> AnnotatedProject:
    project = ProjectFactory(kind="recam", name=name, settings=settings or {})
    items_import(project=project, data=data, filename="Task_1_dev.sample.jsonl")
    batch = batch_create(project=project, name="b1", items_per_unit=5, assignments_per_unit=3)
    invite = invite_link_create(batch=batch)
    built = AnnotatedProject(project=project)
    for role, habit in HABITS.items():
        built.annotators[role] = work_through(invite, habit)
    return built


@pytest.fixture
def annotated(db, recam_dev_bytes) -> AnnotatedProject:
    return build_annotated_project(recam_dev_bytes)


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_user("researcher", password="pw", is_staff=True, is_superuser=True)


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


@pytest.fixture
def plain_client(client, db):
    user = get_user_model().objects.create_user("someone", password="pw", is_staff=False)
    client.force_login(user)
    return client
