"""A Hub dataset folder in the API (staff only): POST starts the export job that writes it as a
zip (docs/publishing.md); the job is then polled and downloaded like any export job."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.errors import Conflict, error_response
from annotation.api.fields import JsonTypes
from annotation.selectors.teams import projects_visible_to
from quality.exports import ExportUnavailable
from quality.exports.hub import HUB_ID, HubOptions, SplitError, SplitPlan
from quality.exports.hub.splits import SPLIT_NAME
from quality.services.exports import hub_export_job_create

from .exports import job_started
from .serializers import ExportJobSerializer

#: for the schema (ECMA-262 has no \\Z): a name with a final newline passes it, and SplitPlan refuses it
SPLIT = f"^{SPLIT_NAME.pattern}$"


class HubFolderSerializer(JsonTypes):
    """The options of `export --dataset hub`: one split (default), or by batch or an item key."""

    split_by = serializers.ChoiceField(
        choices=["", "batch", "key"],
        default="",
        help_text='"" (one split: split_default), "batch" (split_map maps batch ids) or "key" (an item key, '
        "split_key; its value is the split's name, or is mapped by split_map).",
    )
    split_key = serializers.CharField(default="", allow_blank=True, max_length=100, help_text="The item key of `key`.")
    split_map = serializers.DictField(
        child=serializers.RegexField(SPLIT, max_length=100),
        default=dict,
        help_text='A batch id or key value -> its split, e.g. {"3": "train", "5": "test"}.',
    )
    split_default = serializers.RegexField(
        SPLIT, default="train", max_length=100, help_text="The split of an item no rule names."
    )
    license = serializers.RegexField(HUB_ID, default="other", max_length=64, help_text="A Hub licence id.")
    task_categories = serializers.ListField(
        child=serializers.RegexField(HUB_ID, max_length=64),
        default=list,
        max_length=20,
        help_text="The card's task categories; empty: the task's own.",
    )

    def options(self) -> HubOptions:
        """Raises SplitError when the rule is incomplete (a key rule without its key, ...)."""
        data: dict[str, Any] = self.validated_data
        plan = SplitPlan(
            by=data["split_by"], key=data["split_key"], mapping=data["split_map"], default=data["split_default"]
        )
        return HubOptions(plan=plan, license=data["license"], task_categories=tuple(data["task_categories"]))


class ProjectHubFolderView(APIView):
    """Start the job writing the project's Hub folder."""

    required_permissions = {"POST": ["quality.add_exportjob"]}

    @extend_schema(
        tags=["quality"],
        request=HubFolderSerializer,
        responses={
            201: ExportJobSerializer,
            202: ExportJobSerializer,
            409: error_response(
                "No finished quality run (the card reports it), or a split rule that does not fit the project: "
                "a batch that is not the project's, an item of batches mapped to two splits, a key value that is "
                "no split name, a key rule without its key or a batch rule without a mapping."
            ),
        },
        description="Start an export job that writes the project's Hugging Face Hub folder (typed Parquet per "
        "config and split, and README.md, the dataset card) as one zip; 201 when already finished (no broker), "
        "202 while a worker is on it; poll the job, then download its file.",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project = get_object_or_404(projects_visible_to(request.user), pk=project_id)
        body = HubFolderSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            job = hub_export_job_create(project=project, options=body.options(), by=request.user)
        except (ExportUnavailable, SplitError) as exc:
            raise Conflict(str(exc)) from None
        return job_started(request, job)
