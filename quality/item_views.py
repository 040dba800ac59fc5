"""The researcher's item page: one item's annotations side by side, and accepting or rejecting
one annotation (staff of the project's team only; any other project's item answers 404).

Reading needs the quality runs' view permission, deciding the researcher decisions' add
permission (403 without). Thin views: parse, call one selector or service, render or redirect.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotation.models import Item, Response
from annotation.selectors.teams import visible_to
from quality.forms import ResearcherDecisionForm
from quality.item_selectors import item_page
from quality.services.decisions import DecisionRefused, response_decide


def _item(request: HttpRequest, project_id: int, item_id: int) -> Item:
    """An item of a project the user may reach; any other answers 404, like one that does not exist."""
    items = visible_to(request.user, Item.objects.select_related("project"))
    return get_object_or_404(items, pk=item_id, project_id=project_id)


@staff_member_required
@permission_required("quality.view_qualityrun", raise_exception=True)
@require_GET
def item(request: HttpRequest, project_id: int, item_id: int) -> HttpResponse:
    found = _item(request, project_id, item_id)
    context = {
        **admin.site.each_context(request),
        "title": f"Item {found.external_id}",
        "project": found.project,
        "page": item_page(found),
        "can_decide": request.user.has_perm("quality.add_researcherdecision"),
        "form": ResearcherDecisionForm(),
    }
    return render(request, "quality/item.html", context)


@staff_member_required
@permission_required("quality.add_researcherdecision", raise_exception=True)
@require_POST
def item_decide(request: HttpRequest, project_id: int, item_id: int) -> HttpResponse:
    """Accept or reject one of the item's annotations; the next quality run respects it."""
    found = _item(request, project_id, item_id)
    form = ResearcherDecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Nothing decided: {form.errors.as_text()}")
        return redirect("quality:item", project_id=found.project_id, item_id=found.pk)
    response = get_object_or_404(Response, pk=form.cleaned_data["response"], item=found)
    try:
        decision = response_decide(
            response=response, decision=form.cleaned_data["decision"], note=form.cleaned_data["note"], by=request.user
        )
    except DecisionRefused as exc:
        messages.error(request, f"Nothing decided: {exc}.")
    else:
        messages.success(
            request,
            f"Annotation {response.pk} {decision.get_decision_display().lower()}; "
            "the next quality run respects it (Run quality now on the report).",
        )
    return redirect("quality:item", project_id=found.project_id, item_id=found.pk)
