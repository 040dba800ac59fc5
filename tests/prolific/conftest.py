"""The local Prolific endpoint on a free port for each test, the real client pointed at it,
and small HTTP helpers (admin API, a participant's browser with cookies). Nothing is stubbed:
the client sends real HTTP requests to a real server."""

from __future__ import annotations

import http.cookiejar
import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

import pytest

from annotation import prolific
from annotation.prolific.local import LocalProlificServer

TASK_URL = "https://annotate.example.org/prolific/"
REJECTION = (
    "Your answers did not follow the instructions given at the start of the task: "
    "most items were left at their default value."
)


@pytest.fixture
def server():
    with LocalProlificServer(balance=100_000) as running:
        yield running


@pytest.fixture
def client(server):
    return prolific.make_client(api_url=server.url, token=server.token, max_retries=3, backoff_factor=0.01)


def admin(server: LocalProlificServer, method: str, path: str, body: dict | None = None) -> Any:
    """Call the admin API; returns the decoded JSON (raises HTTPError on 4xx/5xx)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        server.url + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def api_raw(
    server: LocalProlificServer, method: str, path: str, *, token: str | None = None, body: dict | None = None
) -> tuple[int, Any]:
    """An API call without the client, to see exactly what the server answers."""
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Token {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(server.url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def calls(server: LocalProlificServer, operation: str) -> list[int]:
    """The statuses the server answered to ``operation`` (0 = answer lost), in order."""
    return [r["status"] for r in admin(server, "GET", f"/_local/requests?operation={operation}")]


def draft(internal_name: str = "batch-1", *, places: int = 3, reward: int = 150, **changes: Any) -> prolific.StudyDraft:
    values = dict(
        name="Read a passage and answer",
        internal_name=internal_name,
        description="Answer questions about short passages.",
        external_study_url=prolific.external_study_url(TASK_URL, batch="1"),
        total_available_places=places,
        reward=reward,
        estimated_completion_time=10,
        completion_codes=tuple(prolific.standard_codes("C1DONE", "C2FAIL")),
        device_compatibility=("desktop",),
    )
    return prolific.StudyDraft(**{**values, **changes})


def published(client, name: str = "batch-1", **changes: Any) -> prolific.Study:
    study = prolific.create_study_once(client, draft(name, **changes))
    return prolific.publish_study(client, study.id)


def take_part(server, study_id: str, participant_id: str, code: str | None = "C1DONE") -> str:
    """A participant starts the study (and comes back with ``code``); the submission id."""
    started = admin(server, "POST", "/_local/start", {"study_id": study_id, "participant_id": participant_id})
    if code is not None:
        admin(server, "POST", "/_local/complete", {"submission_id": started["id"], "code": code})
    return started["id"]


@dataclass
class Response:
    status: int
    url: str
    text: str
    location: str = ""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Browser:
    """A participant's browser: keeps cookies, does not follow redirects (the study URL is
    the platform's, not served here), never raises on 4xx."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect())

    def get(self, path: str) -> Response:
        return self._open(urllib.request.Request(self._url(path)))

    def post(self, path: str, fields: dict[str, str]) -> Response:
        data = urllib.parse.urlencode(fields).encode()
        return self._open(urllib.request.Request(self._url(path), data=data, method="POST"))

    def _url(self, path: str) -> str:
        return path if path.startswith("http") else self.base_url + path

    def _open(self, request: urllib.request.Request) -> Response:
        try:
            with self.opener.open(request, timeout=10) as response:
                return Response(response.status, response.url, response.read().decode())
        except urllib.error.HTTPError as exc:
            return Response(exc.code, exc.url, exc.read().decode(), exc.headers.get("Location") or "")
