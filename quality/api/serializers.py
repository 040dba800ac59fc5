"""Serializers of the quality API: runs with their counts, and the parameters of a request."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotation.api.fields import JsonTypes, SettingsField
from annotation.kinds import all_kinds
from quality.exports import DATASETS, FORMATS
from quality.models import ExportJob, QualityRun
from quality.selectors import run_aggregation, run_agreement, run_headline, run_pilot_agreement


class RunCountsSerializer(serializers.Serializer):
    """Counts of the stored decisions (annotated by quality.selectors.runs_with_counts)."""

    responses = serializers.IntegerField(source="n_responses", read_only=True)
    responses_kept = serializers.IntegerField(source="n_responses_kept", read_only=True)
    annotators = serializers.IntegerField(source="n_annotators", read_only=True)
    annotators_kept = serializers.IntegerField(source="n_annotators_kept", read_only=True)
    items = serializers.IntegerField(source="n_items", read_only=True)


class HeadlineSerializer(serializers.Serializer):
    annotators = serializers.IntegerField()
    annotators_kept = serializers.IntegerField()
    annotators_dropped = serializers.IntegerField()
    annotations = serializers.IntegerField()
    annotations_kept = serializers.IntegerField()
    annotations_dropped = serializers.IntegerField()
    annotators_dropped_by_reason = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="rule (its reasons as one sentence: a number they share, or the range it spans) -> annotators",
    )
    annotations_dropped_by_reason = serializers.DictField(
        child=serializers.IntegerField(), help_text="rule -> annotations; 'annotator dropped' with their annotator"
    )
    computed_on = serializers.CharField()


class ObservedSerializer(serializers.Serializer):
    value = serializers.FloatField(allow_null=True, help_text="mean share of agreeing label pairs per item")
    n_items = serializers.IntegerField()
    reason = serializers.CharField(allow_null=True, help_text="why value is null")


class AlphaSerializer(serializers.Serializer):
    value = serializers.FloatField(allow_null=True, help_text="Krippendorff's alpha at the field's level")
    low = serializers.FloatField(allow_null=True, help_text="bootstrap interval (95 %)")
    high = serializers.FloatField(allow_null=True)
    level = serializers.CharField()
    n_items = serializers.IntegerField()
    n_values = serializers.IntegerField()
    iterations = serializers.IntegerField()
    reason = serializers.CharField(allow_null=True)


class CohenSerializer(serializers.Serializer):
    mean = serializers.FloatField(allow_null=True, help_text="mean of the pairwise Cohen's kappas")
    n_pairs = serializers.IntegerField()
    reason = serializers.CharField(allow_null=True)


class FleissSerializer(serializers.Serializer):
    value = serializers.FloatField(allow_null=True)
    n_items = serializers.IntegerField()
    raters_per_item = serializers.IntegerField()
    n_excluded = serializers.IntegerField()
    reason = serializers.CharField(allow_null=True)


class ICCSerializer(serializers.Serializer):
    single = serializers.FloatField(allow_null=True, help_text="ICC(1): the reliability of one annotator's score")
    average = serializers.FloatField(allow_null=True, help_text="ICC(1,k): the reliability of the mean of k0 scores")
    k0 = serializers.FloatField(allow_null=True, help_text="scores per item of the unbalanced design")
    msb = serializers.FloatField(allow_null=True)
    msw = serializers.FloatField(allow_null=True)
    f = serializers.FloatField(allow_null=True)
    p_value = serializers.FloatField(allow_null=True)
    n_items = serializers.IntegerField()
    n_scores = serializers.IntegerField()
    reason = serializers.CharField(allow_null=True)


class FieldAgreementSerializer(serializers.Serializer):
    field = serializers.CharField()
    title = serializers.CharField()
    level = serializers.ChoiceField(choices=["nominal", "ordinal", "interval", "set"])
    n_items = serializers.IntegerField()
    n_annotators = serializers.IntegerField()
    n_labels = serializers.IntegerField()
    observed = ObservedSerializer()
    alpha = AlphaSerializer()
    cohen = CohenSerializer(allow_null=True, help_text="null for set-valued and interval fields")
    fleiss = FleissSerializer(allow_null=True, help_text="null for set-valued and interval fields")
    icc = ICCSerializer(
        allow_null=True, required=False, help_text="interval fields: the one-way ICC (Shrout & Fleiss' ICC(1))"
    )
    spearman_pairwise_mean = serializers.FloatField(allow_null=True, help_text="interval fields (ratings)")
    spearman_vs_rest_mean = serializers.FloatField(allow_null=True, help_text="interval fields (ratings)")
    not_applicable = serializers.DictField(child=serializers.CharField(), help_text="coefficient -> why not")


class FieldAggregationSerializer(serializers.Serializer):
    field = serializers.CharField()
    n_items = serializers.IntegerField()
    majority_ties = serializers.IntegerField(help_text="items whose top labels tie: no majority label")
    majority_agrees_with_ds = serializers.IntegerField()
    ds_mean_posterior = serializers.FloatField(allow_null=True)
    ds_iterations = serializers.IntegerField()
    ds_converged = serializers.BooleanField()
    ds_priors = serializers.DictField(child=serializers.FloatField(allow_null=True))


class QualityRunSerializer(serializers.ModelSerializer):
    summary = serializers.SerializerMethodField(help_text="Run-level figures from the kind's quality rules.")
    counts = RunCountsSerializer(source="*", read_only=True)
    created_by = serializers.CharField(
        read_only=True, allow_null=True, help_text="Who started it (null: nobody signed in, or the user was deleted)."
    )
    headline = serializers.SerializerMethodField(
        help_text="Annotators and annotations kept and dropped, by rule (null: no responses, or an older run)."
    )
    agreement = serializers.SerializerMethodField(
        help_text="Per label field the kind declares, in its order: agreement on the annotations the run keeps."
    )
    pilot_agreement = serializers.SerializerMethodField(
        help_text="The same figures on the batches' pilot items only (which every annotator does first); empty "
        "without a pilot or before two annotators have done a pilot item."
    )
    aggregation = serializers.SerializerMethodField(
        help_text="Per nominal/ordinal field: majority vote and Dawid-Skene over the kept annotations; the "
        "per-item labels and their confidence are in the items export."
    )

    class Meta:
        model = QualityRun
        fields = [
            "id",
            "project",
            "status",
            "parameters",
            "summary",
            "counts",
            "headline",
            "agreement",
            "pilot_agreement",
            "aggregation",
            "error",
            "created_by",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_summary(self, run: QualityRun) -> dict[str, Any]:
        return (run.report or {}).get("summary", {})

    @extend_schema_field(HeadlineSerializer(allow_null=True))
    def get_headline(self, run: QualityRun) -> dict[str, Any] | None:
        return run_headline(run) or None

    @extend_schema_field(FieldAgreementSerializer(many=True))
    def get_agreement(self, run: QualityRun) -> list[dict[str, Any]]:
        return [{"field": name, **figures} for name, figures in run_agreement(run).items()]

    @extend_schema_field(FieldAgreementSerializer(many=True))
    def get_pilot_agreement(self, run: QualityRun) -> list[dict[str, Any]]:
        return [{"field": name, **figures} for name, figures in run_pilot_agreement(run).items()]

    @extend_schema_field(FieldAggregationSerializer(many=True))
    def get_aggregation(self, run: QualityRun) -> list[dict[str, Any]]:
        return [{"field": name, **summary} for name, summary in run_aggregation(run).items()]


class QualityRunRequestSerializer(JsonTypes):
    settings = SettingsField(
        required=False,
        default=dict,
        help_text="Overrides of the project's quality settings for this run only (the settings of its task kind).",
    )


class ExportQuerySerializer(JsonTypes):
    dataset = serializers.ChoiceField(
        choices=list(DATASETS) + sorted({name for kind in all_kinds() for name in kind.item_exports()}),
        default="raw",
        help_text="The standard datasets, or a further released format of the project's kind (the choices "
        "list every kind's); a format of another kind gets a 409 listing the project's datasets.",
    )
    format = serializers.ChoiceField(
        choices=list(FORMATS),
        required=False,
        help_text="csv, tsv or jsonl for a table (default csv); json for label_studio (Label Studio's task JSON, "
        "its only format and its default).",
    )
    spreadsheet_safe = serializers.BooleanField(
        default=False,
        help_text="CSV/TSV: prefix text cells starting with =, +, -, @, tab or CR with ' so a spreadsheet does not "
        "run them as formulas. Default false: every cell exactly as stored (research data round-trips).",
    )
    item_text = serializers.BooleanField(
        default=False, help_text="raw and clean: each annotation row carries the item's text (the kind's text columns)."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """An empty `?format=` or `?dataset=` is not one of the choices the schema lists: refuse it
        rather than take the default (DRF treats an empty query value of an optional field as absent)."""
        given = self.initial_data
        empty = {name: ["This field may not be blank."] for name in ("dataset", "format") if given.get(name) == ""}
        if empty:
            raise serializers.ValidationError(empty)
        return attrs


class ExportJobSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(
        read_only=True, allow_null=True, help_text="Who started it (null: nobody signed in, or the user was deleted)."
    )
    progress = serializers.FloatField(read_only=True, help_text="Share of the source records written, 0-1.")
    cells = serializers.CharField(
        read_only=True, help_text='"exact" or "spreadsheet-safe": how CSV/TSV cells were written.'
    )
    download_url = serializers.SerializerMethodField(
        help_text="Where the file is, once the job is done (null until then)."
    )

    class Meta:
        model = ExportJob
        fields = [
            "id",
            "project",
            "dataset",
            "format",
            "options",
            "cells",
            "status",
            "progress",
            "rows_written",
            "rows_total",
            "size",
            "file_name",
            "error",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
            "download_url",
        ]
        read_only_fields = fields

    @extend_schema_field({"type": "string", "format": "uri", "nullable": True})
    def get_download_url(self, job: ExportJob) -> str | None:
        if job.status != ExportJob.Status.DONE:
            return None
        url = reverse("api-export-download", args=[job.pk])
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request else url


class ScorerOptionSerializer(serializers.Serializer):
    name = serializers.CharField()
    help = serializers.CharField()
    file = serializers.BooleanField(help_text="an uploaded file (else a text value)")
    many = serializers.BooleanField(help_text="may be given several times")
    required = serializers.BooleanField()


class ScorerSerializer(serializers.Serializer):
    """One of a kind's reports or scorers (`TaskKind.scorers()`), by name."""

    name = serializers.CharField()
    description = serializers.CharField()
    options = ScorerOptionSerializer(many=True)
