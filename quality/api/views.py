"""Quality API (staff only): start and read quality runs, stream exports. Thin views."""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.kinds import get_kind
from annotation.models import Project
from quality.exports import ExportUnavailable, export_open
from quality.exports.http import export_response
from quality.models import QualityRun
from quality.selectors import project_runs, run_with_counts, runs_with_counts
from quality.services.runs import quality_run_request

from .serializers import ExportQuerySerializer, QualityRunRequestSerializer, QualityRunSerializer


@extend_schema(tags=["quality"])
class ProjectQualityRunsView(generics.ListAPIView):
    """A project's quality runs, newest first; POST starts a new one."""

    permission_classes = [IsAdminUser]
    serializer_class = QualityRunSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return QualityRun.objects.none()
        return project_runs(get_object_or_404(Project, pk=self.kwargs["project_id"]))

    @extend_schema(
        request=QualityRunRequestSerializer,
        responses={201: QualityRunSerializer, 202: QualityRunSerializer},
        description="Run the project's quality rules (through the `run_quality` task). 201 when the run "
        "has already finished (no broker: tasks run inline), 202 while a worker is still on it.",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project = get_object_or_404(Project, pk=project_id)
        kind = get_kind(project.kind)
        body = QualityRunRequestSerializer(data=request.data, known_settings=kind.default_settings)
        body.is_valid(raise_exception=True)
        run = quality_run_request(project=project, by=request.user, overrides=body.validated_data["settings"])
        run = run_with_counts(run.pk)
        code = status.HTTP_202_ACCEPTED if run.status == QualityRun.Status.RUNNING else status.HTTP_201_CREATED
        return Response(QualityRunSerializer(run).data, status=code)


@extend_schema(tags=["quality"])
class QualityRunDetailView(generics.RetrieveAPIView):
    """One quality run: status, parameters, summary and decision counts."""

    permission_classes = [IsAdminUser]
    serializer_class = QualityRunSerializer
    queryset = runs_with_counts()


class IgnoreFormatParameter(DefaultContentNegotiation):
    """Here `?format=` names the export's file format, not a DRF renderer; errors are JSON."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


@extend_schema(tags=["quality"])
class ProjectExportView(APIView):
    permission_classes = [IsAdminUser]
    content_negotiation_class = IgnoreFormatParameter

    @extend_schema(
        parameters=[ExportQuerySerializer],
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.BINARY, description="CSV with a header row"),
            (200, "application/x-ndjson"): OpenApiResponse(OpenApiTypes.BINARY, description="one JSON object per line"),
            (409, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description="needs a finished quality run"),
        },
        description="Stream a dataset of the project: raw (every annotation), clean (kept by the latest "
        "quality run), items (released format plus quality columns), annotators, decisions.",
    )
    def get(self, request: Request, project_id: int):
        project = get_object_or_404(Project, pk=project_id)
        query = ExportQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        try:
            export = export_open(project=project, dataset=query.validated_data["dataset"],
                                 fmt=query.validated_data["format"])
        except ExportUnavailable as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return export_response(export)
