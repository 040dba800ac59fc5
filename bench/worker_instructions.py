"""Benchmark 5: CPU instructions a real gunicorn worker spends on an annotator request (callgrind).

`instructions.py` counts the app alone, through Django's WSGI handler in one process. This
counts what a production worker does for the same walk: gunicorn (deploy/gunicorn.conf.py, one
sync worker) runs under valgrind's callgrind, annotators join by invite link and answer pages
over HTTP (`X-Page-Swap`, a reload every 7 saves), and the worker's instructions are counted for
the measured requests only (`callgrind_control --zero` after the warm-up, `--dump` after): the
app plus gunicorn's HTTP parsing, access log and response writing. The database server's work
is not counted. `--root` points the server at another checkout (an A/B of two versions of the
app with the same client).

    python bench/worker_instructions.py                      # about 6 minutes
    python bench/worker_instructions.py --root ../other-checkout

Needs valgrind (Debian: apt-get install valgrind) and PostgreSQL.
"""
from __future__ import annotations

import argparse
import glob
import http.client
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse

import common
from bench_annotate import setup_data
from instructions import ONE_UNIT_EACH, _Browser, _total, counted_walk
from server import free_port


class HttpAnnotator(_Browser):
    """`instructions._Browser`'s walk (join by the invite link, answer, a reload every 7 saves)
    over HTTP: one connection a request, as the sync worker closes each."""

    def __init__(self, port: int):
        super().__init__(app=None)
        self.port = port

    def call(self, method: str, path: str, form: dict | None = None, headers: dict | None = None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        sent = dict(headers or {})
        if form:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        connection.request(method, path, body=urllib.parse.urlencode(form) if form else None, headers=sent)
        answer = connection.getresponse()
        text = answer.read().decode()
        for key, value in answer.getheaders():
            if key.lower() == "set-cookie":
                cookie, _, rest = value.partition("=")
                self.cookies[cookie.strip()] = rest.split(";", 1)[0]
        connection.close()
        return answer.status, dict(answer.getheaders()), text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=ONE_UNIT_EACH,
                        help="saves counted (plus the reloads among them); default: a unit for each annotator")
    parser.add_argument("--warmup", type=int, default=150, help="saves before counting starts")
    parser.add_argument("--root", default=str(common.ROOT), help="the checkout whose app the server runs")
    args = parser.parse_args()
    if not subprocess.run(["which", "valgrind"], capture_output=True).returncode == 0:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    root = os.path.abspath(args.root)
    name = f"worker_instructions_{os.getpid()}"
    url = common.database_create("postgres", name)
    server = None
    with tempfile.TemporaryDirectory(prefix="bench-worker-callgrind-") as tmp:
        try:
            common.django_setup(url)
            from django.db import connections

            _, _, invite = setup_data(600, 5, 3)
            connections.close_all()
            port = free_port(8799)
            env = common.server_env(url, WEB_CONCURRENCY="1", GUNICORN_MAX_REQUESTS="0", PYTHONHASHSEED="0",
                                    GUNICORN_WORKER_CLASS="config.gunicorn_workers.StreamingSyncWorker")
            with open(os.path.join(tmp, "server.log"), "w") as log:
                server = subprocess.Popen(
                    ["valgrind", "--tool=callgrind", "--trace-children=yes", f"--callgrind-out-file={tmp}/callgrind.%p.out",
                     sys.executable, "-m", "gunicorn", "--config", os.path.join(root, "deploy", "gunicorn.conf.py"),
                     "--bind", f"127.0.0.1:{port}", "config.wsgi:application"],
                    cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
            _wait_until_up(port)
            worker = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True, text=True).stdout.split()[0]
            requests = counted_walk([HttpAnnotator(port) for _ in range(4)], invite.token, warmup=args.warmup,
                                    requests=args.requests, pid=int(worker))
            time.sleep(1)
            dumps = sorted(glob.glob(os.path.join(tmp, f"callgrind.{worker}.out.*")), key=os.path.getmtime)
            total = _total(dumps[-1])
        finally:
            if server is not None:
                server.terminate()
                try:
                    server.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    server.kill()
            from django.db import connections

            connections.close_all()
            common.database_drop("postgres", name)
    result = {"benchmark": "worker_instructions", "db": "postgres", "root": root, "requests": requests,
              "instructions": total, "instructions_per_request": total / requests, "machine": common.machine()}
    print(f"gunicorn worker instructions: {total / requests:,.0f} a request ({requests} requests, a reload every 7 "
          f"saves; app of {root}; database server not counted)")
    common.save_result("worker_instructions", result)
    common.emit(result)


def _wait_until_up(port: int, timeout: float = 600) -> None:
    """valgrind starts Python 30-50 times slower: wait for the login page."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            connection.request("GET", "/admin/login/")
            connection.getresponse().read()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


if __name__ == "__main__":
    main()
