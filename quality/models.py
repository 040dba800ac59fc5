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
    number = models.PositiveIntegerField(
        default=1, help_text="The run's number within its project: a project's first run is run 1."
    )
    parameters = models.JSONField(default=dict)
    report = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["project", "number"], name="qualityrun_number_unique")]

    def __str__(self) -> str:
        return f"Run {self.number} of {self.project}"


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

    def __str__(self) -> str:
        return f"{'kept' if self.keep else 'dropped'}: response {self.response_id} in run {self.run_id}"


class ResearcherDecision(models.Model):
    """A researcher's own verdict on one annotation, with who, when and why: every quality run
    after it keeps an accepted annotation whatever the automatic rules say, and drops a rejected
    one (quality.services.decisions). One per annotation; deciding again replaces it."""

    class Decision(models.TextChoices):
        ACCEPT = "accept", "Accepted"
        REJECT = "reject", "Rejected"

    response = models.OneToOneField(Response, on_delete=models.CASCADE, related_name="researcher_decision")
    decision = models.CharField(max_length=6, choices=Decision.choices)
    note = models.TextField(blank=True)
    decided_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    decided_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"response {self.response_id} {self.get_decision_display().lower()} by the researcher"


class AnnotatorDecision(models.Model):
    run = models.ForeignKey(QualityRun, on_delete=models.CASCADE, related_name="annotator_decisions")
    annotator = models.ForeignKey(Annotator, on_delete=models.CASCADE, related_name="quality_decisions")
    keep = models.BooleanField()
    reasons = models.JSONField(default=list, blank=True)
    metrics = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "annotator"], name="annotatordecision_unique")]

    def __str__(self) -> str:
        return f"{'kept' if self.keep else 'dropped'}: annotator {self.annotator_id} in run {self.run_id}"


class ItemResult(models.Model):
    run = models.ForeignKey(QualityRun, on_delete=models.CASCADE, related_name="item_results")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="quality_results")
    diagnostics = models.JSONField(default=dict)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "item"], name="itemresult_unique")]

    def __str__(self) -> str:
        return f"item {self.item_id} in run {self.run_id}"


class ExportJob(models.Model):
    """One export written to a file by a background task (quality.services.exports), so an
    export of any size never holds a web worker; the file is kept for EXPORT_KEEP_DAYS."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        EXPIRED = "expired", "Expired (file deleted)"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="export_jobs")
    dataset = models.CharField(max_length=40)
    format = models.CharField(max_length=10)
    options = models.JSONField(default=dict, blank=True, help_text="spreadsheet_safe, item_text")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    rows_written = models.BigIntegerField(default=0)
    rows_total = models.BigIntegerField(null=True, blank=True, help_text="Source records, counted when it starts.")
    error = models.TextField(blank=True)
    file_name = models.CharField(max_length=255, blank=True, help_text="The name the download is given.")
    file_path = models.CharField(max_length=500, blank=True, help_text="Relative to EXPORT_ROOT.")
    size = models.BigIntegerField(null=True, blank=True, help_text="Bytes.")
    created_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "finished_at"], name="exportjob_status_finished")]

    def __str__(self) -> str:
        return f"Export #{self.pk} of {self.project}: {self.dataset}.{self.format}"

    @property
    def progress(self) -> float:
        """Share of the source records written, 0-1 (1 once done)."""
        if self.status in (self.Status.DONE, self.Status.EXPIRED):
            return 1.0
        if not self.rows_total:
            return 0.0
        return min(self.rows_written / self.rows_total, 0.99)

    @property
    def cells(self) -> str:
        """How CSV/TSV text cells were written: "exact" or "spreadsheet-safe"."""
        safe = (self.options or {}).get("spreadsheet_safe") and self.format in ("csv", "tsv")
        return "spreadsheet-safe" if safe else "exact"


class RunPlot(models.Model):
    """A plot of a run's report, drawn once when the run finishes (SVG text): the page and the
    report download read it, never redraw it."""

    run = models.ForeignKey(QualityRun, on_delete=models.CASCADE, related_name="plots")
    name = models.SlugField(max_length=60)
    title = models.CharField(max_length=200)
    position = models.PositiveSmallIntegerField(default=0)
    svg = models.TextField(blank=True)
    note = models.TextField(blank=True, help_text="Why the plot is not drawn (its svg is empty).")

    class Meta:
        ordering = ["run", "position"]
        constraints = [models.UniqueConstraint(fields=["run", "name"], name="runplot_unique_name")]

    def __str__(self) -> str:
        return f"{self.title} (run {self.run_id})"


class Prediction(models.Model):
    """A model's labels of one item, imported beside the items (`import_predictions`): the label
    fields' values as a kind stores an annotation's. A quality run scores them against the humans'
    aggregated labels as one more annotator; they never enter agreement, aggregation, drops or the
    exports of human labels. One per (item, model); importing a model again replaces its rows."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="predictions")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="predictions")
    model = models.CharField(max_length=100, help_text='The researcher\'s name for the model, e.g. "gpt-x-zero-shot".')
    labels = models.JSONField(default=dict, help_text="Label field -> the model's value, as the kind stores it.")
    imported_at = models.DateTimeField()
    score = models.FloatField(null=True, blank=True, help_text="The model's confidence, as the file gave it.")
    created_at = models.DateTimeField(null=True, blank=True, help_text="When the model made it, as the file said.")

    class Meta:
        ordering = ["project", "model", "item"]
        constraints = [models.UniqueConstraint(fields=["item", "model"], name="prediction_unique_item_model")]
        indexes = [models.Index(fields=["project", "model"], name="prediction_project_model")]

    def __str__(self) -> str:
        return f"{self.model} on item {self.item_id}"
