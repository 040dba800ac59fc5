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
