"""`scripts/demo`, the front door, run as a researcher runs it: it starts the local MTurk and
Prolific endpoints and gunicorn, prints the login, publishing the demo's MTurk batch and its
Prolific batch from the admin reaches each endpoint, and a TERM stops all three servers.

It runs in this test run's virtualenv (VENV), on its own SQLite file, ports and state file, so it
touches nothing of a demo you may be running.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import boto3
import pytest
from botocore.config import Config
from django.conf import settings

from tests.mturk.conftest import Browser

PASSWORD = "demo-script-test-pw"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return True
    except OSError:
        return False


def wait_for(check, what: str, seconds: float, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {seconds:.0f} s; scripts/demo printed:\n{log.read_text()[-4000:]}")
        time.sleep(0.25)


class AdminBrowser(Browser):
    """The tests' browser (cookies, redirects) that also sends Django's CSRF token on a post."""

    def post(self, path: str, fields: dict[str, str] | list[tuple[str, str]]):
        token = next(c.value for c in self.jar if c.name == "csrftoken")
        items = list(fields.items()) if isinstance(fields, dict) else list(fields)
        return super().post(path, [*items, ("csrfmiddlewaretoken", token)])


@pytest.fixture
def demo(tmp_path):
    port, mturk_port, prolific_port, llm_port = free_port(), free_port(), free_port(), free_port()
    log = tmp_path / "demo.log"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MTURK_", "PROLIFIC_", "LLM_", "CELERY_", "AWS_"))
        and k not in ("PUBLIC_BASE_URL", "DATABASE_URL")
    }
    env.update(
        VENV=sys.prefix,
        HOST="127.0.0.1",
        PORT=str(port),
        MTURK_PORT=str(mturk_port),
        MTURK_STATE=str(tmp_path / "mturk.sqlite3"),
        PROLIFIC_PORT=str(prolific_port),
        PROLIFIC_STATE=str(tmp_path / "prolific.sqlite3"),
        LLM_PORT=str(llm_port),
        LLM_STATE=str(tmp_path / "llm.sqlite3"),
        DATABASE_URL=f"sqlite:///{tmp_path / 'demo.sqlite3'}",
        STATIC_ROOT=str(tmp_path / "static"),
        DEMO_PASSWORD=PASSWORD,
        WEB_CONCURRENCY="2",
    )
    with log.open("wb") as out:
        process = subprocess.Popen(
            ["bash", "scripts/demo"],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_for(lambda: "Serving on" in log.read_text() and listening(port), "the demo did not serve", 180, log)
        yield {
            "process": process,
            "port": port,
            "mturk_port": mturk_port,
            "prolific_port": prolific_port,
            "llm_port": llm_port,
            "log": log,
        }
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_demo_serves_the_platform_and_the_local_endpoints_and_stops_them_all(demo):
    port, mturk_port, prolific_port, log = demo["port"], demo["mturk_port"], demo["prolific_port"], demo["log"]
    base, mturk = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{mturk_port}"
    prolific = f"http://127.0.0.1:{prolific_port}"
    printed = log.read_text()
    assert "Username:    researcher" in printed and f"Password:    {PASSWORD}" in printed
    assert f"MTurk workers: {mturk}/worker/ (the local MTurk endpoint)" in printed
    assert f"Prolific participants: {prolific}/participant/ (the local Prolific endpoint" in printed

    with urllib.request.urlopen(mturk + "/worker/", timeout=10) as page:
        assert "Local MTurk worker site" in page.read().decode()

    # the researcher publishes the demo's MTurk batch from the admin; the HITs appear on the endpoint
    admin = AdminBrowser(base)
    admin.get("/admin/login/")
    assert (
        "Site administration"
        in admin.post(
            "/admin/login/?next=/admin/", {"username": "researcher", "password": PASSWORD, "next": "/admin/"}
        ).text
    )
    changelist = admin.get("/admin/annotation/batch/").text
    batch_pk = re.search(r'href="/admin/annotation/batch/(\d+)/change/">MTurk demo batch<', changelist).group(1)
    action = {"action": "publish_postings", "_selected_action": batch_pk}
    confirm = admin.post("/admin/annotation/batch/", action).text
    assert re.search(r'id="publish-total">\$2\.40<', confirm)
    done = admin.post("/admin/annotation/batch/", {**action, "post": "yes"}).text
    assert "Publishing “MTurk demo batch”" in done

    requester = boto3.client(
        "mturk",
        region_name="us-east-1",
        endpoint_url=mturk,
        aws_access_key_id="local",
        aws_secret_access_key="local",
        config=Config(retries={"max_attempts": 1}),
    )
    hits = requester.list_hits()["HITs"]
    assert len(hits) == 2 and {h["MaxAssignments"] for h in hits} == {2}
    assert all(f"{base}/mturk/" in h["Question"] for h in hits)

    # and the demo's Prolific batch: gunicorn was given the local endpoint's URL and token, so the study
    # appears there, active, with one place per unit and participant and our study URL
    batch_pk = re.search(r'href="/admin/annotation/batch/(\d+)/change/">Prolific demo batch<', changelist).group(1)
    action = {"action": "publish_postings", "_selected_action": batch_pk}
    assert "Publish to Prolific" in admin.post("/admin/annotation/batch/", action).text
    assert "Publishing “Prolific demo batch”" in admin.post("/admin/annotation/batch/", {**action, "post": "yes"}).text
    request = urllib.request.Request(
        prolific + "/api/v1/studies/", headers={"Authorization": "Token local-prolific-token"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        studies = json.load(answer)["results"]
    assert [(s["status"], s["total_available_places"]) for s in studies] == [("ACTIVE", 4)]
    with urllib.request.urlopen(prolific + "/participant/", timeout=10) as page:
        assert studies[0]["id"] in page.read().decode()  # the simulator offers it

    # the local model endpoint answers as an OpenAI-compatible server
    with urllib.request.urlopen(f"http://127.0.0.1:{demo['llm_port']}/v1/models", timeout=10) as answer:
        assert "local-model" in {model["id"] for model in json.load(answer)["data"]}

    # a TERM (like Ctrl-C) stops the script and the four servers
    os.kill(demo["process"].pid, signal.SIGTERM)
    demo["process"].wait(timeout=60)
    servers = (port, mturk_port, prolific_port, demo["llm_port"])
    wait_for(lambda: not any(listening(p) for p in servers), "the servers did not stop", 30, log)


@pytest.mark.parametrize(
    "state",
    ["mturk-local.sqlite3", "prolific-local.sqlite3", "prolific-local.sqlite3-journal", "llm-local.sqlite3-wal"],
)
def test_the_demo_endpoints_state_files_are_ignored_by_git(state):
    """The demo writes them in the clone; `git status` must not offer them for a commit."""
    root = Path(settings.BASE_DIR)
    ignored = subprocess.run(["git", "check-ignore", "--quiet", state], cwd=root, check=False)
    assert ignored.returncode == 0, f"{state} is not in .gitignore"
