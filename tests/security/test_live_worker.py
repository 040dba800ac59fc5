"""Issue 37: the alias bomb and 20,000-deep nesting sent to a live gunicorn worker (deploy/
gunicorn.conf.py, one sync worker) as a task file are answered 400 with the line named, and the
same worker answers the next request: it was never killed for a timeout nor restarted. Speed
itself is measured by bench/, not asserted here."""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from tests import worker
from tests.factories import TeamFactory
from tests.security.hostile import alias_bomb, deep_yaml

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "live-worker-pw-37"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def post(port: int, body: dict | str) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/projects/",
        data=(body if isinstance(body, str) else json.dumps(body)).encode(),
        headers={
            "Content-Type": "application/json",
            "Authorization": "Basic " + base64.b64encode(f"boss:{PASSWORD}".encode()).decode(),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as answer:
        return answer.code, json.loads(answer.read())


@pytest.fixture
def server(tmp_path: Path):
    get_user_model().objects.create_superuser("boss", "boss@example.org", PASSWORD)
    TeamFactory()
    port, log = free_port(), tmp_path / "gunicorn.log"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": worker.test_database_url(),
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "1",
        "GUNICORN_TIMEOUT": "20",
    }
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--config", "deploy/gunicorn.conf.py", "config.wsgi:application"],
            cwd=worker.ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while "Booting worker" not in log.read_text():
            assert process.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.2)
        yield port, log
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_alias_bomb_and_deep_nesting_are_a_400_and_the_worker_lives_on(server):
    port, log = server
    status, body = post(port, {"name": "bomb", "task_file": alias_bomb()})
    assert status == 400 and any("line 2, l1[0]: an alias (*a0)" in p for p in body["task_file"]), body
    status, body = post(port, {"name": "deep", "task_file": deep_yaml()})
    assert status == 400 and any("nested more than 64 levels deep" in p for p in body["task_file"]), body
    status, body = post(port, '{"name": "deep body", "settings": ' + "[" * 20_000 + "]" * 20_000 + "}")
    assert status == 400 and "line 1, settings: nested more than 64 levels deep" in body["detail"], body
    printed = log.read_text()
    assert "WORKER TIMEOUT" not in printed and "SIGKILL" not in printed and "Traceback" not in printed, printed
    assert printed.count("Booting worker") == 1, printed  # the one worker was never replaced
