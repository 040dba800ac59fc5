"""Predictions API: a project's models (their names, how many predictions, when imported), and
importing a model's predictions from an uploaded file. A thin view over
quality.services.predictions; the next quality run scores what it imports."""

from __future__ import annotations

from dataclasses import asdict

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.fields import JsonTypes
from annotation.kinds import ImportProblem
from annotation.selectors.teams import projects_visible_to
from quality.prediction_selectors import prediction_imports
from quality.services.predictions import MAX_MODEL_NAME, predictions_import


class PredictionsRequestSerializer(JsonTypes):
    file = serializers.FileField(
        allow_empty_file=True,
        help_text='JSON Lines or a JSON array: each record the item\'s "id" as imported and label fields with '
        "the model's values; for a task file project also a Label Studio export with predictions "
        "(docs/predictions.md).",
    )
    model = serializers.CharField(
        max_length=MAX_MODEL_NAME,
        required=False,
        default="",
        allow_blank=True,
        help_text='The model\'s name, e.g. "gpt-x-zero-shot"; for a Label Studio export, instead of each '
        "prediction's model_version.",
    )


class PredictionsReportSerializer(serializers.Serializer):
    model = serializers.CharField(help_text='The model\'s name (several models of one file: joined by ", ").')
    created = serializers.IntegerField(help_text="Predictions imported.")
    replaced = serializers.IntegerField(help_text="The model's earlier predictions, replaced.")
    unnamed = serializers.CharField(
        help_text='The name given to predictions naming no model (model_version ""), after the file; "": none.'
    )


class PredictionsErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="What is wrong; nothing was imported.")
    line = serializers.IntegerField(allow_null=True, help_text="Line of the file the record starts on, when known.")
    field = serializers.CharField(allow_null=True, help_text="Field of the record at fault, when known.")


class ModelSerializer(serializers.Serializer):
    model = serializers.CharField()
    predictions = serializers.IntegerField()
    imported_at = serializers.DateTimeField()


@extend_schema(tags=["quality"])
class ProjectPredictionsView(APIView):
    """A project's models' predictions: listed by model, and imported (all or nothing, a model's
    name again replaces its predictions). Never part of the human labels."""

    required_permissions = {"GET": ["quality.view_prediction"], "POST": ["quality.add_prediction"]}
    parser_classes = [MultiPartParser]

    @extend_schema(responses=ModelSerializer(many=True))
    def get(self, request: Request, project_id: int) -> Response:
        project = get_object_or_404(projects_visible_to(request.user), pk=project_id)
        rows = [
            {"model": model, "predictions": n, "imported_at": at}
            for model, (n, at) in prediction_imports(project).items()
        ]
        return Response(ModelSerializer(rows, many=True).data)

    @extend_schema(
        request={"multipart/form-data": PredictionsRequestSerializer},
        responses={
            200: PredictionsReportSerializer,
            400: OpenApiResponse(PredictionsErrorSerializer, description="A bad record, named by line and field."),
            404: OpenApiResponse(description="No such project."),
        },
        summary="Import a model's predictions (all or nothing)",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project = get_object_or_404(projects_visible_to(request.user), pk=project_id)
        form = PredictionsRequestSerializer(data=request.data)
        if not form.is_valid():
            field, messages = next(iter(form.errors.items()))
            return Response({"detail": " ".join(messages), "line": None, "field": field}, status=400)
        try:
            report = predictions_import(
                project=project,
                data=form.validated_data["file"].read(),
                model=form.validated_data["model"],
                filename=getattr(form.validated_data["file"], "name", "") or "",
            )
        except ImportProblem as exc:
            return Response(
                {"detail": str(exc), "line": exc.line, "field": exc.field}, status=status.HTTP_400_BAD_REQUEST
            )
        return Response(PredictionsReportSerializer(asdict(report)).data)
