"""Password guessing at the admin login is limited (django-axes): after AXES_FAILURE_LIMIT
failures the user name is locked out from that address, even with the right password, until
the cool-off has passed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from django.utils import timezone

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-test-password"
LIMIT = 3


def log_in(client: Client, password: str) -> int:
    response = client.post("/admin/login/?next=/admin/", {"username": "lead", "password": password})
    return response.status_code


@pytest.fixture
def lead():
    return get_user_model().objects.create_superuser("lead", "lead@example.org", PASSWORD)


@override_settings(AXES_FAILURE_LIMIT=LIMIT, AXES_COOLOFF_TIME=timedelta(minutes=15))
def test_admin_login_locks_after_the_limit_and_unlocks_after_the_cool_off(lead):
    client = Client()
    for _ in range(LIMIT - 1):
        assert log_in(client, "guess") == 200  # the form again, with its error
    assert log_in(client, PASSWORD) == 302  # under the limit the right password still works
    client = Client()
    for _ in range(LIMIT):
        log_in(client, "guess")
    assert log_in(client, PASSWORD) == 429  # locked: even the right password is refused
    assert "_auth_user_id" not in client.session

    # the cool-off passes (the attempts' clock is moved back rather than waiting)
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert log_in(client, PASSWORD) == 302
    assert client.session["_auth_user_id"] == str(lead.pk)


@override_settings(AXES_FAILURE_LIMIT=LIMIT)
def test_a_lockout_is_per_user_name(lead):
    get_user_model().objects.create_superuser("other", "other@example.org", PASSWORD)
    client = Client()
    for _ in range(LIMIT):
        log_in(client, "guess")
    assert log_in(client, PASSWORD) == 429
    response = client.post("/admin/login/?next=/admin/", {"username": "other", "password": PASSWORD})
    assert response.status_code == 302


@override_settings(AXES_FAILURE_LIMIT=LIMIT)
def test_api_basic_auth_guessing_is_limited_too(lead):
    import base64

    def api(password: str) -> int:
        token = base64.b64encode(f"lead:{password}".encode()).decode()
        return Client().get("/api/projects/", HTTP_AUTHORIZATION=f"Basic {token}").status_code

    assert api(PASSWORD) == 200
    for _ in range(LIMIT):
        assert api("guess") in (401, 403)
    assert api(PASSWORD) in (401, 403, 429)


@override_settings(AXES_FAILURE_LIMIT=LIMIT, AXES_COOLOFF_TIME=timedelta(minutes=15))
def test_a_locked_out_api_login_is_told_the_account_is_locked(lead):
    import base64

    def api(password: str):
        token = base64.b64encode(f"lead:{password}".encode()).decode()
        return Client().get("/api/projects/", HTTP_AUTHORIZATION=f"Basic {token}")

    for _ in range(LIMIT - 1):
        wrong = api("guess")
        assert wrong.status_code in (401, 403) and "locked" not in wrong.json()["detail"]
    for password in ("guess", PASSWORD):  # the attempt that locks it, then the right password
        locked = api(password)
        assert locked.status_code == 403, locked
        assert locked.json()["detail"].startswith("This account is locked") and "15 minutes" in locked.json()["detail"]
    assert log_in(Client(), PASSWORD) == 429  # the admin login keeps axes' own answer
