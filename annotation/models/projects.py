"""Projects and the items imported into them."""

from django.conf import settings as django_settings
from django.db import models

from .teams import Team


class Project(models.Model):
    name = models.CharField(max_length=200)
    team = models.ForeignKey(
        Team,
        on_delete=models.PROTECT,
        related_name="projects",
        help_text="Only the team's members (and superusers) see and change the project.",
    )
    kind = models.CharField(max_length=40, help_text="Task kind slug (see annotation.kinds).")
    task_file = models.TextField(
        blank=True, help_text="The task file (YAML or JSON, docs/task-files.md) of a project described by one."
    )
    language = models.CharField(max_length=10, default="en")
    instructions = models.TextField(blank=True, help_text="Shown to annotators; empty uses the kind's default.")
    settings = models.JSONField(default=dict, blank=True, help_text="Overrides of the kind's default settings.")
    created_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class ItemQuerySet(models.QuerySet["Item"]):
    def data(self) -> "ItemQuerySet":
        """The items whose answers are the dataset: not the check items (`check_answer`)."""
        return self.filter(check_answer__isnull=True)


class Item(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="items")
    external_id = models.CharField(max_length=200, help_text="Released id, or a content hash when none.")
    payload = models.JSONField(help_text="The item exactly as released.")
    group_key = models.CharField(max_length=200, blank=True, help_text="Ties items that constrain each other.")
    source = models.CharField(max_length=255, blank=True, help_text="File name and line it came from.")
    check_answer = models.JSONField(
        null=True,
        blank=True,
        help_text="An attention or gold item: {label field: expected answer} (a value, a list of accepted values, or "
        '{"min": a, "max": b}). A batch whose study asks for checks mixes these into the work; their answers judge '
        "the annotator and are never part of the data. Empty: an ordinary item.",
    )
    check_explanation = models.TextField(
        blank=True,
        default="",
        db_default="",  # imports write items with their own INSERT/COPY column list
        help_text="Why the expected answer is right: shown after a training item is answered.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ItemQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "external_id"], name="item_unique_external_id"),
        ]
        indexes = [models.Index(fields=["project", "group_key"])]

    def __str__(self) -> str:
        return f"{self.external_id}"
