"""A save over a stale read while another save of the same response commits (found by
bench/soak.py: two tabs, one re-answering an earlier page while the other saves the next).

The compare-and-set must test the version on the row it writes. On PostgreSQL an UPDATE that
filters through a join is sent as `WHERE id IN (SELECT ...)`; when it waits for the other save's
row lock, PostgreSQL re-checks only the outer condition on the new row, so the version tested in
the subquery still matched the old read and the stale answers overwrote the other save's.
"""

import threading

import pytest
from django.db import connection, connections, transaction
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from annotation.models import Response
from tests.annotation.test_save_protocol import PRE, read, save, work  # noqa: F401 - the fixture

pytestmark = pytest.mark.django_db(transaction=True)
OTHER = {"choice": (PRE["choice"] + 1) % 5}


def test_the_compare_and_set_tests_the_version_on_the_row_it_writes(work):  # noqa: F811
    annotator, _, response = work
    with CaptureQueriesContext(connection) as queries:
        save(read(annotator, response), "pre", PRE)
    (update,) = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("UPDATE")]
    where = update.split(" WHERE ", 1)[1]
    assert '"version"' in where
    assert " IN (SELECT" not in where


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite runs one writer at a time: nothing waits")
def test_a_save_waiting_on_a_concurrent_save_does_not_overwrite_it(work):  # noqa: F811
    annotator, _, response = work
    save(read(annotator, response), "pre", PRE)
    save(read(annotator, response), "post", PRE)
    stale = read(annotator, response)  # this tab read "post" = PRE
    locked, release = threading.Event(), threading.Event()

    def other_tab() -> None:
        """Another tab re-answers "post" and commits only once this tab's write waits for it."""
        try:
            with transaction.atomic():
                answers = {**stale.answers, "post": OTHER}
                Response.objects.filter(pk=response.pk).update(answers=answers, version=F("version") + 1)
                locked.set()
                release.wait(10)
        finally:
            connections.close_all()

    thread = threading.Thread(target=other_tab)
    thread.start()
    assert locked.wait(10)
    threading.Timer(0.5, release.set).start()  # this save's UPDATE is blocked on the row by then
    result = save(stale, "second", {"choice": None})
    thread.join()
    stored = Response.objects.get(pk=response.pk)
    assert result.changed
    assert stored.answers["post"] == OTHER  # the other tab's answer is kept
    assert stored.answers["second"] == {"choice": None}
    assert stored.version == 4
