"""Issue 17 item 5 in the admin: a batch's page switches the adjudication stage on or off and
names who may adjudicate (through `adjudication_setup_set`); tasks and final labels are listed
read-only, behind the models' view permissions like the other admin pages."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.urls import reverse

from annotation.models import AdjudicationSetup, AdjudicationTask, FinalLabel
from tests.annotation.test_adjudication import gcrc_batch, two_annotations

pytestmark = pytest.mark.django_db


def change_data(admin_client, batch) -> dict:
    """What the batch's change page posts back untouched: its form and every inline's forms."""
    response = admin_client.get(reverse("admin:annotation_batch_change", args=[batch.pk]))
    assert response.status_code == 200
    forms = [response.context["adminform"].form]
    for inline in response.context["inline_admin_formsets"]:
        forms += [inline.formset.management_form, *inline.formset.forms]
    data = {}
    for form in forms:
        for name in form.fields:
            value = form[name].value()
            if value is None or value is False:
                continue
            data[form.add_prefix(name)] = [str(v) for v in value] if isinstance(value, list) else str(value)
    return data


def setup_key(data: dict, field: str) -> str:
    return next(key for key in data if key.startswith("adjudication-") and key.endswith("-TOTAL_FORMS")).replace(
        "TOTAL_FORMS", f"0-{field}"
    )


def test_the_batch_page_turns_the_stage_on_with_named_adjudicators(admin_client):
    _project, batch = gcrc_batch(stage=False)
    judge = get_user_model().objects.create_user("judge", password="x")
    data = change_data(admin_client, batch)
    data[setup_key(data, "enabled")] = "on"
    data[setup_key(data, "users")] = [str(judge.pk)]
    response = admin_client.post(reverse("admin:annotation_batch_change", args=[batch.pk]), data)
    assert response.status_code == 302, response.context and response.context["errors"]
    setup = AdjudicationSetup.objects.get(batch=batch)
    assert setup.enabled and list(setup.users.all()) == [judge]


def test_the_batch_page_turns_the_stage_off(admin_client):
    _project, batch = gcrc_batch()
    data = change_data(admin_client, batch)
    data.pop(setup_key(data, "enabled"))
    response = admin_client.post(reverse("admin:annotation_batch_change", args=[batch.pk]), data)
    assert response.status_code == 302
    assert AdjudicationSetup.objects.get(batch=batch).enabled is False


def test_saving_the_batch_untouched_adds_no_stage(admin_client):
    _project, batch = gcrc_batch(stage=False)
    response = admin_client.post(
        reverse("admin:annotation_batch_change", args=[batch.pk]), change_data(admin_client, batch)
    )
    assert response.status_code == 302
    assert not AdjudicationSetup.objects.exists()


def test_tasks_and_final_labels_are_listed_read_only(admin_client, django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    task = AdjudicationTask.objects.get()
    listing = admin_client.get(reverse("admin:annotation_adjudicationtask_changelist")).content.decode()
    assert "a_error, d_evidence" in listing
    page = admin_client.get(reverse("admin:annotation_adjudicationtask_change", args=[task.pk]))
    assert page.status_code == 200 and b'name="_save"' not in page.content
    labels = admin_client.get(reverse("admin:annotation_finallabel_changelist") + "?how=agreed").content.decode()
    assert "c_evidence" in labels
    label = FinalLabel.objects.first()
    assert admin_client.get(reverse("admin:annotation_finallabel_change", args=[label.pk])).status_code == 200
    assert admin_client.get(reverse("admin:annotation_adjudicationtask_add")).status_code == 403


def test_the_lists_need_the_view_permission(client, django_capture_on_commit_callbacks):
    _project, batch = gcrc_batch()
    two_annotations(batch, django_capture_on_commit_callbacks)
    staff = get_user_model().objects.create_user("staff", password="x", is_staff=True)
    client.force_login(staff)
    url = reverse("admin:annotation_adjudicationtask_changelist")
    assert client.get(url).status_code == 403
    staff.user_permissions.add(Permission.objects.get(codename="view_adjudicationtask"))
    assert client.get(url).status_code == 200
