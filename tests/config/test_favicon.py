"""Every page names the site's icon, which is served: without it browsers ask for /favicon.ico
on every page and get a 404."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from annotation.services.batches import batch_create, invite_link_create
from tests.factories import ItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db

ICON = re.compile(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">')


def icon_of(html: str, client: Client) -> bytes:
    found = ICON.search(html)
    assert found, "no <link rel=icon> in the page"
    served = client.get(found.group(1))
    assert served.status_code == 200 and served["Content-Type"] == "image/svg+xml"
    return b"".join(served.streaming_content) if served.streaming else served.content


def test_the_annotator_pages_and_the_admin_link_the_served_icon():
    client = Client()
    project = ProjectFactory()
    ItemFactory(project=project)
    invite = invite_link_create(batch=batch_create(project=project, name="b", items_per_unit=1))
    invite_page = client.get(reverse("surveys:invite", args=[invite.token])).content.decode()
    assert icon_of(invite_page, client).startswith(b"<svg")

    login = client.get("/admin/login/").content.decode()
    assert icon_of(login, client).startswith(b"<svg")
    client.force_login(get_user_model().objects.create_superuser("lead", "lead@example.org", "pw-long-enough"))
    report = client.get(reverse("quality:report", args=[project.pk])).content.decode()
    assert icon_of(report, client).startswith(b"<svg")
