"""The stage after annotation: where two first annotations of an item differ, a third person
decides (an adjudication task); every field of the item ends with a final label that records
how it was reached."""

from django.conf import settings
from django.db import models

from .projects import Item
from .work import Annotator, Batch, Response


class Role(models.TextChoices):
    """What an invite link's people do: annotate items, or adjudicate the disagreements."""

    ANNOTATOR = "annotator", "Annotator"
    ADJUDICATOR = "adjudicator", "Adjudicator"


class AdjudicationSetup(models.Model):
    """A batch's adjudication stage: on or off, and the named logins that may adjudicate (beside
    the people of the batch's invite links with the adjudicator role)."""

    batch = models.OneToOneField(Batch, on_delete=models.CASCADE, related_name="adjudication")
    enabled = models.BooleanField(default=True)
    users = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="adjudications",
        help_text="Logins that may adjudicate this batch.",
    )

    def __str__(self) -> str:
        return f"adjudication of {self.batch} ({'on' if self.enabled else 'off'})"


class AdjudicationTask(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Open"
        DECIDED = "decided", "Decided"

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="adjudication_tasks")
    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="adjudication_tasks")
    first_response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="+")
    second_response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="+")
    fields_in_dispute = models.JSONField(help_text="[field name] where the two annotations differ, in order.")
    adjudicator = models.ForeignKey(
        Annotator, null=True, blank=True, on_delete=models.SET_NULL, related_name="adjudication_tasks"
    )
    answers = models.JSONField(default=dict, blank=True, help_text="{field: the adjudicator's value}")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    claimed_at = models.DateTimeField(
        null=True, blank=True, help_text="When the adjudicator last took up the task; idle claims are released."
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["item", "batch"], name="adjudicationtask_unique_item")]

    def __str__(self) -> str:
        return f"adjudication of {self.item} ({self.status})"


class FinalLabel(models.Model):
    class How(models.TextChoices):
        AGREED = "agreed", "Agreed"
        ADJUDICATED = "adjudicated", "Adjudicated"
        UNRESOLVED = "unresolved", "Unresolved"

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="final_labels")
    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="final_labels")
    field = models.CharField(max_length=100)
    value = models.JSONField(null=True, blank=True)
    how = models.CharField(max_length=12, choices=How.choices)
    reason = models.TextField(blank=True)
    decided_by = models.ForeignKey(
        Annotator,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The adjudicator; empty where the two annotators agreed.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["item_id", "id"]
        constraints = [models.UniqueConstraint(fields=["item", "batch", "field"], name="finallabel_unique_field")]

    def __str__(self) -> str:
        return f"{self.item} {self.field}: {self.how}"
