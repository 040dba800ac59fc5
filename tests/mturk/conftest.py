"""The local MTurk endpoint on a free port for each test, a boto3 client pointed at it, and
small HTTP helpers (admin API, a worker's browser with cookies). Nothing is stubbed: boto3
and botocore send real HTTP requests to a real server."""

from __future__ import annotations

import http.cookiejar
import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

import pytest

from annotation import mturk
from annotation.mturk.local import LocalMTurkServer


@pytest.fixture
def server():
    with LocalMTurkServer(balance="100.00") as running:
        yield running


@pytest.fixture
def mturk_client(server):
    return mturk.make_client("local", local_url=server.url, max_attempts=3)


def admin(server: LocalMTurkServer, method: str, path: str, body: dict | None = None) -> Any:
    """Call the admin API; returns the decoded JSON (raises HTTPError on 4xx/5xx)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        server.url + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def api_raw(server: LocalMTurkServer, operation: str, body: bytes | dict) -> tuple[int, dict]:
    """A requester API call without boto3 (to see exactly what the server answers)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(
        server.url + "/",
        data=data,
        method="POST",
        headers={
            "Content-Type": "application/x-amz-json-1.1",
            "X-Amz-Target": f"MTurkRequesterServiceV20170117.{operation}",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@dataclass
class Response:
    status: int
    url: str
    text: str


class Browser:
    """A worker's browser: keeps cookies, follows redirects, never raises on 4xx."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, path: str) -> Response:
        return self._open(urllib.request.Request(self._url(path)))

    def post(self, path: str, fields: dict[str, str] | list[tuple[str, str]]) -> Response:
        data = urllib.parse.urlencode(fields).encode()
        return self._open(urllib.request.Request(self._url(path), data=data, method="POST"))

    def sign_in(self, worker_id: str) -> Response:
        return self.post("/worker/login", {"workerId": worker_id})

    def _url(self, path: str) -> str:
        return path if path.startswith("http") else self.base_url + path

    def _open(self, request: urllib.request.Request) -> Response:
        try:
            with self.opener.open(request, timeout=10) as response:
                return Response(response.status, response.url, response.read().decode())
        except urllib.error.HTTPError as exc:
            return Response(exc.code, exc.url, exc.read().decode())


class _Frames(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.srcs: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "iframe":
            self.srcs.append(dict(attrs)["src"])  # HTMLParser unescapes attribute values


def iframe_params(page_html: str) -> tuple[str, dict[str, str]]:
    """The only iframe's URL (without query) and its query parameters."""
    parser = _Frames()
    parser.feed(page_html)
    assert len(parser.srcs) == 1, parser.srcs
    parts = urllib.parse.urlsplit(parser.srcs[0])
    return (
        f"{parts.scheme}://{parts.netloc}{parts.path}",
        dict(urllib.parse.parse_qsl(parts.query, keep_blank_values=True)),
    )


def make_hit(
    mturk_client,
    *,
    max_assignments: int = 3,
    token: str = "tok-1",
    requirements=(),
    url: str = "https://annotate.example.org/mturk/?project=7&batch=2",
    title: str = "Read a passage",
    reward: str = "0.50",
    duration: int = 600,
    annotation: str = "unit:1",
) -> mturk.Hit:
    hit_type = mturk.create_hit_type(
        mturk_client,
        title=title,
        description="Answer questions about a passage",
        reward=reward,
        assignment_duration_seconds=duration,
        auto_approval_delay_seconds=3600,
        keywords="reading, nlp",
        qualification_requirements=list(requirements),
    )
    return mturk.create_hit_with_type(
        mturk_client,
        hit_type_id=hit_type.hit_type_id,
        question_xml=mturk.external_question_xml(url, 800),
        lifetime_seconds=3600,
        max_assignments=max_assignments,
        unique_request_token=token,
        requester_annotation=annotation,
    )
