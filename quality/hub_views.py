"""The report page's "Prepare a Hub folder" button: a Hub dataset folder written by an export
job as a zip, listed with the other export files (staff with the export jobs' add permission)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from annotation.selectors.teams import projects_visible_to
from quality.exports import ExportUnavailable
from quality.exports.hub import SplitError
from quality.forms import HubFolderForm
from quality.services.exports import hub_export_job_create
from quality.views import announce_job


@staff_member_required
@permission_required("quality.add_exportjob", raise_exception=True)
@require_POST
def hub_export_start(request: HttpRequest, project_id: int) -> HttpResponse:
    """Start the job; the report page lists it with its download once written."""
    project = get_object_or_404(projects_visible_to(request.user), pk=project_id)
    form = HubFolderForm(request.POST)
    back = redirect("quality:report", project_id=project.pk)
    if not form.is_valid():
        messages.error(request, f"Hub folder not started: {_problems(form)}")
        return back
    try:
        job = hub_export_job_create(project=project, options=form.cleaned_data["options"], by=request.user)
    except (ExportUnavailable, SplitError) as exc:  # no finished run; batches or key values that do not fit
        messages.error(request, f"Hub folder not started: {exc}")
        return back
    announce_job(request, job, what="Hub folder")
    return back


def _problems(form: HubFolderForm) -> str:
    """The form's errors, a field's named by its label."""
    problems = [str(e) for e in form.non_field_errors()]
    for name, errors in form.errors.items():
        if name != "__all__":
            problems.append(f"{form.fields[name].label}: {' '.join(str(e) for e in errors)}")
    return " ".join(problems)
