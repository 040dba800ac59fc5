"""Quality API (staff only): start and read quality runs, score submissions. Thin views.
Exports are in `exports.py`."""
from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.kinds import get_kind
from annotation.team_selectors import projects_visible_to, visible_to
from quality.cosimlex import NoData, gold_from_file, project_gold, score_submission
from quality.models import QualityRun
from quality.selectors import project_runs, run_with_counts, runs_with_counts
from quality.services.runs import quality_run_request
from quality.stats.semeval_scoring import KitFormatError

from .serializers import (
    QualityRunRequestSerializer,
    QualityRunSerializer,
    ScoreRequestSerializer,
    ScoreSerializer,
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
        responses={201: QualityRunSerializer, 202: QualityRunSerializer},
        description="Run the project's quality rules (through the `run_quality` task). 201 when the run "
        "has already finished (no broker: tasks run inline), 202 while a worker is still on it.",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project = get_object_or_404(projects_visible_to(request.user), pk=project_id)
        kind = get_kind(project.kind)
        body = QualityRunRequestSerializer(data=request.data, known_settings=kind.settings_for(None))
        body.is_valid(raise_exception=True)
        run = quality_run_request(project=project, by=request.user, overrides=body.validated_data["settings"])
        run = run_with_counts(run.pk)
        code = status.HTTP_202_ACCEPTED if run.status == QualityRun.Status.RUNNING else status.HTTP_201_CREATED
        return Response(QualityRunSerializer(run).data, status=code)


@extend_schema(tags=["quality"])
class QualityRunDetailView(generics.RetrieveAPIView):
    """One quality run: status, parameters, summary and decision counts."""

    serializer_class = QualityRunSerializer
    queryset = runs_with_counts()  # the model for the schema; each request sees its teams' runs only

    def get_queryset(self) -> QuerySet[QualityRun]:
        return visible_to(self.request.user, super().get_queryset())


@extend_schema(tags=["quality"])
class ProjectScoreView(APIView):
    """Score a system's SemEval-2020 Task 3 submission for one language against a CoSimLex
    project's cleaned data (its latest quality run) or an uploaded kit gold file. It writes
    nothing, so reading quality runs is enough."""

    required_permissions = {"POST": ["quality.view_qualityrun"]}
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        request={"multipart/form-data": ScoreRequestSerializer},
        responses={
            200: ScoreSerializer,
            400: OpenApiResponse(description="a malformed file, named with its line, or not a CoSimLex project"),
            409: OpenApiResponse(description="no finished quality run, or pairs without kept ratings, to score against"),
        },
        description="Subtask 1: uncentered Pearson of the predicted and gold change. Subtask 2: harmonic mean "
        "of Pearson and Spearman over the interleaved ratings [c1_1, c2_1, c1_2, ...] (the organisers' scorer).",
    )
    def post(self, request: Request, project_id: int):
        project = get_object_or_404(projects_visible_to(request.user), pk=project_id)
        if project.kind != "cosimlex":
            return Response({"detail": "scoring is defined for CoSimLex projects"}, status=status.HTTP_400_BAD_REQUEST)
        query = ScoreRequestSerializer(data=request.data)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        try:
            gold = gold_from_file(data["gold"]) if data.get("gold") else project_gold(project)
            scores = score_submission(gold, subtask1=data.get("subtask1"), subtask2=data.get("subtask2"))
        except NoData as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        except KitFormatError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(ScoreSerializer(scores).data)
