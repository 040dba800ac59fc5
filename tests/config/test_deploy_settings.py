"""Deployment settings come from the environment: the documented production environment
(deploy/env.example) passes `manage.py check --deploy` without a warning, and a plain-HTTP or
DEBUG site keeps Django's defaults (the demo on http://127.0.0.1:8000 still works)."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENV_EXAMPLE = ROOT / "deploy" / "env.example"
SECURE = [
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
]


def documented_environment() -> dict[str, str]:
    """deploy/env.example's assignments, with a real secret in place of its placeholder."""
    values = {}
    for line in ENV_EXAMPLE.read_text().splitlines():
        if line and not line.startswith("#") and "=" in line:
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    values["SECRET_KEY"] = secrets.token_urlsafe(50)
    return values


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """A fresh interpreter, so the settings module reads exactly `env` (nothing of this process)."""
    base = {"PATH": os.environ.get("PATH", ""), "DJANGO_SETTINGS_MODULE": "config.settings"}
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env={**base, **env}, capture_output=True, text=True, timeout=120, check=False
    )


def settings_under(env: dict[str, str]) -> dict:
    names = SECURE + ["SECURE_HSTS_SECONDS", "SECURE_PROXY_SSL_HEADER", "X_FRAME_OPTIONS"]
    code = (
        "import django, json; django.setup(); from django.conf import settings; "
        f"print(json.dumps({{n: getattr(settings, n) for n in {names!r}}}))"
    )
    result = run(["-c", code], env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_check_deploy_passes_with_the_documented_environment():
    result = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], documented_environment())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
    assert "WARNINGS" not in result.stdout + result.stderr


def test_an_https_site_is_secure_by_default():
    values = settings_under(
        {"SECRET_KEY": secrets.token_urlsafe(50), "DEBUG": "false", "PUBLIC_BASE_URL": "https://annotation.example.org"}
    )
    assert all(values[name] is True for name in SECURE), values
    assert values["SECURE_HSTS_SECONDS"] >= 31536000
    assert values["SECURE_PROXY_SSL_HEADER"] is None  # only when told a proxy overwrites the header
    assert values["X_FRAME_OPTIONS"] == "DENY"


def test_behind_an_https_proxy_the_forwarded_scheme_is_trusted():
    values = settings_under({"PUBLIC_BASE_URL": "https://a.example.org", "BEHIND_HTTPS_PROXY": "true"})
    assert values["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]


@pytest.mark.parametrize(
    "env",
    [
        {"PUBLIC_BASE_URL": "http://127.0.0.1:8000"},
        {"PUBLIC_BASE_URL": "https://annotation.example.org", "DEBUG": "true"},
    ],
)
def test_plain_http_and_debug_keep_djangos_defaults(env):
    values = settings_under(env)
    assert not any(values[name] for name in SECURE), values
    assert values["SECURE_HSTS_SECONDS"] == 0


def test_each_setting_can_be_overridden():
    values = settings_under(
        {
            "PUBLIC_BASE_URL": "https://a.example.org",
            "SECURE_SSL_REDIRECT": "false",
            "SECURE_HSTS_SECONDS": "600",
            "SECURE_HSTS_PRELOAD": "false",
        }
    )
    assert values["SECURE_SSL_REDIRECT"] is False and values["SECURE_HSTS_PRELOAD"] is False
    assert values["SECURE_HSTS_SECONDS"] == 600 and values["SESSION_COOKIE_SECURE"] is True
