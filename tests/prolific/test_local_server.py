"""What the local endpoint answers on the wire (without the client): auth, error bodies,
both pagination styles, the admin API, and the command line with state kept in a file."""

import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from annotation import prolific

from .conftest import admin, api_raw, draft, published, take_part

ROOT = Path(__file__).resolve().parents[2]


def test_missing_and_wrong_tokens_get_401_with_prolific_error_body(server):
    status, body = api_raw(server, "GET", "/api/v1/users/me/")
    assert status == 401
    assert body == {
        "error": {
            "status": 401,
            "error_code": 140100,
            "title": "Unauthorized",
            "detail": "Authentication credentials were not provided.",
        }
    }
    status, body = api_raw(server, "GET", "/api/v1/users/me/", token="nope")
    assert (status, body["error"]["detail"]) == (401, "Invalid token.")


def test_unknown_routes_and_methods(server):
    assert api_raw(server, "GET", "/api/v1/users/me", token=server.token)[0] == 404
    assert api_raw(server, "DELETE", "/api/v1/users/me/", token=server.token)[0] == 405


def test_a_body_that_is_not_json_is_a_400(server):
    request = urllib.request.Request(
        server.url + "/api/v1/studies/",
        data=b"{nope",
        method="POST",
        headers={"Authorization": f"Token {server.token}"},
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=10)
    assert caught.value.code == 400
    assert json.loads(caught.value.read())["error"]["detail"] == "JSON parse error."


def test_page_and_limit_offset_pagination(client, server):
    study = published(client, places=3)
    ids = [take_part(server, study.id, f"P{n}") for n in range(3)]
    path = f"/api/v1/studies/{study.id}/submissions/?limit=2&offset=0"
    status, body = api_raw(server, "GET", path, token=server.token)
    assert status == 200 and [r["id"] for r in body["results"]] == ids[:2]
    assert body["meta"] == {"count": 3}
    assert body["_links"]["next"]["href"].endswith(f"/api/v1/studies/{study.id}/submissions/?limit=2&offset=2")
    assert body["_links"]["previous"]["href"] is None
    path = f"/api/v1/submissions/?study={study.id}&page=2&page_size=2"
    status, body = api_raw(server, "GET", path, token=server.token)
    assert [r["id"] for r in body["results"]] == ids[2:]
    assert body["_links"]["next"]["href"] is None
    assert body["_links"]["previous"]["href"].endswith(f"?study={study.id}&page=1&page_size=2")
    status, body = api_raw(server, "GET", path.replace("page=2", "page=3"), token=server.token)
    assert (status, body["error"]["detail"]) == (404, "Invalid page.")


def test_list_and_detail_use_prolific_field_names(client, server):
    study = published(client)
    submission_id = take_part(server, study.id, "P1")
    _, listing = api_raw(server, "GET", f"/api/v1/submissions/?study={study.id}", token=server.token)
    assert {"participant_id", "study_code"} <= set(listing["results"][0])
    _, detail = api_raw(server, "GET", f"/api/v1/submissions/{submission_id}/", token=server.token)
    assert (detail["participant"], detail["entered_code"]) == ("P1", "C1DONE")


def test_fault_rules_over_http(server):
    rule = admin(server, "POST", "/_local/faults", {"operation": "get_me", "kind": "5xx", "count": 4, "status": 503})
    assert (rule["kind"], rule["count"], rule["status"]) == ("5xx", 4, 503)
    assert admin(server, "GET", "/_local/faults")[0]["operation"] == "get_me"
    admin(server, "DELETE", "/_local/faults")
    assert admin(server, "GET", "/_local/faults") == []
    state = admin(server, "GET", "/_local/state")
    assert state["completion_url"] == f"{server.url}/submissions/complete"


def _start(db: Path) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "annotation.prolific.local", "--port", "0", "--db", str(db), "--token", "cli-token"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    url = re.search(r"endpoint on (http://\S+) ", line).group(1)
    return process, url


def test_the_command_line_server_keeps_its_state_in_sqlite(tmp_path):
    db = tmp_path / "prolific-local.sqlite3"
    process, url = _start(db)
    try:
        client = prolific.make_client(api_url=url, token="cli-token")
        made = prolific.create_study(client, draft("batch-cli"))
    finally:
        process.terminate()
        process.wait(timeout=10)
    process, url = _start(db)
    try:
        client = prolific.make_client(api_url=url, token="cli-token")
        assert prolific.find_study(client, internal_name="batch-cli").id == made.id
    finally:
        process.terminate()
        process.wait(timeout=10)
