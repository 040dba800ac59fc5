"""A real Label Studio (the version scripts/label_studio_env.sh installs in .venv-label-studio/)
started on a free port with SQLite in a temporary folder, an admin made non-interactively
(`label-studio start --username --password --user-token`), and a small client of its REST API.
`missing()` says why it cannot run (None: it can)."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("LABEL_STUDIO_VENV", ROOT / ".venv-label-studio"))
VERSION = "1.23.2"
ADMIN = "admin@example.org"


def missing() -> str | None:
    """Why the real Label Studio cannot be started here; None when it can."""
    binary = VENV / "bin" / "label-studio"
    if not binary.exists():
        return f"no Label Studio at {binary} (run scripts/label_studio_env.sh)"
    stamp = VENV / ".installed-label-studio"
    installed = stamp.read_text().strip() if stamp.exists() else "unknown"
    if installed != VERSION:
        return f"{VENV} holds Label Studio {installed}, not {VERSION} (run scripts/label_studio_env.sh)"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LabelStudio:
    """The REST API of one running Label Studio, as its admin (a legacy API token)."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {token}"

    def call(self, method: str, path: str, expect: int = 200, **kwargs: Any) -> Any:
        reply = self.session.request(method, f"{self.url}{path}", timeout=120, **kwargs)
        assert reply.status_code == expect, f"{method} {path}: {reply.status_code} {reply.text[:2000]}"
        return reply.json() if reply.content else None

    def project(self, title: str, config: str) -> int:
        return int(self.call("POST", "/api/projects/", 201, json={"title": title, "label_config": config})["id"])

    def import_tasks(self, project: int, tasks: bytes, expect: int = 201) -> Any:
        """Import a JSON file as the Import page does (a file upload, committed at once)."""
        files = {"file": ("tasks.json", tasks, "application/json")}
        return self.call("POST", f"/api/projects/{project}/import?commit_to_project=true", expect, files=files)

    def user(self, email: str) -> int:
        """The account of this e-mail, made in the admin's organisation (as an admin adds a person)
        unless there is one."""
        known = {mail: pk for pk, mail in self.users().items()}
        if email in known:
            return known[email]
        found = self.call("POST", "/api/users/", 201, json={"email": email, "username": email.split("@")[0]})
        return int(found["id"])

    def users(self) -> dict[int, str]:
        return {u["id"]: u["email"] for u in self.call("GET", "/api/users/")}

    def export(self, project: int, export_type: str = "JSON", **params: Any) -> bytes:
        """The project's export as the Export page's download gives it (GET .../export)."""
        reply = self.session.get(
            f"{self.url}/api/projects/{project}/export",
            params={"exportType": export_type, **params},
            timeout=120,
        )
        assert reply.status_code == 200, f"export {export_type}: {reply.status_code} {reply.text[:2000]}"
        return reply.content

    def snapshot(self, project: int, options: dict[str, Any] | None = None) -> bytes:
        """A snapshot export (POST .../exports/, then its download): predictions in full."""
        body = {"title": "snapshot", "serialization_options": options or {}}
        made = self.call("POST", f"/api/projects/{project}/exports/", 201, json=body)
        for _ in range(120):
            state = self.call("GET", f"/api/projects/{project}/exports/{made['id']}")
            if state["status"] == "completed":
                break
            assert state["status"] != "failed", state
            time.sleep(0.5)
        reply = self.session.get(
            f"{self.url}/api/projects/{project}/exports/{made['id']}/download",
            params={"exportType": "JSON"},
            timeout=120,
        )
        assert reply.status_code == 200, reply.text[:2000]
        return reply.content

    def tasks(self, project: int) -> list[dict[str, Any]]:
        """Every task of the project with its annotations and predictions in full."""
        return self.call("GET", f"/api/tasks/?project={project}&page_size=1000&fields=all")["tasks"]

    def annotate(self, task: int, result: list[dict[str, Any]], lead_time: float = 12.5) -> int:
        made = self.call(
            "POST", f"/api/tasks/{task}/annotations/", 201, json={"result": result, "lead_time": lead_time}
        )
        return int(made["id"])

    def predict(self, task: int, result: list[dict[str, Any]], model_version: str, score: float | None) -> int:
        body = {"task": task, "result": result, "model_version": model_version, "score": score}
        return int(self.call("POST", "/api/predictions/", 201, json=body)["id"])


@contextmanager
def running(folder: Path) -> Iterator[LabelStudio]:
    """Label Studio on a free port with its SQLite database and files in `folder`; stopped after."""
    port, token = _free_port(), secrets.token_hex(20)
    env = {
        **os.environ,
        "LABEL_STUDIO_BASE_DATA_DIR": str(folder),
        "DJANGO_DB": "sqlite",
        "LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK": "true",
        "SENTRY_DSN": "",
        "FRONTEND_SENTRY_DSN": "",
        "COLLECT_ANALYTICS": "false",
        "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN": "true",
        "LATEST_VERSION_CHECK": "false",
    }
    env.pop("DATABASE_URL", None)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    command = [
        str(VENV / "bin" / "label-studio"),
        "start",
        "--no-browser",
        "--port",
        str(port),
        "--data-dir",
        str(folder),
        "--username",
        ADMIN,
        "--password",
        secrets.token_hex(12),
        "--user-token",
        token,
        "--enable-legacy-api-token",
    ]
    log = (folder / "label-studio.log").open("wb")
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=folder)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait(process, url, folder / "label-studio.log")
        yield LabelStudio(url, token)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def _wait(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    for _ in range(1200):
        if process.poll() is not None:
            raise RuntimeError(f"Label Studio exited ({process.returncode}): {log.read_text()[-3000:]}")
        try:
            if requests.get(f"{url}/health", timeout=10).status_code == 200:
                return
        except requests.RequestException:  # not listening yet, or busy migrating
            pass
        time.sleep(0.5)
    raise RuntimeError(f"Label Studio did not answer on {url} in 600 s: {log.read_text()[-3000:]}")
