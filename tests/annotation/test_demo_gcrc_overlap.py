"""The GCRC demo's pair shares its first items (the batch hands out overlap first), so the
adjudicator has work after each annotator has done three items, not after a whole batch."""

from io import StringIO

import pytest
from django.core.management import call_command

from annotation.kinds import get_kind
from annotation.models import AdjudicationTask, Batch, InviteLink
from annotation.services.adjudication import adjudication_task_next
from annotation.services.assignments import annotator_join_via_invite, assignment_next
from tests.annotation.test_kind_contract import gcrc_answers
from tests.factories import save_answer

pytestmark = pytest.mark.django_db


def do_items(assignment, n: int, skill: str) -> None:
    """Answer the assignment's first `n` items, every page; `skill` on every option."""
    kind = get_kind("gcrc")
    for response in assignment.responses.select_related("item").order_by("position")[:n]:
        payload = response.item.payload
        for page in kind.pages(payload, {}):
            answer = gcrc_answers(payload, page.slug)
            save_answer(response.pk, page.slug, {**answer, "skill": skill} if "skill" in answer else answer)


def test_the_gcrc_pair_shares_its_first_unit_and_the_adjudicator_has_work_after_three_items_each(
    django_capture_on_commit_callbacks,
):
    call_command("load_demo", "--password", "pw", stdout=StringIO())
    batch = Batch.objects.get(project__kind="gcrc")
    assert batch.handout == Batch.Handout.OVERLAP and batch.items_per_unit >= 3
    links = {link.label: link for link in InviteLink.objects.filter(batch=batch)}
    first, second = (annotator_join_via_invite(invite=links[f"annotator {n}"]) for n in (1, 2))
    adjudicator = annotator_join_via_invite(invite=links["adjudicator"])
    mine, theirs = (assignment_next(annotator=person, batch=batch) for person in (first, second))
    assert mine.unit_id == theirs.unit_id and mine.unit.position == 0
    assert adjudication_task_next(adjudicator=adjudicator) is None  # nothing done yet
    with django_capture_on_commit_callbacks(execute=True):
        do_items(mine, 3, "DED")
        do_items(theirs, 3, "IND")  # they differ on every option's skill
    assert AdjudicationTask.objects.filter(batch=batch, status=AdjudicationTask.Status.OPEN).count() == 3
    task = adjudication_task_next(adjudicator=adjudicator)
    assert task is not None and task.item_id in set(
        mine.responses.order_by("position").values_list("item_id", flat=True)[:3]
    )
