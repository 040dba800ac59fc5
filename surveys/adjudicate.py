"""The adjudicator's page: one task at a time, only its disputed fields, both annotations side
by side (Annotator 1 and 2 in a stable order, named by where they came from); per field the
final value is the first's, the second's, or the adjudicator's own, typed in the field's format
(shown by the box, checked as typed, parsed here: a value that does not parse is refused with
why). Parse, call one service, render; a decision is safe to post twice (the service compares
and sets)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from annotation.kinds import kind_of
from annotation.models import AdjudicationTask, Batch
from annotation.selectors.adjudication import (
    DisputedField,
    Side,
    adjudicator_by_key,
    disputed_fields,
    task_for_decision,
    task_sides,
    tasks_waiting,
)
from annotation.services.adjudication import (
    AdjudicationRefused,
    adjudication_decide,
    adjudication_task_next,
    adjudicator_for_user,
)

ENGINE = "jinja2"
CHOICES = (
    ("first", gettext_lazy("Annotator 1")),
    ("second", gettext_lazy("Annotator 2")),
    ("own", gettext_lazy("My own value")),
)


class DecisionForm(forms.Form):
    """One choice (and an own value) per disputed field; `values()` gives the final values."""

    def __init__(self, *args: Any, task: AdjudicationTask, fields: list[DisputedField], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.task, self.disputed = task, fields
        for field in fields:
            self.fields[f"choice_{field.name}"] = forms.ChoiceField(choices=CHOICES, widget=forms.RadioSelect)
            own = _("My own value")
            attrs = {"title": field.format.hint, "aria-describedby": f"format_{field.name}", "aria-label": own}
            attrs["placeholder"] = own
            if field.format.pattern:
                attrs["pattern"] = field.format.pattern
            if field.format.suggestions:
                attrs["list"] = f"suggest_{field.name}"
            self.fields[f"own_{field.name}"] = forms.CharField(required=False, widget=forms.TextInput(attrs=attrs))

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        kind, payload = kind_of(self.task.item.project), self.task.item.payload
        self.final: dict[str, Any] = {}
        for field in self.disputed:
            choice = data.get(f"choice_{field.name}")
            if choice == "own":
                try:
                    self.final[field.name] = kind.adjudication_value(
                        payload, field.name, data.get(f"own_{field.name}", "")
                    )
                except ValueError as exc:
                    self.add_error(f"own_{field.name}", str(exc) or _("This is not a value of this field."))
            elif choice is not None:
                self.final[field.name] = field.first if choice == "first" else field.second
        return data


@never_cache
@require_http_methods(["GET", "POST"])
def adjudicate(request: HttpRequest, key: str) -> HttpResponse:
    adjudicator = adjudicator_by_key(key)
    if adjudicator is None:
        raise Http404(_("Unknown link"))
    project = adjudicator.project
    translation.activate(project.language)
    if request.method == "POST":
        return _decide(request, adjudicator)
    task = adjudication_task_next(adjudicator=adjudicator)
    if task is None:
        reason = _("There is nothing to adjudicate at the moment. Thank you!")
        return render(request, "surveys/done.html", {"project": project, "reason": reason}, using=ENGINE)
    mine = task_for_decision(task.pk, adjudicator)
    if mine is None:  # a task of another batch than the link's: nothing to decide here
        reason = _("There is nothing to adjudicate at the moment. Thank you!")
        return render(request, "surveys/done.html", {"project": project, "reason": reason}, using=ENGINE)
    sides = task_sides(mine)
    fields = disputed_fields(mine, sides)
    return _page(request, mine, sides, fields, DecisionForm(task=mine, fields=fields))


def _decide(request: HttpRequest, adjudicator: Any) -> HttpResponse:
    try:
        task = task_for_decision(int(request.POST.get("task", "")), adjudicator)
    except ValueError:
        task = None
    if task is None:
        raise Http404(_("Unknown item"))
    sides = task_sides(task)
    fields = disputed_fields(task, sides)
    form = DecisionForm(request.POST, task=task, fields=fields)
    if not form.is_valid():
        return _page(request, task, sides, fields, form, status=400)
    try:
        if adjudication_decide(task=task, adjudicator=adjudicator, values=form.final):
            messages.success(request, _("Saved. Here is the next item."))
    except AdjudicationRefused as exc:
        messages.error(request, str(exc))
    return redirect(request.path)


def _page(
    request: HttpRequest,
    task: AdjudicationTask,
    sides: tuple[Side, Side],
    fields: list[DisputedField],
    form: DecisionForm,
    status: int = 200,
) -> HttpResponse:
    item = task.item
    context = {
        "project": item.project,
        "task": task,
        "sides": [side.name for side in sides],
        "waiting": tasks_waiting(task),
        "fields": fields,
        "form": form,
        "item_text": kind_of(item.project).adjudication_item(item.payload),
    }
    return render(request, "surveys/adjudicate/task.html", context, status=status, using=ENGINE)


@login_required
@require_http_methods(["GET"])
def adjudicate_login(request: HttpRequest, batch_id: int) -> HttpResponse:
    """A named login's way in: their adjudicator page of the batch (the batch's setup names them).
    A login the batch does not name gets the 404 of a batch that does not exist (SECURITY.md: ids
    of other teams' objects do not leak)."""
    batch = get_object_or_404(Batch, pk=batch_id)
    try:
        adjudicator = adjudicator_for_user(batch=batch, user=request.user)
    except AdjudicationRefused:
        raise Http404(_("Unknown batch")) from None
    return redirect("surveys:adjudicate", key=adjudicator.access_key)
