"""Expire, extend, and add assignments to published HITs."""

import pytest

from annotation.models import Posting, PublishJob
from annotation.services.postings import places_add, postings_expire, postings_extend
from annotation.services.publish import PublishRefused, publish_job_run

from .conftest import BASE_URL, hit_rows, mturk_batch

pytestmark = pytest.mark.django_db


@pytest.fixture
def published(mturk_settings, server):
    batch = mturk_batch(units=3, assignments=3)
    publish_job_run(job=PublishJob.objects.create(batch=batch, base_url=BASE_URL, total=3))
    return batch


def local_hit(server, unit) -> dict:
    return next(h for h in hit_rows(server) if h["id"] == unit.channel_ref)


def test_expire_stops_every_hit_now(published, server):
    report = postings_expire(batch=published)
    assert (report.changed, report.failed) == (3, {})
    now = server.store.now()
    assert all(h["expiration"] <= now for h in hit_rows(server))
    assert set(Posting.objects.values_list("status", flat=True)) == {"Reviewable"}


def test_extend_moves_the_expiration_by_hours(published, server):
    u0 = published.units.get(position=0)
    before = local_hit(server, u0)["expiration"]
    report = postings_extend(batch=published, hours=48, positions=[0])
    assert report.changed == 1
    assert local_hit(server, u0)["expiration"] - before == pytest.approx(48 * 3600, abs=5)
    other = published.units.get(position=1)
    assert local_hit(server, other)["expiration"] == pytest.approx(before, abs=5)  # untouched
    record = Posting.objects.get(ref=u0.channel_ref)
    assert record.expiration.timestamp() == pytest.approx(local_hit(server, u0)["expiration"], abs=1)
    with pytest.raises(PublishRefused, match="1 hour"):
        postings_extend(batch=published, hours=0)


def test_add_assignments_once_per_label(published, server):
    report = places_add(batch=published, number=2, label="redo block A", positions=[1, 2])
    assert (report.changed, report.failed) == (2, {})
    again = places_add(batch=published, number=2, label="redo block A", positions=[1, 2])
    assert again.changed == 2  # accepted by MTurk as a repeat, nothing more added
    by_unit = {u.position: local_hit(server, u)["max_assignments"] for u in published.units.all()}
    assert by_unit == {0: 3, 1: 5, 2: 5}
    assert sorted(Posting.objects.values_list("places", flat=True)) == [3, 5, 5]
    more = places_add(batch=published, number=1, label="redo block B", positions=[1])
    assert more.changed == 1 and local_hit(server, published.units.get(position=1))["max_assignments"] == 6


def test_crossing_ten_assignments_is_refused_per_unit(published, server):
    report = places_add(batch=published, number=7, label="big", positions=[0])
    assert report.changed == 0
    assert "InvalidMaximumAssignmentsIncrease" in report.failed[0]
    assert report.summary("Added assignments to").startswith("Added assignments to 0 posting(s); failed: unit #0:")


def test_adding_needs_the_money_and_published_units(published, server):
    server.store.set_balance("1.00")
    with pytest.raises(PublishRefused, match="cannot cover the estimated \\$1.20"):  # 2 x (0.50 + 0.10)
        places_add(batch=published, number=1, label="x", positions=[0, 1])
    with pytest.raises(PublishRefused, match="no published unit at position"):
        places_add(batch=published, number=1, label="x", positions=[7])
