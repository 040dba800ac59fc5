"""config.postgresql: the health check of a persistent connection asks the server only when the
connection's socket has something to read. A healthy idle connection costs no round trip; one the
server terminated is found dead and replaced; one with an unasked message (a NOTIFY) is asked and
kept."""
from __future__ import annotations

import select
import time

import psycopg2
import pytest
from django.db import connection, connections
from django.db.backends.postgresql import base as django_postgresql

pytestmark = [
    pytest.mark.django_db(transaction=True),  # an idle connection in autocommit, as between requests
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only"),
]


@pytest.fixture
def asked(monkeypatch):
    """How often Django's own check (`SELECT 1`) ran."""
    calls = []
    original = django_postgresql.DatabaseWrapper.is_usable

    def spy(self):
        calls.append(1)
        return original(self)

    monkeypatch.setattr(django_postgresql.DatabaseWrapper, "is_usable", spy)
    return calls


def _other_connection():
    settings = connection.settings_dict
    other = psycopg2.connect(host=settings["HOST"] or None, port=settings["PORT"] or None,
                             user=settings["USER"], dbname=connection.settings_dict["NAME"],
                             password=settings["PASSWORD"] or None)
    other.autocommit = True
    return other


def _wait_readable(timeout: float = 5.0) -> None:
    poller = select.poll()
    poller.register(connection.connection.fileno(), select.POLLIN)
    deadline = time.monotonic() + timeout
    while not poller.poll(50):
        assert time.monotonic() < deadline, "the server sent nothing"


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def test_the_engine_is_ours():
    assert type(connections["default"]).__module__ == "config.postgresql.base"
    assert connections["default"].settings_dict["CONN_HEALTH_CHECKS"]


def test_a_healthy_idle_connection_is_usable_without_a_round_trip(asked):
    _backend_pid()
    assert connection.is_usable()
    assert asked == []


def test_a_connection_the_server_ended_is_found_dead_and_replaced(asked):
    pid = _backend_pid()
    other = _other_connection()
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
        _wait_readable()
        assert not connection.is_usable()
        assert asked == [1]  # the socket had news: the server was asked, and did not answer
        # what Django does at the start of the next request
        connection.health_check_done = False
        connection.close_if_health_check_failed()
        assert _backend_pid() != pid
    finally:
        other.close()


def test_a_live_connection_with_an_unasked_message_is_asked_and_kept(asked):
    with connection.cursor() as cursor:
        cursor.execute("LISTEN health_check_test")
    pid = _backend_pid()
    other = _other_connection()
    try:
        with other.cursor() as cursor:
            cursor.execute("NOTIFY health_check_test")
        _wait_readable()
        assert connection.is_usable()
        assert asked == [1]
        assert _backend_pid() == pid
    finally:
        with connection.cursor() as cursor:
            cursor.execute("UNLISTEN *")
        other.close()
