"""Stored quality runs: every decision keeps its reasons so each removal can be explained."""
from django.conf import settings as django_settings
from django.db import models

from annotation.models import Annotator, Item, Project, Response


class QualityRun(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="quality_runs")
    parameters = models.JSONField(default=dict)
    report = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Quality run #{self.pk} of {self.project}"


class ResponseDecision(models.Model):
    run = models.ForeignKey(QualityRun, on_delete=models.CASCADE, related_name="response_decisions")
    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="quality_decisions")
    keep = models.BooleanField()
    reasons = models.JSONField(default=list, blank=True)
    values = models.JSONField(
        default=dict, blank=True, help_text="Values the rules derived for this annotation (e.g. a calibrated rating)."
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "response"], name="responsedecision_unique")]


class AnnotatorDecision(models.Model):
    run = models.ForeignKey(QualityRun, on_delete=models.CASCADE, related_name="annotator_decisions")
    annotator = models.ForeignKey(Annotator, on_delete=models.CASCADE, related_name="quality_decisions")
    keep = models.BooleanField()
    reasons = models.JSONField(default=list, blank=True)
    metrics = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "annotator"], name="annotatordecision_unique")]


class ItemResult(models.Model):
    run = models.ForeignKey(QualityRun, on_delete=models.CASCADE, related_name="item_results")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="quality_results")
    diagnostics = models.JSONField(default=dict)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "item"], name="itemresult_unique")]


class RunPlot(models.Model):
    """A plot of a run's report, drawn once when the run finishes (SVG text): the page and the
    report download read it, never redraw it."""

    run = models.ForeignKey(QualityRun, on_delete=models.CASCADE, related_name="plots")
    name = models.SlugField(max_length=60)
    title = models.CharField(max_length=200)
    position = models.PositiveSmallIntegerField(default=0)
    svg = models.TextField()

    class Meta:
        ordering = ["run", "position"]
        constraints = [models.UniqueConstraint(fields=["run", "name"], name="runplot_unique_name")]
