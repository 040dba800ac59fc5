"""Exports in the API (staff only): a download at once (small exports), and export jobs that
write a file in the background: create, status, download. Thin views."""

from __future__ import annotations

from django.conf import settings
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.errors import Conflict, error_response
from annotation.selectors.teams import projects_visible_to, visible_to
from quality.exports import ExportUnavailable, Options, UnknownExport, export_open
from quality.exports.http import export_job_response, export_response
from quality.models import ExportJob
from quality.selectors import export_jobs, project_export_jobs
from quality.services.exports import export_job_create

from .serializers import ExportJobSerializer, ExportQuerySerializer

FILE_RESPONSES = {
    (200, "text/csv"): OpenApiResponse(OpenApiTypes.BINARY, description="CSV with a header row"),
    (200, "text/tab-separated-values"): OpenApiResponse(OpenApiTypes.BINARY, description="tab-separated values"),
    (200, "application/x-ndjson"): OpenApiResponse(OpenApiTypes.BINARY, description="one JSON object per line"),
    (200, "application/json"): OpenApiResponse(OpenApiTypes.BINARY, description="one JSON array (label_studio)"),
}
#: what every file answer carries (documented so clients can rely on them)
FILE_HEADERS = [
    OpenApiParameter(
        "X-Export-Cells",
        str,
        OpenApiParameter.HEADER,
        response=[200],
        enum=["exact", "spreadsheet-safe"],
        description="How CSV/TSV cells were written.",
    ),
    OpenApiParameter(
        "Content-Disposition",
        str,
        OpenApiParameter.HEADER,
        response=[200],
        description="attachment, with the file's name",
    ),
]
UNAVAILABLE = error_response(
    "Not available for this project: a dataset of another task kind (the detail lists "
    "the project's), one that needs a finished quality run, or (a download at once) one larger than "
    "EXPORT_STREAM_MAX_RECORDS: start an export job."
)
DATASETS_TEXT = (
    "raw (every annotation), clean (kept by the latest quality run), items (released format plus quality "
    "columns), annotators, decisions, participants (the study steps per annotator and batch), label_studio "
    "(Label Studio's task JSON, format json), and the further "
    "released formats of the project's kind."
)


def _options(data: dict) -> Options:
    return Options(spreadsheet_safe=data["spreadsheet_safe"], item_text=data["item_text"])


class IgnoreFormatParameter(DefaultContentNegotiation):
    """Here `?format=` names the export's file format, not a DRF renderer; errors are JSON."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


@extend_schema(tags=["quality"])
class ProjectExportView(APIView):
    """Export permissions are those of export jobs: view to download, add to start a job."""

    required_permissions = {"GET": ["quality.view_exportjob"]}
    content_negotiation_class = IgnoreFormatParameter

    @extend_schema(
        parameters=[ExportQuerySerializer, *FILE_HEADERS],
        responses={**FILE_RESPONSES, (409, "application/json"): UNAVAILABLE},
        description="Stream a dataset of the project at once (small exports: up to EXPORT_STREAM_MAX_RECORDS "
        "source records, default 100,000; a larger one answers 409 and is an export job, POST .../exports/): "
        f"{DATASETS_TEXT} The X-Export-Cells header says exact or spreadsheet-safe.",
    )
    def get(self, request: Request, project_id: int):
        project = get_object_or_404(projects_visible_to(request.user), pk=project_id)
        query = ExportQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        try:
            export = export_open(
                project=project,
                dataset=data["dataset"],
                fmt=data.get("format"),
                options=_options(data),
                max_records=settings.EXPORT_STREAM_MAX_RECORDS,
            )
        except (ExportUnavailable, UnknownExport) as exc:
            raise Conflict(str(exc)) from None
        return export_response(export)


@extend_schema(tags=["quality"])
class ProjectExportJobsView(generics.ListAPIView):
    """A project's export jobs, newest first; POST starts one."""

    required_permissions = {"GET": ["quality.view_exportjob"], "POST": ["quality.add_exportjob"]}
    serializer_class = ExportJobSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return ExportJob.objects.none()
        return project_export_jobs(
            get_object_or_404(projects_visible_to(self.request.user), pk=self.kwargs["project_id"])
        )

    @extend_schema(
        request=ExportQuerySerializer,
        responses={
            201: ExportJobSerializer,
            202: ExportJobSerializer,
            409: UNAVAILABLE,
        },
        description=f"Start an export job that writes a file in the background: {DATASETS_TEXT} 201 when it has "
        "already finished (no broker: tasks run inline), 202 while a worker is on it; poll the job, then "
        "download its file.",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project = get_object_or_404(projects_visible_to(request.user), pk=project_id)
        body = ExportQuerySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            job = export_job_create(
                project=project,
                dataset=data["dataset"],
                fmt=data.get("format"),
                options=_options(data),
                by=request.user,
            )
        except (ExportUnavailable, UnknownExport) as exc:
            raise Conflict(str(exc)) from None
        return job_started(request, job)


def job_started(request: Request, job: ExportJob) -> Response:
    """The job just started: 201 when already finished (no broker: tasks ran inline), 202 while a worker is on it."""
    job.refresh_from_db()
    finished = job.status in (ExportJob.Status.DONE, ExportJob.Status.FAILED)
    code = status.HTTP_201_CREATED if finished else status.HTTP_202_ACCEPTED
    return Response(ExportJobSerializer(job, context={"request": request}).data, status=code)


@extend_schema(tags=["quality"])
class ExportJobDetailView(generics.RetrieveAPIView):
    """One export job: status, progress, rows, size, and its download URL once done."""

    serializer_class = ExportJobSerializer
    queryset = export_jobs()  # the model for the schema; each request sees its teams' jobs only

    def get_queryset(self) -> QuerySet[ExportJob]:
        return visible_to(self.request.user, super().get_queryset())


@extend_schema(tags=["quality"])
class ExportJobDownloadView(APIView):
    required_permissions = {"GET": ["quality.view_exportjob"]}

    @extend_schema(
        parameters=FILE_HEADERS,
        responses={
            **FILE_RESPONSES,
            (404, "application/json"): error_response("No such job, not done yet, or its file has expired."),
        },
        description="The finished job's file (X-Export-Cells says exact or spreadsheet-safe).",
    )
    def get(self, request: Request, pk: int):
        return export_job_response(get_object_or_404(visible_to(request.user, export_jobs()), pk=pk))
