"""A one-person invite link opened again: its own user (same browser) goes back to their work;
anybody else gets a page that says the link was used, how its user resumes, and whom to ask,
in the project's language, not a bare "closed" dead end."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.services.batches import batch_create, invite_link_create
from annotation.services.imports import items_import
from tests.factories import ProjectFactory

from .test_recam_flow import join

pytestmark = pytest.mark.django_db


def personal_invite(recam_dev_bytes, language: str = "en"):
    project = ProjectFactory(kind="recam", language=language)
    items_import(project=project, data=recam_dev_bytes, filename="dev.jsonl")
    batch = batch_create(project=project, name="b", items_per_unit=2, assignments_per_unit=2)
    return invite_link_create(batch=batch, label="for Ana", max_annotators=1)


def test_the_same_browser_resumes_and_another_is_told_how_to_resume(client, recam_dev_bytes):
    invite = personal_invite(recam_dev_bytes)
    work = join(client, invite)
    assert join(client, invite) == work  # the person who used it: back to the same work page

    other = Client().post(reverse("surveys:invite", args=[invite.token]))
    html = other.content.decode()
    assert other.status_code == 410
    assert "This invitation link has already been used." in html
    assert "open this link again in the browser where you started" in html
    assert "the address shown at the bottom of your work page" in html
    assert "ask the person who sent you this link for a new one" in html
    assert work not in html  # somebody else's work address is never shown


def test_the_used_link_page_is_in_the_projects_language(client, recam_dev_bytes):
    invite = personal_invite(recam_dev_bytes, language="hr")
    join(client, invite)
    html = Client().post(reverse("surveys:invite", args=[invite.token])).content.decode()
    assert "Ova je pozivna poveznica već iskorištena." in html
    assert "zatražite novu poveznicu od osobe koja vam je poslala ovu" in html
