"""The soak's annotator: a person in a browser who does what people do besides plain saves.

Each `Person` joins through the invite link and walks the ReCAM pages in its first tab (page
script on: a save is one POST answered with the next page). Between saves it sometimes
reloads the page, clicks Save twice (the same POST sent again, half the time while the first is
still on its way), goes back and posts an earlier page's form again with its old tokens (the
same answer, or another), and works a few pages in a second tab (its own session on the same
work link) while the first goes on with the page it shows. A request that the connection lost
(a restart) is sent again, as a browser does, after a short wait. Every save is noted as a
`soak_check.Send` with what the browser learnt from it.
"""

from __future__ import annotations

import random
import time
import urllib.parse
from collections import Counter

from annotator_pages import ERROR_MSG, FIELD, SWAP, answer, cookie_header, hidden_fields, store_cookies
from http_driver import Driver, Reply, Request
from soak_check import Send

#: how often each step is taken instead of a plain save
MIX = {"reload": 0.08, "double": 0.08, "back": 0.08, "tab": 0.05, "race": 0.05}
#: seconds before a request whose connection failed is sent again, doubled while it keeps failing
RETRY_WAIT = (0.25, 2.0)
GIVE_UP = 120.0  # seconds after the end of the run during which a cut request is still sent again


class Stop(Exception):
    pass


class Tab:
    """One browser session: its cookies."""

    def __init__(self, name: str):
        self.name, self.jar = name, {}


class Person:
    def __init__(self, n: int, token: str, driver: Driver, deadline: float, *, think: float, seed: int):
        self.name, self.token, self.driver, self.deadline, self.think = f"annotator-{n}", token, driver, deadline, think
        self.rng = random.Random(seed * 1000 + n)
        self.work = ""
        self.sends: list[Send] = []
        self.history: list[tuple[dict[str, str], str]] = []  # forms posted earlier (tokens and all), their pages
        self.statuses: Counter = Counter()
        self.steps: Counter = Counter()
        self.retries: Counter = Counter()
        self.problems: list[str] = []
        self.second = Tab(f"{self.name}/tab2")
        self.second_busy = False
        self.done_reason = ""

    # --- HTTP ---------------------------------------------------------------------
    def fetch(self, tab: Tab, method: str, path: str, form: dict[str, str] | None = None, *, think: bool = False):
        """One request of `tab`, sent again while its connection fails; the saves are noted.
        `yield from` gives the final reply."""
        body = urllib.parse.urlencode(form).encode() if form is not None else b""
        due = time.monotonic() + self.rng.expovariate(1 / self.think) if think and self.think else None
        wait = RETRY_WAIT[0]
        while True:
            headers = {"User-Agent": "bench-soak", "Accept": "text/html", **cookie_header(tab.jar)}
            if form is not None:
                headers.update({"Content-Type": "application/x-www-form-urlencoded", **SWAP})
            began = max(time.monotonic(), due or 0.0)
            try:
                reply: Reply = yield Request(method, path, headers, body, due)
            except (OSError, TimeoutError) as exc:
                self.retries[type(exc).__name__] += 1
                if not isinstance(exc, ConnectionRefusedError):  # it may have reached the server
                    self.note(tab, form, began, None, "unknown")
                if time.monotonic() > self.deadline + GIVE_UP:
                    raise Stop(f"server gone: {exc!r}") from exc
                due, wait = time.monotonic() + wait * self.rng.uniform(0.5, 1.0), min(2 * wait, RETRY_WAIT[1])
                continue
            store_cookies(tab.jar, reply.headers_all("Set-Cookie"))
            self.statuses[reply.status] += 1
            return reply

    def note(self, tab: Tab, form: dict[str, str] | None, began: float, finished: float | None, outcome: str) -> None:
        if form is None or "response" not in form:
            return
        fields = {k: v for k, v in form.items() if k not in ("response", "page", "shown", "csrfmiddlewaretoken")}
        self.sends.append(Send(int(form["response"]), form["page"], fields, began, finished, outcome, tab.name))

    def save(self, tab: Tab, form: dict[str, str], *, think: bool = True):
        """POST a page's form as the page script does; the page shown next."""
        reply = yield from self.fetch(tab, "POST", self.work, form, think=think)
        page = reply.body.decode("utf-8", "replace")
        if reply.status == 302:  # the unit ended, or a refusal: its message is on the page redirected to
            page = yield from self.view(tab)
            outcome = "refused" if ERROR_MSG.search(page) else "ok"
        elif reply.status == 200:
            outcome = "refused" if ERROR_MSG.search(page) else "ok"
        elif reply.status == 400:  # a form error on the current page (a second choice equal to the first)
            outcome = "refused"
        else:
            outcome = "unknown" if reply.status >= 500 else "refused"
            self.problem(f"save {reply.status} on {form.get('page')}", page)
            page = yield from self.view(tab)
        self.note(tab, form, reply.started, reply.finished, outcome)
        return page

    def view(self, tab: Tab, *, think: bool = False):
        """GET the work page (following the redirect of a unit just finished)."""
        reply = yield from self.fetch(tab, "GET", self.work, think=think)
        for _ in range(3):
            if reply.status != 302:
                break
            reply = yield from self.fetch(tab, "GET", urllib.parse.urlsplit(reply.header("Location")).path)
        page = reply.body.decode("utf-8", "replace")
        if reply.status != 200:
            self.problem(f"view {reply.status}", page)
        return page

    def problem(self, what: str, page: str) -> None:
        if len(self.problems) < 3:
            self.problems.append(f"{self.name}: {what}: {page[:300]}")

    # --- what the person does --------------------------------------------------------
    def guarded(self, client):
        """Run one of the person's clients; nothing it meets stops the others."""
        try:
            yield from client
        except Stop as stop:
            self.done_reason = self.done_reason or str(stop)
        except Exception as exc:  # noqa: BLE001 - counted and reported, the run goes on
            self.problem(f"exception {type(exc).__name__}", repr(exc))
            self.done_reason = f"error: {exc!r}"

    def main(self):
        return self.guarded(self.first_tab())

    def first_tab(self):
        tab = Tab(f"{self.name}/tab1")
        invite = f"/i/{self.token}/"
        reply = yield from self.fetch(tab, "GET", invite)
        csrf = FIELD["csrfmiddlewaretoken"].search(reply.body.decode()).group(1)
        reply = yield from self.fetch(tab, "POST", invite, {"csrfmiddlewaretoken": csrf})
        self.work = urllib.parse.urlsplit(reply.header("Location")).path
        page = yield from self.view(tab)
        while time.monotonic() < self.deadline:
            form = hidden_fields(page)
            if "page" not in form:
                raise Stop("no more work")
            step = self.rng.choices([*MIX, "save"], [*MIX.values(), 1 - sum(MIX.values())])[0]
            self.steps[step] += 1
            if step == "reload":
                page = yield from self.view(tab, think=True)
                continue
            if step == "back" and self.history:
                old_form, old_page = self.rng.choice(self.history)
                old_form = dict(old_form)
                if self.rng.random() < 0.5:  # went back to change the answer
                    old_form.update(answer(old_form["page"], old_page, self.rng))
                page = yield from self.save(tab, old_form)
                continue
            if step == "tab" and not self.second_busy:
                self.second_busy = True
                self.driver.spawn(self.guarded(self.second_tab(self.rng.randint(1, 3))))
            form.update(answer(form["page"], page, self.rng))
            if step == "race":  # another tab of the same browser changes an earlier page of this item meanwhile
                self.race(tab, form["response"])
            concurrent = step == "double" and self.rng.random() < 0.5
            if concurrent:  # the second click while the first is on its way: the same cookies
                clone = Tab(tab.name + "/click2")
                clone.jar = dict(tab.jar)
                self.driver.spawn(self.guarded(self.save(clone, dict(form), think=False)))
            page_after = yield from self.save(tab, form, think=step != "race")
            if step == "double" and not concurrent:  # the second click after the answer came
                page_after = yield from self.save(tab, form, think=False)
            self.history = [*self.history[-11:], (form, page)]
            page = page_after
        raise Stop("time")

    def race(self, tab: Tab, response: str) -> None:
        """At the moment `tab` saves a page, another tab of the same browser (its cookies) posts
        a new answer to an earlier page of the same item: two saves of one response at once."""
        earlier = [(f, p) for f, p in self.history if f["response"] == response and f["page"] != "pre"]
        if not earlier:
            return
        old_form, old_page = self.rng.choice(earlier)
        other = Tab(tab.name + "/race")
        other.jar = dict(tab.jar)
        self.driver.spawn(
            self.guarded(self.save(other, {**old_form, **answer(old_form["page"], old_page, self.rng)}, think=False))
        )

    def second_tab(self, saves: int):
        """A few pages in the second tab (its own session): it opens the work link and saves what
        it shows, while the first tab goes on with the page it shows."""
        try:
            page = yield from self.view(self.second)
            for _ in range(saves):
                form = hidden_fields(page)
                if "page" not in form or time.monotonic() >= self.deadline:
                    break
                form.update(answer(form["page"], page, self.rng))
                page = yield from self.save(self.second, form)
        finally:
            self.second_busy = False
