"""The researcher's preview of a project's annotator pages: every page of the task, on one item,
rendered with the templates and forms annotators get, read-only. Nothing here saves anything.

The item is the project's first imported one, or a record the researcher types in (read by the
kind's own `parse`, so a record the import would refuse is refused here with the same reason).
Staff of the project's team only: any other project answers 404, like one that does not exist.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import translation
from django.views.decorators.http import require_http_methods

from annotation.kinds import ImportProblem, PageForm, TaskKind, kind_of
from annotation.models import Item, Project
from annotation.selectors.teams import projects_visible_to
from annotation.structured_input import Refused, load_json

from .pages import ENGINE

#: one record, typed in: far more than any record of a released dataset
MAX_RECORD_BYTES = 1_000_000

#: what a page's context or form raises when it reads an earlier page's answer not given yet
NEEDS_EARLIER_ANSWERS = (KeyError, IndexError, TypeError)


class RecordForm(forms.Form):
    record = forms.CharField(
        required=False,
        strip=True,
        max_length=MAX_RECORD_BYTES,
        label="Or a record of your own",
        widget=forms.Textarea(attrs={"rows": 8, "cols": 80, "spellcheck": "false"}),
        help_text="One record as the import file holds it (a JSON object for JSON Lines). Empty: the "
        "project's first imported item. Nothing is saved.",
    )


@dataclass(frozen=True)
class PreviewPage:
    """One page as an annotator would see it given the answers before it: its place, its
    template, what it reveals and its form; `context` None: it shows what an earlier answer
    decides, so it waits for that answer."""

    index: int
    slug: str
    title: str
    template: str
    context: dict[str, Any] | None
    form: PageForm | None


def record_payload(kind: TaskKind, text: str) -> dict[str, Any]:
    """The item a typed record makes, by the kind's own parse; ImportProblem says what is wrong.
    A JSON object typed over several lines is put on one, as a JSON Lines file would hold it."""
    try:
        value = load_json(text, limit=MAX_RECORD_BYTES)
    except Refused as exc:
        if text.lstrip().startswith(("{", "[")):  # JSON, but not JSON the import would take
            raise ImportProblem(exc.message, line=exc.line, field=exc.path) from None
        value = None  # a table's row, or text the kind reads its own way
    if isinstance(value, dict):
        text = json.dumps(value, ensure_ascii=False)
    items = kind.parse(text)
    if not items:
        raise ImportProblem("the text holds no record")
    return items[0].payload


def preview_pages(kind: TaskKind, payload: Mapping[str, Any], data: Mapping[str, Any] | None) -> list[PreviewPage]:
    """The item's pages in order, as `kind.pages` gives them for the answers so far. `data`: the
    answers the researcher tried, each page's fields prefixed by its slug; a page they filled in
    and that validates counts as answered for the pages after it (so a page shown only after a
    given answer appears), and nothing is stored. Without answers, every page is shown as it
    would be before any answer; a page that reads an earlier answer waits for it."""
    answers: dict[str, Any] = {}
    shown: list[PreviewPage] = []
    while True:
        page = next((p for p in kind.pages(payload, answers) if p.slug not in {s.slug for s in shown}), None)
        if page is None:
            return shown
        prefix = page.slug
        bound = data is not None and any(key.startswith(f"{prefix}-") for key in data)
        try:
            context = kind.page_context(payload, page, answers)
            form = page.form_class(data if bound else None, payload=payload, answers=answers, prefix=prefix)
        except NEEDS_EARLIER_ANSWERS:
            context, form = None, None
        if form is not None and bound and form.is_valid():
            answers[page.slug] = form.answer()
        shown.append(PreviewPage(len(shown) + 1, page.slug, str(page.title), page.template, context, form))


@staff_member_required
@permission_required("annotation.view_project", raise_exception=True)
@require_http_methods(["GET", "POST"])
def preview(request: HttpRequest, project_id: int) -> HttpResponse:
    """GET: the first item's pages. POST (saves nothing): a typed record's, or the answers tried."""
    project: Project = get_object_or_404(projects_visible_to(request.user), pk=project_id)
    kind = kind_of(project)
    form = RecordForm(request.POST if request.method == "POST" else None)
    payload: Mapping[str, Any] | None = None
    source = ""
    if form.is_valid() and form.cleaned_data["record"]:
        try:
            payload, source = record_payload(kind, form.cleaned_data["record"]), "the record you typed"
        except ImportProblem as exc:
            form.add_error("record", f"Not a record this project can import: {exc}")
    elif not form.errors:
        first = Item.objects.filter(project=project).order_by("id").first()
        if first is not None:
            payload, source = first.payload, f"the first imported item, {first.external_id}"
    translation.activate(project.language)  # the pages as the project's annotators read them
    data = request.POST if request.method == "POST" else None
    context = {
        "project": project,
        "kind": kind,
        "instructions": project.instructions or str(kind.default_instructions),
        "record_form": form,
        "source": source,
        "pages": preview_pages(kind, payload, data) if payload is not None else [],
        "has_item": payload is not None,
    }
    return render(request, "surveys/preview.html", context, status=400 if form.errors else 200, using=ENGINE)
