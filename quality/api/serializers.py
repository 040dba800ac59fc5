"""Serializers of the quality API: runs with their counts, and the parameters of a request."""
from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from django.urls import reverse
from rest_framework import serializers

from annotation.kinds import all_kinds
from quality.exports import DATASETS, FORMATS
from quality.models import ExportJob, QualityRun


class RunCountsSerializer(serializers.Serializer):
    """Counts of the stored decisions (annotated by quality.selectors.runs_with_counts)."""

    responses = serializers.IntegerField(source="n_responses", read_only=True)
    responses_kept = serializers.IntegerField(source="n_responses_kept", read_only=True)
    annotators = serializers.IntegerField(source="n_annotators", read_only=True)
    annotators_kept = serializers.IntegerField(source="n_annotators_kept", read_only=True)
    items = serializers.IntegerField(source="n_items", read_only=True)


class QualityRunSerializer(serializers.ModelSerializer):
    summary = serializers.SerializerMethodField(help_text="Run-level figures from the kind's quality rules.")
    counts = RunCountsSerializer(source="*", read_only=True)
    created_by = serializers.StringRelatedField()

    class Meta:
        model = QualityRun
        fields = ["id", "project", "status", "parameters", "summary", "counts", "error", "created_by",
                  "created_at", "finished_at"]
        read_only_fields = fields

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_summary(self, run: QualityRun) -> dict[str, Any]:
        return (run.report or {}).get("summary", {})


class QualityRunRequestSerializer(serializers.Serializer):
    settings = serializers.DictField(
        required=False, default=dict, help_text="Overrides of the project's quality settings for this run only."
    )

    def __init__(self, *args: Any, known_settings: dict[str, Any] | None = None, **kwargs: Any):
        self.known_settings = known_settings or {}
        super().__init__(*args, **kwargs)

    def validate_settings(self, value: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(value) - set(self.known_settings))
        if unknown:
            known = ", ".join(sorted(self.known_settings)) or "none"
            raise serializers.ValidationError(f"unknown setting(s) {', '.join(unknown)}; known: {known}")
        return value


class ExportQuerySerializer(serializers.Serializer):
    dataset = serializers.ChoiceField(
        choices=list(DATASETS) + sorted({name for kind in all_kinds() for name in kind.item_exports()}),
        default="raw",
        help_text="The standard datasets, or a further released format of the project's kind (CoSimLex: "
        "kit_data, kit_gold); a format of another kind gets a 400 listing the project's datasets.",
    )
    format = serializers.ChoiceField(choices=list(FORMATS), default="csv")
    spreadsheet_safe = serializers.BooleanField(
        default=False,
        help_text="CSV/TSV: prefix text cells starting with =, +, -, @, tab or CR with ' so a spreadsheet does not "
        "run them as formulas. Default false: every cell exactly as stored (research data round-trips).",
    )
    item_text = serializers.BooleanField(
        default=False, help_text="raw and clean: each annotation row carries the item's text (the kind's text columns)."
    )


class ExportJobSerializer(serializers.ModelSerializer):
    created_by = serializers.StringRelatedField()
    progress = serializers.FloatField(read_only=True, help_text="Share of the source records written, 0-1.")
    cells = serializers.CharField(read_only=True, help_text='"exact" or "spreadsheet-safe": how CSV/TSV cells were written.')
    download_url = serializers.SerializerMethodField(help_text="Where the file is, once the job is done.")

    class Meta:
        model = ExportJob
        fields = ["id", "project", "dataset", "format", "options", "cells", "status", "progress", "rows_written",
                  "rows_total", "size", "file_name", "error", "created_by", "created_at", "started_at",
                  "finished_at", "download_url"]
        read_only_fields = fields

    @extend_schema_field(OpenApiTypes.URI)
    def get_download_url(self, job: ExportJob) -> str | None:
        if job.status != ExportJob.Status.DONE:
            return None
        url = reverse("api-export-download", args=[job.pk])
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request else url


class ScoreRequestSerializer(serializers.Serializer):
    subtask1 = serializers.FileField(required=False, help_text="results_subtask1_{lang}.tsv: a `change` column")
    subtask2 = serializers.FileField(
        required=False, help_text="results_subtask2_{lang}.tsv: `sim_context1` and `sim_context2` columns"
    )
    gold = serializers.FileField(
        required=False,
        help_text="a kit gold file (sim_context1, sim_context2, change); without it the project's cleaned data is the gold",
    )

    def validate(self, attrs: dict) -> dict:
        if not attrs.get("subtask1") and not attrs.get("subtask2"):
            raise serializers.ValidationError("upload at least one submission file: subtask1 and/or subtask2")
        return attrs


class Subtask1ScoreSerializer(serializers.Serializer):
    uncentered_pearson = serializers.FloatField()


class Subtask2ScoreSerializer(serializers.Serializer):
    pearson = serializers.FloatField()
    spearman = serializers.FloatField()
    harmonic_mean = serializers.FloatField(allow_null=True)
    note = serializers.CharField(required=False)


class ScoreSerializer(serializers.Serializer):
    pairs = serializers.IntegerField()
    subtask1 = Subtask1ScoreSerializer(required=False)
    subtask2 = Subtask2ScoreSerializer(required=False)
