"""Issue 37: time on task cannot be dodged. A page's save whose `shown` token is missing,
malformed, expired or another response's is refused, as a `min_seconds` page refuses it, and
nothing is stored; the page's own token saves the answer with its time."""

from __future__ import annotations

import time

import pytest

from annotation.models import Response
from surveys import flow
from tests.surveys.test_recam_flow import form_fields, invite, join  # noqa: F401  (fixture)

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
