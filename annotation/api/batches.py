"""Researcher endpoints for batches, their progress and the invite links that hand them out."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_view
from rest_framework import exceptions, mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.channels import channel_choices
from annotation.kinds import kind_of
from annotation.models import Batch, InviteLink, Item, ModelConnection, Project
from annotation.models.work import SUGGESTION_CHOICES
from annotation.selectors.batches import batches_with_progress, invite_url, labels_saved, progress_of
from annotation.selectors.teams import projects_visible_to, teams_of, visible_to
from annotation.services.assignments import assignments_release_abandoned
from annotation.services.batches import (
    ADAPTIVE_FIELDS,
    BatchError,
    adaptive_problem,
    batch_create,
    invite_link_create,
    study_check,
    suggestions_problem,
)
from annotation.studies import StudyFileError

from .calls import ChannelCallSerializer
from .errors import Conflict, error_response
from .fields import MAX_COUNT, ExistingId, IdList, JsonTypes
from .params import id_param, id_parameter


class ProgressSerializer(serializers.Serializer):
    units = serializers.IntegerField()
    slots = serializers.IntegerField(help_text="Units × distinct annotators per item.")
    active = serializers.IntegerField(help_text="Assignments being worked on.")
    submitted = serializers.IntegerField(help_text="Assignments finished (including reviewed ones).")
    released = serializers.IntegerField(help_text="Assignments abandoned and released to others.")


class LabelsSavedSerializer(serializers.Serializer):
    labels_given = serializers.IntegerField(help_text="Completed labels so far.")
    fixed_labels = serializers.IntegerField(help_text="Items × annotators per item: fixed redundancy's cost.")
    items_settled = serializers.IntegerField(help_text="Items adaptive redundancy hands out no more.")
    saved_on_settled = serializers.IntegerField(
        help_text="On the settled items, fixed redundancy's labels less those they took (negative: they took more)."
    )


class BatchSerializer(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()
    labels = serializers.SerializerMethodField(help_text="Adaptive redundancy: labels saved against fixed redundancy.")

    class Meta:
        model = Batch
        fields = [
            "id",
            "project",
            "name",
            "channel",
            "status",
            "items_per_unit",
            "assignments_per_unit",
            "release_after_minutes",
            "handout",
            "pilot_items",
            "study",
            "adaptive",
            "min_annotators",
            "max_annotators",
            "target_confidence",
            "min_competence",
            "model",
            "suggestions",
            "created_at",
            "progress",
            "labels",
        ]
        read_only_fields = fields

    @extend_schema_field(ProgressSerializer)
    def get_progress(self, batch: Batch) -> dict[str, int]:
        return progress_of(batch)

    @extend_schema_field(LabelsSavedSerializer(allow_null=True))
    def get_labels(self, batch: Batch) -> dict[str, int] | None:
        """Labels so far against fixed redundancy; null when the batch is not adaptive."""
        return labels_saved(batch) if batch.adaptive else None


class VisibleModelId(ExistingId):
    """A model connection of the requesting user's teams: another team's id is a 404."""

    def get_queryset(self) -> QuerySet[ModelConnection]:
        request = self.context.get("request")
        if request is None:
            return ModelConnection.objects.none()
        return ModelConnection.objects.filter(team__in=teams_of(request.user))


class BatchUpdateSerializer(JsonTypes, serializers.ModelSerializer):
    """What may change after creation: the units (and the pilot) are fixed, the schedule, the
    hand-out order, the status and the model's suggestions are not (suggestions may be turned on
    once the model has run, and off when they should stop)."""

    model = VisibleModelId(
        queryset=ModelConnection.objects.all(),  # the queryset for the schema only
        required=False,
        allow_null=True,
        help_text="The model connection whose labels the pages show (one of the project's team's).",
    )

    class Meta:
        model = Batch
        fields = ["id", "name", "status", "release_after_minutes", "handout", "model", "suggestions"]
        read_only_fields = ["id"]
        extra_kwargs = {"release_after_minutes": {"min_value": 1, "max_value": MAX_COUNT}}

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        batch = self.instance
        assert isinstance(batch, Batch)
        problem = suggestions_problem(
            project=batch.project,
            model=data.get("model", batch.model),
            suggestions=data.get("suggestions", batch.suggestions),
        )
        if problem:
            raise serializers.ValidationError({"model": [problem]})
        return data


class VisibleProjectId(ExistingId):
    """A project of the requesting user's teams: another team's id is a 404, as an id nobody has."""

    def get_queryset(self) -> QuerySet[Project]:
        request = self.context.get("request")
        return projects_visible_to(request.user) if request is not None else Project.objects.none()


class BatchCreateSerializer(JsonTypes):
    project = VisibleProjectId(queryset=Project.objects.all())  # the queryset for the schema only
    name = serializers.CharField(max_length=200)
    items = IdList(
        required=False,
        help_text="Item ids in the order to hand them out, each once; default: every item of the "
        "project. An id that is not an item of the project is a 404.",
    )
    items_per_unit = serializers.IntegerField(
        min_value=1, max_value=MAX_COUNT, default=5, help_text="Items one annotator gets at a time."
    )
    assignments_per_unit = serializers.IntegerField(
        min_value=1,
        max_value=MAX_COUNT,
        required=False,
        help_text="Distinct annotators per item; default: the number the kind's paper used for the project's "
        "language (the kind's suggested annotators per item).",
    )
    release_after_minutes = serializers.IntegerField(
        min_value=1, max_value=MAX_COUNT, default=60, help_text="Work left idle this long is released to somebody else."
    )
    channel = serializers.ChoiceField(choices=channel_choices(), default="invite")
    handout = serializers.ChoiceField(
        choices=Batch.Handout.choices,
        default=Batch.Handout.OVERLAP,
        help_text="Which free unit a new annotator gets: `overlap` (the one others hold, so people share items "
        "from the start and agreement and adjudication begin early) or `spread` (the one fewest hold).",
    )
    pilot_items = serializers.IntegerField(
        min_value=0,
        max_value=MAX_COUNT,
        default=0,
        help_text="The first N items go to every annotator first, whatever the annotators per item; the quality "
        "report measures their agreement apart. 0: no pilot.",
    )
    study = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=200_000,
        trim_whitespace=False,
        help_text="The study file (YAML or JSON, docs/study-checks.md): consent, a comprehension check, an exit "
        "survey. A mistake is a 400 naming its key path and line.",
    )

    adaptive = serializers.BooleanField(
        default=False,
        help_text="Adaptive redundancy (docs/adaptive-redundancy.md): an item is handed out only until its label "
        "is sure enough, least certain items first.",
    )
    min_annotators = serializers.IntegerField(
        min_value=1, max_value=MAX_COUNT, default=2, help_text="Adaptive: labels before an item may settle."
    )
    max_annotators = serializers.IntegerField(
        min_value=1,
        max_value=MAX_COUNT,
        default=5,
        help_text="Adaptive: labels an item gets at most; below min_annotators is a 400.",
    )
    target_confidence = serializers.FloatField(
        min_value=0.5, max_value=0.9999, default=0.98, help_text="Adaptive: the posterior at which an item settles."
    )
    min_competence = serializers.FloatField(
        min_value=0.0,
        max_value=1.0,
        required=False,
        allow_null=True,
        default=None,
        help_text="Adaptive: annotators whose competence is below this with 90 % posterior probability get no more "
        "work. Null: nobody is stopped (0.3 when the study has live quality on).",
    )

    model = VisibleModelId(
        queryset=ModelConnection.objects.all(),  # the queryset for the schema only
        required=False,
        allow_null=True,
        default=None,
        help_text="The model connection whose labels the pages show (one of the project's team's; docs/models.md).",
    )
    suggestions = serializers.ChoiceField(
        choices=SUGGESTION_CHOICES,
        default="off",
        help_text="Show the model's label to annotators: `hint` (beside the question) or `preselect` (chosen for "
        "them to keep or change); recorded with each answer. Needs `model`.",
    )

    def validate_study(self, text: str) -> str:
        try:
            study_check(text)
        except StudyFileError as exc:
            raise serializers.ValidationError([str(p) for p in exc.problems]) from None
        return text

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        """Resolve item ids to the project's items; ids that are not among them are a 404 naming them."""
        data["adaptive"] = {name: data.pop(name) for name in ADAPTIVE_FIELDS if name in data}
        problem = adaptive_problem(data["adaptive"])
        if problem:
            raise serializers.ValidationError({"max_annotators": [problem]})
        problem = suggestions_problem(
            project=data["project"], model=data.get("model"), suggestions=data.get("suggestions", "off")
        )
        if problem:
            raise serializers.ValidationError({"model": [problem]})
        if "assignments_per_unit" not in data:
            project = data["project"]
            data["assignments_per_unit"] = kind_of(project).suggested_annotators_per_item(project.language)
        ids = data.get("items")
        if ids is None:
            return data
        found = Item.objects.filter(project=data["project"], pk__in=ids).only("id", "project_id").in_bulk()
        missing = [i for i in ids if i not in found]
        if missing:
            raise exceptions.NotFound(f"items: not items of this project: {missing[:20]}")
        data["items"] = [found[i] for i in ids]
        return data


class InviteSerializer(JsonTypes, serializers.ModelSerializer):
    url = serializers.SerializerMethodField(help_text="The link to send to annotators.")

    class Meta:
        model = InviteLink
        fields = ["id", "batch", "label", "max_annotators", "active", "created_at", "url"]
        read_only_fields = ["id", "batch", "active", "created_at", "url"]
        extra_kwargs = {"max_annotators": {"max_value": MAX_COUNT}}

    def get_url(self, invite: InviteLink) -> str:
        return invite_url(invite.token, base_url=self.context["request"].build_absolute_uri("/"))


class ReleaseReportSerializer(serializers.Serializer):
    released = serializers.IntegerField(help_text="Assignments released to other annotators.")


@extend_schema_view(list=extend_schema(parameters=[id_parameter("project", "Only this project's batches.")]))
class BatchViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.UpdateModelMixin, viewsets.GenericViewSet):
    """Batches with their progress; created through `batch_create`; only name, status, the
    release time, the hand-out order and the model's suggestions change afterwards (closing a
    batch stops handing out new work). Staff with the Batch model permissions; invite links need the InviteLink ones
    (their URLs let anyone in)."""

    required_permissions = None  # the model's; @action routes name their own

    def get_serializer_class(self) -> type[serializers.Serializer]:
        return BatchUpdateSerializer if self.action in ("update", "partial_update") else BatchSerializer

    def get_queryset(self) -> QuerySet[Batch]:
        qs = visible_to(self.request.user, Batch.objects.order_by("-created_at"))
        project = id_param(self.request, "project")
        if project is not None:
            qs = qs.filter(project_id=project)
        return batches_with_progress(qs)

    @extend_schema(
        request=BatchCreateSerializer,
        responses={
            201: BatchSerializer,
            404: error_response(
                "The project, or an item listed, does not exist (an item of another project counts as not existing)."
            ),
            409: error_response(
                "The project's items cannot make this batch (none imported, its consistency set "
                "names missing items, too many items per unit for its groups, or a pilot that leaves no items)."
            ),
        },
    )
    def create(self, request: Request) -> Response:
        """Split the items into units; each unit then goes to N distinct annotators."""
        form = BatchCreateSerializer(data=request.data, context={"request": request})
        form.is_valid(raise_exception=True)
        try:
            batch = batch_create(**form.validated_data)
        except BatchError as exc:
            raise Conflict(str(exc)) from None
        batch = self.get_queryset().get(pk=batch.pk)
        return Response(self.get_serializer(batch).data, status=201)

    @extend_schema(methods=["GET"], responses=InviteSerializer(many=True), summary="List the batch's invite links")
    @extend_schema(
        methods=["POST"],
        request=InviteSerializer,
        responses={
            201: InviteSerializer,
            409: error_response("The batch is published on another channel than invite links."),
        },
        summary="Create an invite link",
    )
    @action(
        detail=True,
        methods=["get", "post"],
        pagination_class=None,
        required_permissions={"GET": ["annotation.view_invitelink"], "POST": ["annotation.add_invitelink"]},
    )
    def invites(self, request: Request, pk: str | None = None) -> Response:
        """Invite links are what an annotator opens; their URLs are absolute, ready to send."""
        batch = self.get_object()
        if request.method == "GET":
            invites = batch.invites.order_by("id")
            return Response(InviteSerializer(invites, many=True, context={"request": request}).data)
        if batch.channel != "invite":
            raise Conflict(f"Batch {batch.pk} is published on {batch.channel}, not by invite link.")
        form = InviteSerializer(data=request.data, context={"request": request})
        form.is_valid(raise_exception=True)
        invite = invite_link_create(batch=batch, **form.validated_data)
        return Response(InviteSerializer(invite, context={"request": request}).data, status=201)

    @extend_schema(request=None, responses=ReleaseReportSerializer, summary="Release abandoned assignments now")
    @action(
        detail=True,
        methods=["post"],
        url_path="release-abandoned",
        required_permissions={"POST": ["annotation.change_batch"]},
    )
    def release_abandoned(self, request: Request, pk: str | None = None) -> Response:
        """What the periodic sweep does, on demand for one batch."""
        batch = self.get_object()
        return Response({"released": assignments_release_abandoned(batch=batch)})

    @extend_schema(responses=ChannelCallSerializer(many=True), summary="The batch's calls to its recruiting site")
    @action(
        detail=True,
        methods=["get"],
        required_permissions={"GET": ["annotation.view_batch", "annotation.view_channelcall"]},
    )
    def calls(self, request: Request, pk: str | None = None) -> Response:
        """Every call made to the recruiting site for this batch and how it ended, newest first."""
        calls = self.get_object().channel_calls.order_by("-created_at", "-id")
        page = self.paginate_queryset(calls)
        return self.get_paginated_response(ChannelCallSerializer(page, many=True).data)
