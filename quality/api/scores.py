"""Scores API (staff only): a project's kind's reports and scorers (`TaskKind.scorers()`), listed
and run on uploaded files and the project's latest quality run. Thin views over quality.scoring."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.kinds import NothingToScore, ScoreProblem, Scorer, Upload, all_kinds, kind_of
from annotation.selectors.teams import projects_visible_to
from quality.scoring import kind_scorer, score_run

from .serializers import ScorerSerializer


def scorer_rows(scorers: dict[str, Scorer]) -> list[dict[str, Any]]:
    return [
        {"name": name, "description": scorer.description, "options": [vars(option) for option in scorer.options]}
        for name, scorer in scorers.items()
    ]


def _scorers_described() -> str:
    """Every kind's scorers and their options, for the schema's description."""
    lines = []
    for kind in all_kinds():
        for name, scorer in kind.scorers().items():
            options = ", ".join(f"`{o.name}`{' (required)' if o.required else ''}" for o in scorer.options)
            lines.append(f"- `{name}` ({kind.slug} projects; fields: {options or 'none'}): {scorer.description}")
    return "\n".join(lines)


def _request_schema() -> dict[str, Any]:
    """The form fields any scorer takes, and no others (a field one scorer takes and another does
    not is that one's 400: one schema covers every scorer of the path's `scorer`)."""
    fields: dict[str, Any] = {}
    for kind in all_kinds():
        for scorer in kind.scorers().values():
            for option in scorer.options:
                one = {"type": "string", "format": "binary"} if option.file else {"type": "string"}
                fields[option.name] = {"type": "array", "items": one} if option.many else one
    return {"type": "object", "properties": dict(sorted(fields.items())), "additionalProperties": False}


def _options(scorer: Scorer, request: Request) -> dict[str, Any]:
    """The request's form fields as the scorer's options: files as `Upload`s (a list where the
    option is `many`), text as it is; ScoreProblem for an unknown field or text given for a file."""
    options: dict[str, Any] = {}
    for name in {*request.FILES, *request.data}:
        option = scorer.option(name)
        if not option.file:
            options[name] = request.data.get(name)
        elif name not in request.FILES:
            raise ScoreProblem(f"field {name!r} must be an uploaded file: {option.help}")
        elif option.many:
            options[name] = [_upload(file) for file in request.FILES.getlist(name)]
        else:
            options[name] = _upload(request.FILES[name])
    return options


def _upload(file: Any) -> Upload:
    return Upload(getattr(file, "name", "") or "upload", file.read())


@extend_schema(tags=["quality"])
class ProjectScorersView(APIView):
    """The reports and scorers the project's kind offers, with the fields each takes."""

    required_permissions = {"GET": ["quality.view_qualityrun"]}

    @extend_schema(responses=ScorerSerializer(many=True))
    def get(self, request: Request, project_id: int) -> Response:
        project = get_object_or_404(projects_visible_to(request.user), pk=project_id)
        return Response(ScorerSerializer(scorer_rows(kind_of(project).scorers()), many=True).data)


@extend_schema(tags=["quality"])
class ProjectScoreView(APIView):
    """Run one of the kind's reports or scorers on the uploaded files and the project's cleaned
    data (its latest quality run). It writes nothing, so reading quality runs is enough."""

    required_permissions = {"POST": ["quality.view_qualityrun"]}
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "scorer",
                OpenApiTypes.STR,
                OpenApiParameter.PATH,
                enum=sorted({name for kind in all_kinds() for name in kind.scorers()}),
            )
        ],
        request={"multipart/form-data": _request_schema()},
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="the scorer's result"),
            400: OpenApiResponse(description="a malformed file (named with its line), or a missing or unknown field"),
            404: OpenApiResponse(
                description="no such project, or no such scorer for its kind (the known ones are named)"
            ),
            409: OpenApiResponse(description="nothing to score against yet: no finished quality run, or unrated pairs"),
        },
        description="The scorer's fields are multipart form fields (files, or text where a field is not a file; "
        "a field marked many may repeat). Scorers:\n\n" + _scorers_described(),
    )
    def post(self, request: Request, project_id: int, scorer: str) -> Response:
        project = get_object_or_404(projects_visible_to(request.user), pk=project_id)
        kind = kind_of(project)
        try:
            chosen = kind_scorer(kind, scorer)
        except ScoreProblem as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_404_NOT_FOUND)
        try:
            result = score_run(kind=kind, scorer=scorer, project=project, options=_options(chosen, request))
        except NothingToScore as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        except ScoreProblem as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(result)
