"""Researcher endpoints for projects, their items and importing items from a released file."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, QuerySet
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.kinds import (
    TASK_FILE_KIND,
    ImportProblem,
    TaskFileError,
    TaskKind,
    get_kind,
    kind_choices,
    kind_of,
    task_file_kind,
)
from annotation.models import Item, Project, Team
from annotation.selectors.teams import default_team_of, projects_visible_to, teams_of, visible_to
from annotation.services.projects import project_create, project_task_file_change
from annotation.services.uploads import ImportTooLarge, items_import_file

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
    kind = serializers.ChoiceField(
        choices=[*kind_choices(), (TASK_FILE_KIND, "From a task file")],
        required=False,
        help_text=f"Task kind; fixed once items are imported. `{TASK_FILE_KIND}`: the project's task is its "
        "task_file (leave kind out and give task_file). A new project needs kind or task_file.",
    )
    task_file = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        help_text="A task file's text, YAML or JSON (docs/task-files.md); empty for a project of a built-in "
        "kind. Invalid: 400 with one message per problem (its line and key path). On update, the file's "
        "new version; once the project has annotations, only its words may change (409 otherwise).",
    )
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
            "task_file",
            "created_by",
            "created_at",
            "item_count",
        ]
        read_only_fields = ["created_by", "created_at"]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Settings of another kind than the project's are refused (409), as for a quality run. A
        new project goes to the user's only team unless another of theirs is named."""
        kind = self._task_kind(attrs)
        foreign = sorted(set(attrs.get("settings") or {}) - set(kind.settings_for(None))) if kind else []
        if kind is not None and foreign:
            raise Conflict(f"not settings of a {attrs.get('kind') or kind.title} project: {', '.join(foreign)}")
        problems = kind.settings_problems(attrs.get("settings") or {}) if kind is not None else []
        if kind is not None and problems:  # e.g. a method for a field the kind lacks
            raise Conflict(
                f"settings that do not fit a {attrs.get('kind') or kind.title} project: {'; '.join(problems)}"
            )
        if self.instance is None and "team" not in attrs:
            team = default_team_of(self.context["request"].user)
            if team is None:
                raise serializers.ValidationError({"team": "You are in several teams (or none): name the team."})
            attrs["team"] = team
        return attrs

    def _task_kind(self, attrs: dict[str, Any]) -> TaskKind | None:
        """The kind the project will have: its new task file's, the kind named, or its own. A new
        project names a kind or gives a task file, not both."""
        text, slug = attrs.get("task_file") or "", attrs.get("kind") or ""
        if self.instance is None:
            if text and slug not in ("", TASK_FILE_KIND):
                raise serializers.ValidationError({"kind": ["Leave kind out when you give a task_file."]})
            if not text and slug in ("", TASK_FILE_KIND):
                raise serializers.ValidationError({"kind": ["Give a task kind, or a task_file."]})
        if text:
            return task_file_kind(text)  # validate_task_file read it already (cached)
        if slug and (self.instance is None or slug != self.instance.kind):
            return get_kind(slug)
        return kind_of(self.instance) if self.instance is not None else None

    def validate_kind(self, value: str) -> str:
        """Items were parsed by the old kind's rules, so the kind cannot change under them (409: a
        well-formed request the project's state refuses); a task file's project keeps its file."""
        if self.instance is not None and value != self.instance.kind:
            if self.instance.items.exists():
                raise Conflict("The kind cannot change once items are imported.")
            if TASK_FILE_KIND in (value, self.instance.kind):
                raise Conflict("A project's kind cannot change to or from a task file; make a new project.")
        return value

    def validate_task_file(self, value: str) -> str:
        """Checked as the admin and create_project check it: each problem one message, with its
        line and key path. Only a project made from a task file has one to change (409)."""
        value = value.replace("\r\n", "\n")
        if self.instance is not None and value != self.instance.task_file and self.instance.kind != TASK_FILE_KIND:
            raise Conflict("This project's kind is not from a task file; make a new project from the file.")
        if self.instance is not None and self.instance.kind == TASK_FILE_KIND and not value:
            raise serializers.ValidationError("A project made from a task file keeps one: give its new version.")
        if value:
            try:
                task_file_kind(value)
            except TaskFileError as exc:
                raise serializers.ValidationError([str(problem) for problem in exc.problems]) from None
        return value


class ItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = Item
        fields = ["id", "project", "external_id", "group_key", "source", "payload", "created_at"]
        read_only_fields = fields


class ImportRequestSerializer(JsonTypes):
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
    annotations = serializers.IntegerField(
        help_text="Annotations the file carried (a Label Studio export's) that its items did not have yet, "
        "imported as completed annotations."
    )
    skipped_annotations = serializers.IntegerField(
        help_text="Annotations the file carried that were left out (cancelled in Label Studio)."
    )
    merged_annotations = serializers.IntegerField(
        help_text="Of `annotations`, those added to items the project had already (a re-import's new ones)."
    )
    ignored_keys = serializers.ListField(
        child=serializers.CharField(),
        help_text="Keys of the file's records not read, carrying no data (a Label Studio task's allow_skip...).",
    )


class ImportErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="What is wrong; nothing was imported.")
    line = serializers.IntegerField(allow_null=True, help_text="Line of the file at fault, when known.")
    field = serializers.CharField(allow_null=True, help_text="Field of the record at fault, when known.")


SETTINGS_CONFLICT = error_response(
    "Settings of another task kind than the project's, a new kind for a project that has items, or a "
    "change of the task file beyond its words once the project has annotations."
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
        data = dict(serializer.validated_data)
        if data.get("task_file"):
            data["kind"] = ""  # the file's
        project = project_create(**data, created_by=self.request.user)
        setattr(project, "item_count", 0)  # noqa: B010 - what the list's Count annotation gives the others
        serializer.instance = project

    def perform_update(self, serializer: ProjectSerializer) -> None:
        """A new task file goes through its service (which may refuse it: 409); the rest is saved
        as given, in the same transaction, so a refused file changes nothing."""
        project: Project = serializer.instance
        text = serializer.validated_data.pop("task_file", project.task_file)
        with transaction.atomic():
            if text != project.task_file:
                try:
                    project.task_file = project_task_file_change(project=project, text=text).task_file
                except ValueError as exc:
                    raise Conflict(str(exc)) from None
            serializer.save()

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
