"""Issue 38's small ones on the annotator pages: SCDE's errors as text, not a list inside a span;
no "Item 1 of 1" on a unit of one item; the adjudicator's landing page speaks to the adjudicator;
the landing page says once that answers are saved."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotation.models import Response
from annotation.services.batches import batch_create, invite_link_create
from tests.scde.test_service_flow import import_file, invite_to, page_post, scde_project
from tests.surveys.test_recam_flow import form_fields, join

pytestmark = pytest.mark.django_db


def test_scde_errors_are_sentences_and_a_one_passage_unit_has_no_item_count(client):
    project = scde_project()
    import_file(project, "made_up.dev.json")
    one = batch_create(project=project, name="one passage each", items_per_unit=1, assignments_per_unit=1)
    html = client.get(join(client, invite_link_create(batch=one))).content.decode()
    assert "Item 1 of" not in html and re.search(r'id="progress">\s*Step 1 of 1', html)  # the demo's units
    client.cookies.clear()  # another person
    url = join(client, invite_to(project))
    html = client.get(url).content.decode()
    assert "Item 1 of 3" in html
    fields = form_fields(html)
    blanks = Response.objects.get(pk=fields["response"]).item.payload["blanks"]
    text = client.post(url, page_post(fields, [0, 0] + [None] * (len(blanks) - 2))).content.decode()
    assert "Sentence A is already used for blank 1" in text
    assert "errorlist" not in text  # no block list inside the inline slot: two pink slivers before
    assert re.search(r'<span class="msg error" role="alert">[^<]*Sentence A is already used', text)


def test_the_landing_pages_say_saved_once_and_the_adjudicators_speaks_to_them(client, recam_dev_bytes):
    from tests.annotation.test_adjudication import gcrc_batch

    project, batch = gcrc_batch()
    annotators = client.get(reverse("surveys:invite", args=[invite_link_create(batch=batch).token])).content.decode()
    instructions = project.instructions or ""  # GCRC's project is in Chinese: "saved" is 保存
    assert annotators.count("保存") <= 1 + instructions.count("保存")
    assert "每一步之后都会保存您的答案" not in annotators  # the landing's own "answers are saved" is gone
    assert "请将接下来打开的页面加入书签" in annotators
    assert 'id="adjudicator-instructions"' not in annotators
    link = invite_link_create(batch=batch, role="adjudicator")
    adjudicators = client.get(reverse("surveys:invite", args=[link.token])).content.decode()
    assert 'id="adjudicator-instructions"' in adjudicators and "您将裁定两位标注员意见不一致的题目" in adjudicators
    assert not instructions or instructions[:40] not in adjudicators
