"""The local endpoint's wire protocol, validation, persistence and command line."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from decimal import Decimal
from pathlib import Path

import pytest

from annotation import mturk
from annotation.mturk.local import LocalMTurkServer, work

from .conftest import admin, api_raw, make_hit

ROOT = Path(__file__).resolve().parents[2]


def test_error_shape_is_mturks(server):
    status, body = api_raw(server, "GetHIT", {"HITId": "3MISSING"})
    assert status == 400
    assert body["__type"].endswith("#RequestError")
    assert body["TurkErrorCode"] == "AWS.MechanicalTurk.HitDoesNotExist"
    assert body["Message"].startswith("Hit 3MISSING does not exist. (")


def test_service_fault_is_http_500(server):
    server.faults.add("GetAccountBalance", "ServiceFault")
    status, body = api_raw(server, "GetAccountBalance", {})
    assert status == 500 and body["__type"].endswith("#ServiceFault")


def test_unknown_operation_and_bad_json(server):
    status, body = api_raw(server, "LaunchRockets", {})
    assert (status, body["__type"].rpartition("#")[2]) == (400, "UnknownOperationException")
    status, body = api_raw(server, "GetAccountBalance", b"{not json")
    assert (status, body["__type"].rpartition("#")[2]) == (400, "SerializationException")


@pytest.mark.parametrize(
    "operation, params, message",
    [
        ("ListAssignmentsForHIT", {"HITId": "3A", "MaxResults": 101}, "MaxResults must be at most 100"),
        ("GetHIT", {"HITId": "3a-lower"}, "regular expression pattern"),
        ("GetHIT", {}, "HITId is required"),
        ("GetHIT", {"HITId": "3A", "Extra": 1}, "Extra is not a parameter"),
        (
            "CreateHITType",
            {"Title": "t", "Description": "d", "Reward": "1.234", "AssignmentDurationInSeconds": 60},
            "Reward",
        ),
        (
            "CreateHITType",
            {"Title": "t", "Description": "d", "Reward": "1.00", "AssignmentDurationInSeconds": 10},
            "AssignmentDurationInSeconds must be between 30",
        ),
        (
            "SendBonus",
            {"WorkerId": "A1", "AssignmentId": "3A", "BonusAmount": "1", "Reason": "r", "UniqueRequestToken": "x" * 65},
            "UniqueRequestToken must be at most 64",
        ),
        (
            "CreateHITType",
            {
                "Title": "t",
                "Description": "d",
                "Reward": "1.00",
                "AssignmentDurationInSeconds": 60,
                "QualificationRequirements": [
                    {"QualificationTypeId": "00000000000000000071", "Comparator": "GreaterThan", "IntegerValues": [1]}
                ],
            },
            "compares LocaleValues",
        ),
    ],
)
def test_validation_follows_the_service_model(server, operation, params, message):
    status, body = api_raw(server, operation, params)
    assert status == 400, body
    assert body["__type"].endswith("#RequestError")
    assert message in body["Message"]


def test_requests_are_logged_with_params(mturk_client, server):
    mturk.get_account_balance(mturk_client)
    log = admin(server, "GET", "/_local/requests")
    assert log == [{"operation": "GetAccountBalance", "params": {}, "status": 200, "error": ""}]


def test_state_survives_a_restart(tmp_path):
    db = str(tmp_path / "state.sqlite3")
    with LocalMTurkServer(db=db, balance="50.00") as first:
        mturk_client = mturk.make_client("local", local_url=first.url)
        hit = make_hit(mturk_client, reward="1.00")
        assignment_id = work.accept(first.store, hit.hit_id, "A1KEEP")
        work.submit(first.store, assignment_id, [("answer", "kept")])
        mturk.approve_assignment(mturk_client, assignment_id)
    with LocalMTurkServer(db=db, balance="99999.00") as second:  # the stored balance wins
        mturk_client = mturk.make_client("local", local_url=second.url)
        assert mturk.get_account_balance(mturk_client).available == Decimal("48.80")  # 50 - (1.00 + 20 %)
        [assignment] = mturk.list_assignments_for_hit(mturk_client, hit.hit_id)
        assert (assignment.assignment_id, assignment.status, assignment.answers) == (
            assignment_id,
            "Approved",
            {"answer": "kept"},
        )
        assert make_hit(mturk_client, reward="1.00").hit_id == hit.hit_id  # its token is remembered


def test_clock_abandons_overdue_assignments_and_auto_approves(mturk_client, server):
    hit = make_hit(mturk_client, max_assignments=1, duration=600)
    late = work.accept(server.store, hit.hit_id, "A1SLOW")
    assert mturk.get_hit(mturk_client, hit.hit_id).status == "Unassignable"
    admin(server, "POST", "/_local/clock", {"advance_seconds": 601})
    assert mturk.get_hit(mturk_client, hit.hit_id).assignments_available == 1
    with pytest.raises(work.WorkerError, match="Abandoned"):
        work.submit(server.store, late, [("answer", "too late")])
    done = admin(server, "POST", "/_local/accept", {"hit_id": hit.hit_id, "worker_id": "A1FAST"})["assignment_id"]
    admin(server, "POST", "/_local/submit", {"assignment_id": done, "fields": {"answer": "B"}})
    assert admin(server, "POST", "/_local/auto-approve", {})["approved"] == []  # not due yet (1 h)
    admin(server, "POST", "/_local/clock", {"advance_seconds": 3600})
    assert admin(server, "POST", "/_local/auto-approve", {})["approved"] == [done]
    assert mturk.get_assignment(mturk_client, done)[0].status == "Approved"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_command_line_server(tmp_path):
    port = _free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "annotation.mturk.local",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--db",
            str(tmp_path / "cli.sqlite3"),
            "--balance",
            "42.00",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        banner = process.stdout.readline()
        assert f"http://127.0.0.1:{port}" in banner
        state = None
        for _attempt in range(100):  # the banner comes before the socket listens: retry a while
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_local/state", timeout=2) as r:
                    state = json.loads(r.read())
                break
            except OSError:
                time.sleep(0.1)
        assert state is not None, "the server did not answer"
        assert state["balance"] == "42.00"
        mturk_client = mturk.make_client("local", local_url=f"http://127.0.0.1:{port}")
        assert mturk.get_account_balance(mturk_client).available == 42
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert process.returncode == 0
