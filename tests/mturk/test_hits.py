"""HIT types and HITs through boto3 against the local endpoint."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from annotation import mturk
from annotation.mturk.local import work

from .conftest import admin, make_hit


def test_create_hit_type_returns_the_same_id_for_identical_values(mturk_client):
    values = dict(
        title="Read",
        description="A passage",
        reward="0.25",
        assignment_duration_seconds=900,
        qualification_requirements=[mturk.locale_requirement()],
    )
    first = mturk.create_hit_type(mturk_client, **values)
    assert first.reward == Decimal("0.25")
    assert first.hit_type_id == mturk.create_hit_type(mturk_client, **values).hit_type_id
    other = mturk.create_hit_type(mturk_client, **{**values, "reward": "0.30"})
    assert other.hit_type_id != first.hit_type_id


def test_create_hit_with_type_returns_the_hit(mturk_client, server):
    hit = make_hit(mturk_client, max_assignments=4, annotation="unit:17")
    assert hit.status == "Assignable"
    assert hit.max_assignments == 4
    assert hit.assignments_available == 4
    assert hit.reward == Decimal("0.50")
    assert hit.requester_annotation == "unit:17"
    assert hit.hit_group_id == hit.hit_type_id
    assert "project=7&amp;batch=2" in hit.question
    assert hit.expiration - hit.creation_time == timedelta(seconds=3600)
    assert mturk.get_hit(mturk_client, hit.hit_id) == hit


def test_same_unique_request_token_returns_the_first_hit(mturk_client, server):
    first = make_hit(mturk_client, token="unit-1-round-1")
    again = make_hit(mturk_client, token="unit-1-round-1")
    assert again.hit_id == first.hit_id
    assert admin(server, "GET", "/_local/state")["hits"] == 1
    calls = admin(server, "GET", "/_local/requests?operation=CreateHITWithHITType")
    assert [c["error"] for c in calls] == ["", "RequestError"]
    assert make_hit(mturk_client, token="unit-2-round-1").hit_id != first.hit_id


def test_server_reports_a_duplicate_token_as_mturk_does(mturk_client, server):
    first = make_hit(mturk_client, token="dup")
    with pytest.raises(mturk.MTurkRequestError) as caught:
        mturk.hits.call(
            mturk_client,
            "CreateHITWithHITType",
            HITTypeId=first.hit_type_id,
            Question=first.question,
            LifetimeInSeconds=60,
            UniqueRequestToken="dup",
        )
    assert caught.value.turk_error_code == "AWS.MechanicalTurk.HitAlreadyExists"
    assert first.hit_id in caught.value.message


def test_a_token_reused_for_other_work_is_an_error(mturk_client):
    make_hit(mturk_client, token="shared", annotation="unit:1")
    with pytest.raises(mturk.MTurkError, match="already used for HIT"):
        make_hit(mturk_client, token="shared", annotation="unit:2")


def test_lost_response_after_create_is_recovered_without_a_second_hit(mturk_client, server):
    # The HIT is created, then the response is a ServiceFault: botocore retries the call, MTurk
    # answers HitAlreadyExists, and the client returns the HIT that exists.
    admin(
        server,
        "POST",
        "/_local/faults",
        {"operation": "CreateHITWithHITType", "error": "ServiceFault", "after_effect": True},
    )
    hit = make_hit(mturk_client, token="lost-response")
    assert admin(server, "GET", "/_local/state")["hits"] == 1
    assert mturk.get_hit(mturk_client, hit.hit_id).requester_annotation == "unit:1"
    statuses = [c["status"] for c in admin(server, "GET", "/_local/requests?operation=CreateHITWithHITType")]
    assert statuses == [500, 400]


def test_update_expiration_and_expire(mturk_client, server):
    hit = make_hit(mturk_client)
    later = datetime.now(UTC).replace(microsecond=0) + timedelta(days=2)
    mturk.update_expiration_for_hit(mturk_client, hit.hit_id, expire_at=later)
    assert mturk.get_hit(mturk_client, hit.hit_id).expiration == later
    mturk.expire_hit(mturk_client, hit.hit_id)
    expired = mturk.get_hit(mturk_client, hit.hit_id)
    assert expired.status == "Reviewable"
    assert expired.expiration <= datetime.now(UTC)
    with pytest.raises(ValueError, match="timezone-aware"):
        mturk.update_expiration_for_hit(mturk_client, hit.hit_id, expire_at=datetime(2030, 1, 1))


def test_additional_assignments_are_idempotent_per_token(mturk_client):
    hit = make_hit(mturk_client, max_assignments=3)
    mturk.create_additional_assignments_for_hit(mturk_client, hit.hit_id, number=2, unique_request_token="more-1")
    mturk.create_additional_assignments_for_hit(mturk_client, hit.hit_id, number=2, unique_request_token="more-1")
    assert mturk.get_hit(mturk_client, hit.hit_id).max_assignments == 5
    mturk.create_additional_assignments_for_hit(mturk_client, hit.hit_id, number=1, unique_request_token="more-2")
    assert mturk.get_hit(mturk_client, hit.hit_id).max_assignments == 6


def test_additional_assignments_cannot_cross_ten(mturk_client):
    hit = make_hit(mturk_client, max_assignments=9)
    with pytest.raises(mturk.MTurkRequestError) as caught:
        mturk.create_additional_assignments_for_hit(mturk_client, hit.hit_id, number=1, unique_request_token="x")
    assert caught.value.turk_error_code == "AWS.MechanicalTurk.InvalidMaximumAssignmentsIncrease"
    assert mturk.get_hit(mturk_client, hit.hit_id).max_assignments == 9


def test_delete_hit_only_when_reviewed(mturk_client, server):
    hit = make_hit(mturk_client, max_assignments=1)
    with pytest.raises(mturk.MTurkRequestError) as caught:
        mturk.delete_hit(mturk_client, hit.hit_id)
    assert caught.value.turk_error_code == "AWS.MechanicalTurk.InvalidHITState"
    assignment = work.accept(server.store, hit.hit_id, "A1READER")
    work.submit(server.store, assignment, [("answer", "B")])
    with pytest.raises(mturk.MTurkRequestError):
        mturk.delete_hit(mturk_client, hit.hit_id)  # Reviewable, but a submission is not reviewed
    mturk.approve_assignment(mturk_client, assignment)
    mturk.delete_hit(mturk_client, hit.hit_id)
    assert mturk.get_hit(mturk_client, hit.hit_id).status == "Disposed"


def test_unknown_hit_is_a_request_error(mturk_client):
    with pytest.raises(mturk.MTurkRequestError) as caught:
        mturk.get_hit(mturk_client, "3NOSUCHHIT")
    assert caught.value.code == "RequestError"
    assert caught.value.turk_error_code == "AWS.MechanicalTurk.HitDoesNotExist"
    assert caught.value.message.startswith("Hit 3NOSUCHHIT does not exist.")


def test_create_hit_checks_the_question_and_qualifications(mturk_client):
    hit_type = mturk.create_hit_type(
        mturk_client, title="t", description="d", reward="0.10", assignment_duration_seconds=60
    )
    with pytest.raises(mturk.MTurkRequestError) as caught:
        mturk.create_hit_with_type(
            mturk_client,
            hit_type_id=hit_type.hit_type_id,
            question_xml="<oops",
            lifetime_seconds=60,
            max_assignments=1,
            unique_request_token="q",
        )
    assert caught.value.turk_error_code == "AWS.MechanicalTurk.XMLParseError"
    with pytest.raises(mturk.MTurkRequestError, match="QualificationType 3UNKNOWN does not exist"):
        mturk.create_hit_type(
            mturk_client,
            title="t",
            description="d",
            reward="0.10",
            assignment_duration_seconds=60,
            qualification_requirements=[mturk.private_requirement("3UNKNOWN")],
        )
