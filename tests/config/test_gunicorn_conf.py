"""deploy/gunicorn.conf.py: the app is loaded once in the master and shared by the forked workers
(GUNICORN_PRELOAD), with Python's gc.freeze recipe around the fork."""

import gc
import runpy
from pathlib import Path

import pytest

CONF = Path(__file__).resolve().parents[2] / "deploy" / "gunicorn.conf.py"


@pytest.fixture
def collector_restored():
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    (gc.enable if enabled else gc.disable)()


def test_the_master_preloads_the_app_by_default_and_freezes_it_before_each_fork(monkeypatch, collector_restored):
    monkeypatch.delenv("GUNICORN_PRELOAD", raising=False)
    conf = runpy.run_path(str(CONF))
    assert conf["preload_app"] is True and conf["worker_class"] == "sync"
    assert not gc.isenabled()  # no collections while the master loads what the workers share
    conf["pre_fork"](None, None)
    assert gc.get_freeze_count() > 0
    conf["post_fork"](None, None)
    assert gc.isenabled()  # the worker collects what its requests make


@pytest.mark.parametrize("value", ["false", "0", "no"])
def test_preloading_can_be_switched_off(monkeypatch, collector_restored, value):
    monkeypatch.setenv("GUNICORN_PRELOAD", value)
    gc.enable()
    conf = runpy.run_path(str(CONF))
    assert conf["preload_app"] is False and gc.isenabled()


def test_the_request_limits_are_stated_and_a_worker_memory_limit_is_set_after_the_fork(monkeypatch, collector_restored):
    """Issue 37: the limits deploy/README.md lists are set in the files."""
    monkeypatch.setenv("GUNICORN_WORKER_MAX_MEMORY_MB", "4096")
    calls = []
    conf = runpy.run_path(str(CONF))
    assert (conf["timeout"], conf["max_requests"]) == (60, 20000)
    assert (conf["limit_request_line"], conf["limit_request_field_size"], conf["limit_request_fields"]) == (
        4094,
        8190,
        100,
    )
    monkeypatch.setattr(conf["resource"], "setrlimit", lambda which, limits: calls.append((which, limits)))
    conf["post_fork"](None, None)
    assert calls == [(conf["resource"].RLIMIT_AS, (4096 * 1024 * 1024, 4096 * 1024 * 1024))]
    deploy = CONF.parent
    nginx = (deploy / "nginx.conf").read_text()
    assert "client_max_body_size 200m;" in nginx and "client_body_timeout 60s;" in nginx
    unit = (deploy / "annotation-web.service").read_text()
    assert "MemoryHigh=2560M" in unit and "MemoryMax=3584M" in unit  # from bench/worker_memory.py's figures
    assert "mem_limit: 3584m" in (deploy / "compose.yaml").read_text()
    example = (deploy / "env.example").read_text()
    assert "GUNICORN_WORKER_MAX_MEMORY_MB=2560" in example and "WEB_CONCURRENCY=2" in example
    for name in (
        "DATA_UPLOAD_MAX_MEMORY_SIZE",
        "FILE_UPLOAD_MAX_MEMORY_SIZE",
        "GUNICORN_TIMEOUT",
        "client_max_body_size",
    ):
        assert name in (deploy / "README.md").read_text()
