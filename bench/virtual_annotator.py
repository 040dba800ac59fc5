"""The virtual annotators of bench_annotate.py: each one a person in a browser on its own
connection, run by http_driver.Driver, and the request budget they share."""

from __future__ import annotations

import time
import urllib.parse
from collections import Counter

from annotator_pages import ERROR_MSG, FIELD, SWAP, answer, cookie_header, hidden_fields, store_cookies
from http_driver import Request


class Stop(Exception):
    pass


class VirtualAnnotator:
    """One person in a browser: own connection (kept alive while the server allows) and own
    cookies. `main()` is the client that http_driver.Driver runs: it yields requests and is sent
    their replies."""

    def __init__(
        self,
        n: int,
        port: int,
        token: str,
        deadline: float,
        budget: "Budget",
        *,
        mode: str = "swap",
        view_every: int = 7,
        interval: float = 0.0,
        first_at: float = 0.0,
    ):
        self.name = f"annotator-{n}"
        self.port, self.token, self.deadline, self.budget = port, token, deadline, budget
        self.mode, self.view_every = mode, view_every
        # paced (--rate): this annotator's saves are due every `interval` seconds from `first_at`
        self.interval, self.next_at = interval, first_at
        self.cookies: dict[str, str] = {}
        self.records: list[tuple[str, float, float, int]] = []  # (kind, start, seconds, status)
        self.errors: Counter = Counter()
        self.error_samples: list[str] = []
        self.finished_items = 0
        self.done_reason = ""

    # --- HTTP ---------------------------------------------------------------------
    def request(
        self,
        kind: str,
        method: str,
        path: str,
        form: dict | None = None,
        extra_headers: dict | None = None,
        due: float | None = None,
    ):
        """One request (a generator: `status, headers, page = yield from self.request(...)`);
        with `due` (its scheduled time) it is sent then, and its latency counts from then."""
        if time.monotonic() >= self.deadline:
            raise Stop("time cap")
        if not self.budget.take():
            raise Stop("request cap")
        headers = {
            "User-Agent": "bench-annotator",
            "Accept": "text/html",
            **(extra_headers or {}),
            **cookie_header(self.cookies),
        }
        body = b""
        if form is not None:
            body = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            reply = yield Request(method, path, headers, body, due)
        except (OSError, TimeoutError) as exc:  # refused, reset twice, no answer in time
            self.errors[f"{kind}: {type(exc).__name__}"] += 1
            raise
        start = reply.started
        seconds = reply.finished - (start if due is None else min(due, start))
        store_cookies(self.cookies, reply.headers_all("Set-Cookie"))
        self.records.append((kind, start, seconds, reply.status))
        return reply.status, {k: v for k, v in reply.headers}, reply.body.decode("utf-8", "replace")

    def fail(self, what: str, detail: str = "") -> None:
        self.errors[what] += 1
        if len(self.error_samples) < 3:
            self.error_samples.append(f"{what}: {detail[:300]}")

    # --- the walk -------------------------------------------------------------------
    def main(self):
        try:
            yield from self.walk()
        except Stop as stop:
            self.done_reason = str(stop)
        except Exception as exc:  # noqa: BLE001 - every failure is counted, none stops the others
            self.fail(f"exception {type(exc).__name__}", repr(exc))
            self.done_reason = f"error: {exc!r}"

    def walk(self):
        invite = f"/i/{self.token}/"
        status, _, page = yield from self.request("join", "GET", invite)
        if status != 200:
            return self.fail(f"join GET {status}", page)
        token = FIELD["csrfmiddlewaretoken"].search(page).group(1)
        status, headers, page = yield from self.request("join", "POST", invite, {"csrfmiddlewaretoken": token})
        if status != 302:
            return self.fail(f"join POST {status}", page)
        work = urllib.parse.urlsplit(headers["Location"]).path
        status, _, page = yield from self.request("view", "GET", work)
        saved = 0
        while True:
            if status not in (200, 400):
                self.fail(f"page {status}", page)
                status, _, page = yield from self.request("view", "GET", work)
                continue
            if ERROR_MSG.search(page):  # a save that the server refused, shown as a message
                self.fail("save refused (message on next page)", page[page.find('class="msg error"') :][:300])
            form = hidden_fields(page)
            if "page" not in form:
                raise Stop("no more work")
            form.update(answer(form["page"], page))
            due = None
            if self.interval:  # paced: sent at its scheduled time (never made up by skipping)
                due, self.next_at = self.next_at, self.next_at + self.interval
            if self.mode == "swap":  # what annotate.js does: the answer to the save is the next page
                status, _, page = yield from self.request("save", "POST", work, form, SWAP, due=due)
                if status != 200:
                    self.fail(f"save {status}", page)
            else:  # POST/Redirect/GET, as without the page script
                status, _, body = yield from self.request("save", "POST", work, form, due=due)
                if status != 302:
                    self.fail(f"save {status}", body)
            saved += 1
            if status in (200, 302) and form["page"] == "difficulty":
                self.finished_items += 1
            if self.mode != "swap" or (self.view_every and saved % self.view_every == 0):
                status, _, page = yield from self.request("view", "GET", work)


class Budget:
    """A shared cap on the number of requests (the annotators share one thread)."""

    def __init__(self, limit: int):
        self.left = limit

    def take(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        return True
