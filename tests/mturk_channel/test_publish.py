"""Publishing a batch: one HIT per unit with the batch's settings, exactly once, whatever
happens (second click, throttling, a lost response); a failing unit is listed with its reason."""

import json

import pytest

from annotation.channels import get_channel
from annotation.channels.mturk_hits import publish_token
from annotation.models import Posting, PublishJob
from annotation.mturk import qualifications as q
from annotation.mturk.questions import parse_external_question
from annotation.services.publish import batch_publish_request, publish_job_run

from .conftest import BASE_URL, hit_rows, mturk_batch

pytestmark = pytest.mark.django_db


def new_job(batch) -> PublishJob:
    return PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=batch.units.count())


def published_once(server, batch) -> list[dict]:
    """The local endpoint's HITs, checked to be exactly one per unit of the batch."""
    hits = hit_rows(server)
    units = list(batch.units.order_by("position"))
    assert len(hits) == len(units)
    assert sorted(h["id"] for h in hits) == sorted(u.channel_ref for u in units)
    assert sorted(h["requester_annotation"] for h in hits) == sorted(
        f"batch {batch.pk} unit {u.pk} round 1" for u in units
    )
    assert Posting.objects.filter(unit__batch=batch).count() == len(units)
    return hits


def test_publish_makes_one_hit_per_unit_with_the_batch_settings(
    mturk_settings, server, django_capture_on_commit_callbacks
):
    batch = mturk_batch(
        units=3,
        assignments=2,
        channel_settings={
            "title": "Read and answer",
            "description": "Three questions on a passage",
            "keywords": "reading, nlp",
            "reward": "0.75",
            "assignment_duration_seconds": 1800,
            "lifetime_seconds": 2 * 86400,
            "auto_approval_delay_seconds": 86400,
            "frame_height": 900,
            "locales": ["US", "GB"],
            "min_approval_rate": 95,
            "min_hits_approved": 500,
            "masters": True,
            "private_qualification": "Trusted readers",
            "require_private_qualification": True,
        },
    )
    with django_capture_on_commit_callbacks(execute=True):
        job = batch_publish_request(batch=batch, base_url=BASE_URL + "/")
    job.refresh_from_db()
    assert (job.status, job.done, job.total, job.failures) == ("done", 3, 3, [])
    hits = published_once(server, batch)
    types = server.store.rows("SELECT * FROM hit_types")
    assert len(types) == 1
    hit_type = dict(types[0])
    assert {h["hit_type_id"] for h in hits} == {hit_type["id"]}
    assert (hit_type["title"], hit_type["description"], hit_type["keywords"], hit_type["reward"]) == (
        "Read and answer",
        "Three questions on a passage",
        "reading, nlp",
        "0.75",
    )
    assert (hit_type["assignment_duration"], hit_type["auto_approval_delay"]) == (1800, 86400)
    private = server.store.row("SELECT id FROM qualification_types WHERE name = 'Trusted readers'")["id"]
    assert json.loads(hit_type["qualification_requirements"]) == [
        {
            "QualificationTypeId": q.LOCALE,
            "Comparator": "In",
            "LocaleValues": [{"Country": "US"}, {"Country": "GB"}],
            "ActionsGuarded": "DiscoverPreviewAndAccept",
        },
        {
            "QualificationTypeId": q.PERCENT_ASSIGNMENTS_APPROVED,
            "Comparator": "GreaterThan",
            "IntegerValues": [95],
            "ActionsGuarded": "DiscoverPreviewAndAccept",
        },
        {
            "QualificationTypeId": q.NUMBER_HITS_APPROVED,
            "Comparator": "GreaterThanOrEqualTo",
            "IntegerValues": [500],
            "ActionsGuarded": "DiscoverPreviewAndAccept",
        },
        {
            "QualificationTypeId": "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6",
            "Comparator": "Exists",
            "ActionsGuarded": "DiscoverPreviewAndAccept",
        },
        {"QualificationTypeId": private, "Comparator": "Exists", "ActionsGuarded": "DiscoverPreviewAndAccept"},
    ]
    for hit in hits:
        assert hit["max_assignments"] == 2
        assert hit["expiration"] - hit["created"] == pytest.approx(2 * 86400, abs=1)
        assert parse_external_question(hit["question"]) == (BASE_URL + "/mturk/", 900)
    record = Posting.objects.get(unit__position=0, unit__batch=batch)
    assert (record.round, record.places, record.status) == (1, 2, "Assignable")
    assert record.group_ref == hit_type["id"] and record.expiration is not None


def test_default_settings_ask_for_the_default_presets(mturk_settings, server):
    batch = mturk_batch(units=1)
    publish_job_run(job=new_job(batch))
    hit_type = dict(server.store.rows("SELECT * FROM hit_types")[0])
    requirements = json.loads(hit_type["qualification_requirements"])
    assert [r["QualificationTypeId"] for r in requirements] == [
        q.LOCALE,
        q.PERCENT_ASSIGNMENTS_APPROVED,
        q.NUMBER_HITS_APPROVED,
    ]
    assert [c["Country"] for c in requirements[0]["LocaleValues"]] == ["US", "GB", "CA", "AU", "NZ", "IE"]
    assert requirements[1]["IntegerValues"] == [90]
    assert (hit_type["reward"], hit_type["assignment_duration"], hit_type["auto_approval_delay"]) == (
        "0.50",
        3600,
        3 * 86400,
    )
    assert parse_external_question(hit_rows(server)[0]["question"])[1] == 0


def test_masters_id_differs_on_production(mturk_settings):
    mturk_settings.MTURK_ENDPOINT = "production"
    batch = mturk_batch(units=1, channel_settings={"masters": True})
    channel = get_channel("mturk")
    ids = [r["QualificationTypeId"] for r in channel.requirements(channel.settings_for(batch))]
    assert ids[-1] == "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH"


def test_second_click_creates_no_duplicates(mturk_settings, server, django_capture_on_commit_callbacks):
    batch = mturk_batch(units=3)
    with django_capture_on_commit_callbacks(execute=True):
        first = batch_publish_request(batch=batch, base_url=BASE_URL)
    with django_capture_on_commit_callbacks(execute=True):
        second = batch_publish_request(batch=batch, base_url=BASE_URL)
    second.refresh_from_db()
    assert second.pk != first.pk and (second.status, second.done, second.total) == ("done", 3, 3)
    published_once(server, batch)
    assert len(server.faults.requests("CreateHITWithHITType")) == 3  # the second job had nothing to do


def test_a_click_while_a_job_is_open_sends_the_same_job_again(
    mturk_settings, server, django_capture_on_commit_callbacks
):
    batch = mturk_batch(units=2)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        first = batch_publish_request(batch=batch, base_url=BASE_URL)
        second = batch_publish_request(batch=batch, base_url=BASE_URL)
    assert second.pk == first.pk and PublishJob.objects.count() == 1
    for callback in callbacks:  # both sends run: the job twice, the HITs once
        callback()
    published_once(server, batch)


def test_rerunning_a_job_that_lost_its_records_finds_the_same_hits(mturk_settings, server):
    """A worker that died after CreateHIT but before saving: the token brings the HIT back."""
    batch = mturk_batch(units=3)
    job = publish_job_run(job=new_job(batch))
    hit_ids = sorted(batch.units.values_list("channel_ref", flat=True))
    Posting.objects.all().delete()
    batch.units.update(channel_ref="")
    job.status = PublishJob.Status.RUNNING
    publish_job_run(job=job)
    published_once(server, batch)
    assert sorted(batch.units.values_list("channel_ref", flat=True)) == hit_ids
    duplicates = [r for r in server.faults.requests("CreateHITWithHITType") if r["error"] == "RequestError"]
    assert len(duplicates) == 3  # HitAlreadyExists, taken as success


def test_lost_response_is_retried_with_the_same_token(mturk_settings, server):
    batch = mturk_batch(units=2)
    server.faults.add("CreateHITWithHITType", "ServiceFault", after_effect=True)  # made, answer lost
    job = publish_job_run(job=new_job(batch))
    assert (job.status, job.done, job.failures) == ("done", 2, [])
    published_once(server, batch)


def test_throttling_is_retried_and_succeeds(mturk_settings, server):
    batch = mturk_batch(units=3)
    server.faults.add("CreateHITWithHITType", "ThrottlingException", count=2)
    job = publish_job_run(job=new_job(batch))
    assert (job.status, job.done, job.failures) == ("done", 3, [])
    published_once(server, batch)
    throttled = [r for r in server.faults.requests("CreateHITWithHITType") if r["error"] == "ThrottlingException"]
    assert len(throttled) == 2


def test_throttling_past_the_retries_is_transient_and_the_next_run_finishes(mturk_settings, server):
    mturk_settings.MTURK_MAX_ATTEMPTS = 2
    batch = mturk_batch(units=2)
    server.faults.add("CreateHITWithHITType", "ThrottlingException", count=2)  # every attempt of the first unit
    job = publish_job_run(job=new_job(batch))
    assert job.done == 1 and [f["position"] for f in job.failures] == [0]
    assert job.failures[0]["transient"] is True and "ThrottlingException" in job.failures[0]["reason"]
    job = publish_job_run(job=job)  # what the task's retry does
    assert (job.status, job.done, job.failures) == ("done", 2, [])
    published_once(server, batch)


def test_a_refused_unit_is_listed_with_its_reason_and_the_others_go_on(mturk_settings, server):
    batch = mturk_batch(units=3)
    server.faults.add(
        "CreateHITWithHITType",
        "RequestError",
        message="The question is not acceptable",
        turk_error_code="AWS.MechanicalTurk.InvalidQuestion",
    )
    job = publish_job_run(job=new_job(batch))
    failed_unit = batch.units.get(position=0)
    assert (job.status, job.done, job.total) == ("done", 2, 3)
    [failure] = job.failures
    assert (failure["unit"], failure["position"], failure["transient"]) == (failed_unit.pk, 0, False)
    assert failure["reason"].startswith(
        "MTurk CreateHITWithHITType failed: RequestError/AWS.MechanicalTurk.InvalidQuestion: "
        "The question is not acceptable"
    )
    assert failed_unit.channel_ref == "" and len(hit_rows(server)) == 2
    job.refresh_from_db()
    assert job.failures[0]["position"] == 0 and job.done == 2  # saved, not only returned
    again = publish_job_run(job=new_job(batch))  # the researcher publishes again
    assert (again.done, again.failures) == (3, [])
    published_once(server, batch)


def test_tokens_are_deterministic_per_unit_and_round(mturk_settings):
    batch = mturk_batch(units=2)
    first, second = batch.units.order_by("position")
    assert publish_token(batch, first, 1) == publish_token(batch, first, 1)
    assert len({publish_token(batch, first, 1), publish_token(batch, first, 2), publish_token(batch, second, 1)}) == 3
    assert len(publish_token(batch, first, 1)) == 64


def test_settings_made_invalid_after_the_request_fail_the_job(mturk_settings, server):
    batch = mturk_batch(units=1)
    batch.channel_settings = {"reward": "-1"}
    batch.save()
    job = publish_job_run(job=new_job(batch))
    assert job.status == "failed" and "reward" in job.error and hit_rows(server) == []


STUDY = """consent:
  text: Your answers are used for research.
comprehension:
  questions:
    - {id: many, type: single_choice, prompt: May an item have two right answers?, options: ["no", "yes"]}
  answers: {many: "no"}
"""


def test_the_comprehension_check_as_mturks_qualification_test(mturk_settings, server):
    """Issue 27: with `qualification_test` the study's comprehension check is MTurk's own test: the
    HITs require its passing score, and our pages do not ask the check again (consent still)."""
    from annotation.channels.mturk_settings import HitSettingsError
    from annotation.mturk.qualification_tests import read_question_form
    from annotation.selectors.study import study_of

    batch = mturk_batch(units=1, assignments=1, channel_settings={"qualification_test": True})
    with pytest.raises(HitSettingsError, match="no comprehension check"):
        get_channel("mturk").check_settings(batch)
    batch.study = (
        STUDY.replace("type: single_choice", "type: likert, size: 3")
        .replace(', options: ["no", "yes"]', "")
        .replace('{many: "no"}', "{many: 1}")
    )
    with pytest.raises(HitSettingsError, match="'many' is a likert question"):
        get_channel("mturk").check_settings(batch)
    batch.study = STUDY
    batch.save(update_fields=["study"])
    get_channel("mturk").check_settings(batch)
    assert study_of(batch).comprehension is None and study_of(batch).consent  # MTurk asks the check itself
    get_channel("mturk").publish(batch, base_url=BASE_URL)
    (hit_type,) = server.store.rows("SELECT * FROM hit_types")
    requirements = json.loads(hit_type["qualification_requirements"])
    test_requirement = next(
        r for r in requirements if r["Comparator"] == "GreaterThanOrEqualTo" and r["IntegerValues"] == [100]
    )
    kind = server.store.row(
        "SELECT * FROM qualification_types WHERE id = ?", (test_requirement["QualificationTypeId"],)
    )
    _title, _overview, questions = read_question_form(kind["test"])
    assert [q.prompt for q in questions] == ["May an item have two right answers?"]
    assert "<SelectionIdentifier>no</SelectionIdentifier>" in kind["answer_key"]
    assert test_requirement["ActionsGuarded"] == "Accept"
