"""Quality API (staff only): start and read quality runs. Thin views. Exports are in
`exports.py`, a kind's scorers in `scores.py`."""

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.api.errors import Conflict, error_response
from annotation.kinds import kind_of
from annotation.selectors.teams import projects_visible_to, visible_to
from quality.models import QualityRun
from quality.selectors import project_runs, run_with_counts, runs_with_counts
from quality.services.runs import quality_run_request

from .serializers import (
    QualityRunRequestSerializer,
    QualityRunSerializer,
)


@extend_schema(tags=["quality"])
class ProjectQualityRunsView(generics.ListAPIView):
    """A project's quality runs, newest first; POST starts a new one."""

    required_permissions = {"GET": ["quality.view_qualityrun"], "POST": ["quality.add_qualityrun"]}
    serializer_class = QualityRunSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return QualityRun.objects.none()
        return project_runs(get_object_or_404(projects_visible_to(self.request.user), pk=self.kwargs["project_id"]))

    @extend_schema(
        request=QualityRunRequestSerializer,
        responses={
            201: QualityRunSerializer,
            202: QualityRunSerializer,
            409: error_response(
                "A setting of another task kind than the project's, or an aggregation method for a "
                "label field the project lacks or does not aggregate."
            ),
        },
        description="Run the project's quality rules (through the `run_quality` task). 201 when the run "
        "has already finished (no broker: tasks run inline), 202 while a worker is still on it.",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project = get_object_or_404(projects_visible_to(request.user), pk=project_id)
        kind = kind_of(project)
        body = QualityRunRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        foreign = sorted(set(body.validated_data["settings"]) - set(kind.settings_for(None)))
        if foreign:
            raise Conflict(
                f"not settings of a {project.kind} project: {', '.join(foreign)}; its settings: "
                f"{', '.join(sorted(kind.settings_for(None)))}"
            )
        problems = kind.settings_problems(body.validated_data["settings"])
        if problems:  # e.g. a method for a field the kind lacks: a setting that does not fit this project
            raise Conflict(f"settings that do not fit this {project.kind} project: {'; '.join(problems)}")
        started = quality_run_request(project=project, by=request.user, overrides=body.validated_data["settings"])
        run = run_with_counts(started.pk)
        if run is None:  # deleted meanwhile (another researcher, or the project)
            raise NotFound("the quality run was deleted while it started")
        code = status.HTTP_202_ACCEPTED if run.status == QualityRun.Status.RUNNING else status.HTTP_201_CREATED
        return Response(QualityRunSerializer(run).data, status=code)


@extend_schema(tags=["quality"])
class QualityRunDetailView(generics.RetrieveAPIView):
    """One quality run: status, parameters, summary and decision counts."""

    serializer_class = QualityRunSerializer
    queryset = runs_with_counts()  # the model for the schema; each request sees its teams' runs only

    def get_queryset(self) -> QuerySet[QualityRun]:
        return visible_to(self.request.user, super().get_queryset())
