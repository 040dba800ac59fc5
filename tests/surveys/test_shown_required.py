"""Issue 37: time on task cannot be dodged. A page's save whose `shown` token is missing,
malformed, expired or another response's is refused, as a `min_seconds` page refuses it, and
nothing is stored; the page's own token saves the answer with its time. With the project's
`untimed_saves: suspect` such a save is stored instead, its time unknown and the reason kept,
for the too-fast rules to judge as suspect (tests/quality/test_untimed_suspects.py)."""

from __future__ import annotations

import time

import pytest

from annotation.models import Response
from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from annotation.services.projects import project_create
from surveys import flow
from tests.conftest import data_file
from tests.factories import ProjectFactory, TeamFactory
from tests.surveys.test_recam_flow import form_fields, invite, join  # noqa: F401  (fixture)
from tests.surveys.test_task_file_flow import TASK, answers_for, fields_of
from tests.surveys.test_task_file_flow import join as task_join

pytestmark = pytest.mark.django_db


def other_response_token(fields: dict) -> str:
    return flow.shown_token(int(fields["response"]) + 1, fields["page"])


@pytest.mark.parametrize(
    "shown",
    [None, "garbage", "", other_response_token, "expired"],
    ids=["missing", "malformed", "empty", "another response's", "expired"],
)
def test_a_save_without_its_pages_token_is_refused_and_nothing_is_stored(client, invite, shown, monkeypatch):  # noqa: F811
    url = join(client, invite)
    fields = form_fields(client.get(url).content.decode())
    posted = {**fields, "choice": "0"}
    if shown == "expired":  # the page's own token, posted after SHOWN_MAX_AGE
        later = time.time() + flow.SHOWN_MAX_AGE + 60
        monkeypatch.setattr(flow.time, "time", lambda: later)
    elif shown is None:
        posted.pop("shown")
    else:
        posted["shown"] = shown(fields) if callable(shown) else shown
    page = client.post(url, posted, follow=True).content.decode()
    assert "could not be timed" in page
    response = Response.objects.get(pk=fields["response"])
    assert response.answers == {} and response.timings == {}


def test_the_pages_own_token_saves_with_the_time(client, invite):  # noqa: F811
    url = join(client, invite)
    fields = form_fields(client.get(url).content.decode())
    client.post(url, {**fields, "choice": "0"})
    response = Response.objects.get(pk=fields["response"])
    assert response.answers == {"pre": {"choice": 0}} and response.timings["pre"]["seconds"] is not None


@pytest.fixture
def suspect_invite(recam_dev_bytes):
    """An invite to a project whose researcher chose `untimed_saves: suspect`."""
    project = ProjectFactory(kind="recam", settings={"untimed_saves": "suspect"})
    items_import(project=project, data=recam_dev_bytes, filename="dev.jsonl")
    batch = batch_create(project=project, name="b1", items_per_unit=2, assignments_per_unit=2)
    return invite_link_create(batch=batch)


def post_with(client, url: str, fields: dict, shown, monkeypatch) -> str:
    """Post the page's form with `shown` as the parametrised cases say; the page answered."""
    posted = {**fields, "choice": "0"}
    if shown == "expired":  # the page's own token, posted after SHOWN_MAX_AGE
        later = time.time() + flow.SHOWN_MAX_AGE + 60
        monkeypatch.setattr(flow.time, "time", lambda: later)
    elif shown is None:
        posted.pop("shown")
    else:
        posted["shown"] = shown(fields) if callable(shown) else shown
    return client.post(url, posted, follow=True).content.decode()


@pytest.mark.parametrize(
    "shown,reason",
    [
        (None, "missing"),
        ("garbage", "malformed"),
        ("", "missing"),
        (other_response_token, "another page's"),
        ("expired", "expired"),
    ],
    ids=["missing", "malformed", "empty", "another response's", "expired"],
)
def test_with_untimed_saves_suspect_the_save_is_stored_with_its_time_unknown_and_why(
    client, suspect_invite, shown, reason, monkeypatch
):
    url = join(client, suspect_invite)
    fields = form_fields(client.get(url).content.decode())
    page = post_with(client, url, fields, shown, monkeypatch)
    assert "could not be timed" not in page
    response = Response.objects.get(pk=fields["response"])
    assert response.answers == {"pre": {"choice": 0}}
    timing = response.timings["pre"]
    assert timing["seconds"] is None and timing["shown_at"] is None and timing["untimed"] == reason


def test_with_untimed_saves_suspect_the_pages_own_token_saves_with_the_time_and_no_flag(client, suspect_invite):
    url = join(client, suspect_invite)
    fields = form_fields(client.get(url).content.decode())
    client.post(url, {**fields, "choice": "0"})
    timing = Response.objects.get(pk=fields["response"]).timings["pre"]
    assert timing["seconds"] is not None and "untimed" not in timing


def test_untimed_saves_refuse_said_outright_refuses_as_the_default_does(client, invite):  # noqa: F811
    invite.batch.project.settings = {"untimed_saves": "refuse"}
    invite.batch.project.save()
    url = join(client, invite)
    fields = form_fields(client.get(url).content.decode())
    page = client.post(url, {**fields, "choice": "0", "shown": "garbage"}, follow=True).content.decode()
    assert "could not be timed" in page
    assert Response.objects.get(pk=fields["response"]).answers == {}


def test_with_untimed_saves_suspect_a_page_with_a_minimum_time_still_refuses_a_save_without_its_note(client):
    """A task file page: `guess` saved without its note is stored as suspect; `read`, with
    `min_seconds`, refuses such a save as it always did (its wait cannot be counted)."""
    task = TASK.replace("min_seconds: 0", "min_seconds: 600")
    project = project_create(name="slow", team=TeamFactory(), task_file=task, settings={"untimed_saves": "suspect"})
    items_import(project=project, data=data_file("task_files", "before_reading.jsonl").read_bytes(), filename="i.jsonl")
    url = task_join(client, project)
    fields = fields_of(client.get(url).content.decode())
    payload = Response.objects.get(pk=fields["response"]).item.payload
    client.post(url, {**fields, "shown": "garbage", **answers_for(payload, "guess")})
    response = Response.objects.get(pk=fields["response"])
    assert "guess" in response.answers and response.timings["guess"]["untimed"] == "malformed"
    fields = fields_of(client.get(url).content.decode())
    fields.pop("shown")
    too_soon = client.post(url, {**fields, **answers_for(payload, "read")}, follow=True)
    assert "Please take at least 600 seconds on this page before you continue." in too_soon.content.decode()
    assert "read" not in Response.objects.get(pk=fields["response"]).answers
