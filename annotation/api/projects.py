"""Researcher endpoints for projects, their items and importing items from a released file."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.conf import settings
from django.db.models import Count, QuerySet
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.kinds import ImportProblem, get_kind, kind_choices
from annotation.models import Item, Project, Team
from annotation.services.projects import project_create
from annotation.services.uploads import ImportTooLarge, items_import_file
from annotation.team_selectors import default_team_of, projects_visible_to, teams_of, visible_to

from .errors import Conflict, error_response
from .fields import NO_NUL, ExistingId, JsonTypes, SettingsField
from .params import id_param, id_parameter


class TeamField(ExistingId):
    """One of the requesting user's teams; another team's id is a 404, as an id nobody has."""

    def get_queryset(self) -> QuerySet[Team]:
        request = self.context.get("request")
        return teams_of(request.user) if request is not None else Team.objects.none()


class ProjectSerializer(JsonTypes, serializers.ModelSerializer):
    team = TeamField(
        queryset=Team.objects.all(),
        required=False,
        help_text="Only the team's members see the project. Default: your only team; required when you are in several.",
    )
    kind = serializers.ChoiceField(choices=kind_choices(), help_text="Task kind; fixed once items are imported.")
    language = serializers.ChoiceField(choices=settings.LANGUAGES, default="en", help_text="Of the annotator pages.")
    item_count = serializers.IntegerField(read_only=True, help_text="Items imported so far.")
    settings = SettingsField(required=False, help_text="Overrides of the kind's default settings.")

    class Meta:
        model = Project
        fields = [
            "id",
            "name",
            "team",
            "kind",
            "language",
            "instructions",
            "settings",
            "created_by",
            "created_at",
            "item_count",
        ]
        read_only_fields = ["created_by", "created_at"]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Settings of another kind than the project's are refused (409), as for a quality run. A
        new project goes to the user's only team unless another of theirs is named."""
        kind = attrs.get("kind") or (self.instance.kind if self.instance else None)
        foreign = sorted(set(attrs.get("settings") or {}) - set(get_kind(kind).settings_for(None))) if kind else []
        if foreign:
            raise Conflict(f"not settings of a {kind} project: {', '.join(foreign)}")
        if self.instance is None and "team" not in attrs:
            team = default_team_of(self.context["request"].user)
            if team is None:
                raise serializers.ValidationError({"team": "You are in several teams (or none): name the team."})
            attrs["team"] = team
        return attrs

    def validate_kind(self, value: str) -> str:
        """Items were parsed by the old kind's rules, so the kind cannot change under them (409: a
        well-formed request the project's state refuses)."""
        if self.instance is not None and value != self.instance.kind and self.instance.items.exists():
            raise Conflict("The kind cannot change once items are imported.")
        return value


class ItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = Item
        fields = ["id", "project", "external_id", "group_key", "source", "payload", "created_at"]
        read_only_fields = fields


class ImportRequestSerializer(serializers.Serializer):
    file = serializers.FileField(
        allow_empty_file=True,
        help_text="The dataset's released file, in the format of the project's kind (the kind's file_format).",
    )
    skip_conflicts = serializers.BooleanField(
        default=False,
        help_text="Skip records whose id the project already has with different content "
        "(default: such a record refuses the import with a 400 naming its line, id and fields).",
    )


class ImportReportSerializer(serializers.Serializer):
    created = serializers.IntegerField(help_text="New items added to the project.")
    duplicates = serializers.IntegerField(help_text="Records skipped because the project already has them.")
    total = serializers.IntegerField(help_text="Records in the file.")
    conflicts = serializers.IntegerField(
        help_text="Records skipped because their id has different content (skip_conflicts)."
    )


class ImportErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="What is wrong; nothing was imported.")
    line = serializers.IntegerField(allow_null=True, help_text="Line of the file at fault, when known.")
    field = serializers.CharField(allow_null=True, help_text="Field of the record at fault, when known.")


SETTINGS_CONFLICT = error_response(
    "Settings of another task kind than the project's, or a new kind for a project that has items."
)


@extend_schema_view(
    create=extend_schema(
        responses={
            201: ProjectSerializer,
            404: error_response("The team named does not exist or is not one of yours."),
            409: SETTINGS_CONFLICT,
        }
    ),
    update=extend_schema(responses={200: ProjectSerializer, 409: SETTINGS_CONFLICT}),
    partial_update=extend_schema(responses={200: ProjectSerializer, 409: SETTINGS_CONFLICT}),
)
class ProjectViewSet(viewsets.ModelViewSet):
    """Projects of one task kind each; staff with the Project model permissions."""

    serializer_class = ProjectSerializer
    required_permissions = None  # the model's; @action routes name their own

    def get_queryset(self) -> QuerySet[Project]:
        return projects_visible_to(self.request.user).annotate(item_count=Count("items")).order_by("-created_at")

    def perform_create(self, serializer: ProjectSerializer) -> None:
        project = project_create(**serializer.validated_data, created_by=self.request.user)
        setattr(project, "item_count", 0)  # noqa: B010 - what the list's Count annotation gives the others
        serializer.instance = project

    @extend_schema(
        request={"multipart/form-data": ImportRequestSerializer},
        responses={
            200: ImportReportSerializer,
            400: OpenApiResponse(
                ImportErrorSerializer,
                description="A bad record (named by line and field), "
                "or a request without a file (`line` and `field` null).",
            ),
            413: OpenApiResponse(ImportErrorSerializer, description="The file is over IMPORT_MAX_BYTES."),
        },
        summary="Import items from a released file (all or nothing)",
    )
    @action(
        detail=True,
        methods=["post"],
        url_path="import",
        parser_classes=[MultiPartParser],
        required_permissions={"POST": ["annotation.add_item"]},
    )
    def import_items(self, request: Request, pk: str | None = None) -> Response:
        """Any bad record imports nothing and the error names its line and field; records the
        project already holds are counted as duplicates, so re-importing is harmless."""
        project = self.get_object()
        form = ImportRequestSerializer(data=request.data)
        if not form.is_valid():
            field, messages = next(iter(form.errors.items()))
            return Response({"detail": " ".join(messages), "line": None, "field": field}, status=400)
        upload = form.validated_data["file"]
        try:
            report = items_import_file(
                project=project,
                fileobj=upload,
                size=upload.size,
                filename=upload.name,
                skip_conflicts=form.validated_data["skip_conflicts"],
            )
        except ImportProblem as exc:
            code = 413 if isinstance(exc, ImportTooLarge) else 400
            return Response({"detail": str(exc), "line": exc.line, "field": exc.field}, status=code)
        return Response(asdict(report))


@extend_schema_view(
    list=extend_schema(
        parameters=[
            id_parameter("project", "Only this project's items."),
            OpenApiParameter(
                "external_id", {"type": "string", "pattern": NO_NUL}, description="Only the item with this released id."
            ),
        ]
    )
)
class ItemViewSet(viewsets.ReadOnlyModelViewSet):
    """Imported items, read-only: items change only by importing."""

    serializer_class = ItemSerializer

    def get_queryset(self) -> QuerySet[Item]:
        qs = visible_to(self.request.user, Item.objects.order_by("id"))
        project = id_param(self.request, "project")
        if project is not None:
            qs = qs.filter(project_id=project)
        external_id = self.request.query_params.get("external_id")
        if external_id is not None and "\x00" in external_id:
            raise serializers.ValidationError({"external_id": ["Must not contain NUL characters."]})
        if external_id is not None:
            qs = qs.filter(external_id=external_id)
        return qs
