"""Benchmark 4: CPU instructions an annotator request costs the app, counted by callgrind.

Throughput and latency on a shared 2-core virtual machine move by a third between identical
runs (bench/README.md): the machine itself runs faster or slower. An instruction count does not
move (the same walk twice: within 0.3 %), so a change of a few percent in the app's own work
shows. This runs the annotator walk of bench_annotate.py in one process, through Django's WSGI
handler (no gunicorn, no sockets): 16 annotators join by the invite link, then answer pages in
turn (`X-Page-Swap`, a reload every 7 saves), and callgrind counts the instructions of the
measured requests only (the set-up, imports and warm-up are not counted: the counters are zeroed
before and dumped after, with callgrind_control). The database server's own work is not counted
(PostgreSQL runs in its own processes); SQLite's is, as it runs in this process.

    python bench/instructions.py --db postgres            # about 3 minutes: valgrind runs it 30-50x slower
    python bench/instructions.py --db sqlite --requests 1120

Needs valgrind (Debian: apt-get install valgrind).
"""
from __future__ import annotations

import argparse
import glob
import io
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

import common
from bench_annotate import FIELD, SWAP, VirtualAnnotator, hidden_fields, setup_data

UNDER_VALGRIND = "BENCH_UNDER_CALLGRIND"
#: saves counted by default: a unit (5 items x 7 pages) for each of the 16 annotators, so the
#: requests come in their real shares, a unit's hand-out to each annotator included (200 saves
#: after 300 of warm-up held no hand-out, and missed the costliest save)
ONE_UNIT_EACH = 16 * 5 * 7


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="postgres")
    parser.add_argument("--requests", type=int, default=ONE_UNIT_EACH,
                        help="saves counted (plus the reloads among them); default: a unit for each annotator")
    parser.add_argument("--warmup", type=int, default=300, help="saves before counting starts")
    args = parser.parse_args()
    if os.environ.get(UNDER_VALGRIND):
        return walk(args)
    if not shutil.which("valgrind"):
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="bench-callgrind-") as tmp:
        out = os.path.join(tmp, "callgrind.%p.out")
        env = {**os.environ, UNDER_VALGRIND: "1", "PYTHONHASHSEED": "0"}  # the same answers every run
        run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
                              __file__, *sys.argv[1:]], env=env, capture_output=True, text=True)
        counted = [line for line in run.stdout.splitlines() if line.startswith("COUNTED ")]
        if run.returncode or not counted:
            sys.exit(f"the walk failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")
        requests = int(counted[-1].split()[1])
        dumps = sorted(glob.glob(os.path.join(tmp, "callgrind.*.out.*")))  # the dump after the counted part
        total = _total(dumps[-1])
    result = {"benchmark": "instructions", "db": args.db, "requests": requests, "instructions": total,
              "instructions_per_request": total / requests, "machine": common.machine()}
    print(f"instructions on {args.db}: {total / requests:,.0f} a request ({requests} requests, a reload every "
          f"7 saves; database server not counted)")
    common.save_result("instructions", result)
    common.emit(result)


def _total(dump: str) -> int:
    with open(dump) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise ValueError(f"no totals in {dump}")


def walk(args: argparse.Namespace) -> None:
    """Inside valgrind: set up, warm up, count `args.requests` saves, dump."""
    name = f"instructions_{os.getpid()}"
    url = common.database_create(args.db, name)
    try:
        common.django_setup(url)
        from django.core.handlers.wsgi import WSGIHandler
        from django.db import connections

        _, _, invite = setup_data(600, 5, 3)
        app = WSGIHandler()
        count = counted_walk([_Browser(app) for _ in range(16)], invite.token, warmup=args.warmup,
                             requests=args.requests, pid=os.getpid())
        print(f"COUNTED {count}", flush=True)
        connections.close_all()
    finally:
        common.database_drop(args.db, name)


def counted_walk(crowd: list["_Browser"], token: str, *, warmup: int, requests: int, pid: int) -> int:
    """The crowd joins by the invite link and saves in turn: `warmup` saves, then `requests`
    saves counted by the callgrind of process `pid` (zeroed before, dumped after). The requests
    counted (saves and the reloads among them)."""
    for browser in crowd:
        browser.join(token)

    def saves(n: int) -> int:
        return sum(crowd[i % len(crowd)].save() for i in range(n))

    saves(warmup)
    subprocess.run(["callgrind_control", "--zero", str(pid)], check=True, capture_output=True)
    count = saves(requests)
    subprocess.run(["callgrind_control", "--dump", str(pid)], check=True, capture_output=True)
    return count


class _Browser:
    """One annotator's cookies and current page, talking to the WSGI app directly."""

    def __init__(self, app):
        self.app, self.cookies, self.page, self.work, self.saved = app, {}, "", "", 0

    def call(self, method: str, path: str, form: dict | None = None, headers: dict | None = None):
        body = urllib.parse.urlencode(form).encode() if form else b""
        environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1",
                   "SERVER_PORT": "8765", "HTTP_HOST": "127.0.0.1:8765", "REMOTE_ADDR": "127.0.0.1",
                   "wsgi.input": io.BytesIO(body), "wsgi.url_scheme": "http", "wsgi.errors": sys.stderr,
                   "CONTENT_LENGTH": str(len(body))}
        if form:
            environ["CONTENT_TYPE"] = "application/x-www-form-urlencoded"
        if self.cookies:
            environ["HTTP_COOKIE"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        for key, value in (headers or {}).items():
            environ["HTTP_" + key.upper().replace("-", "_")] = value
        answer: dict = {}

        def start_response(status, response_headers, exc_info=None):
            answer["status"], answer["headers"] = int(status[:3]), response_headers

        chunks = self.app(environ, start_response)
        text = b"".join(chunks).decode()
        getattr(chunks, "close", lambda: None)()
        for key, value in answer["headers"]:
            if key.lower() == "set-cookie":
                cookie, _, rest = value.partition("=")
                self.cookies[cookie.strip()] = rest.split(";", 1)[0]
        return answer["status"], dict(answer["headers"]), text

    def join(self, token: str) -> None:
        invite = f"/i/{token}/"
        _, _, page = self.call("GET", invite)
        csrf = FIELD["csrfmiddlewaretoken"].search(page).group(1)
        status, headers, _ = self.call("POST", invite, {"csrfmiddlewaretoken": csrf})
        assert status == 302, status
        self.work = urllib.parse.urlsplit(headers["Location"]).path
        _, _, self.page = self.call("GET", self.work)

    def save(self) -> int:
        """POST the current page's answer (the next page comes back); a reload every 7 saves.
        The requests made."""
        form = hidden_fields(self.page)
        form.update(VirtualAnnotator.answer(form["page"], self.page))
        status, _, self.page = self.call("POST", self.work, form, SWAP)
        assert status == 200 and 'class="msg error"' not in self.page, self.page[:500]
        self.saved += 1
        if self.saved % 7:
            return 1
        _, _, self.page = self.call("GET", self.work)
        return 2


if __name__ == "__main__":
    main()
